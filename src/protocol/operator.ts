/**
 * The operator: the person at the teamux screen. Their keys act under one reserved name, never as the
 * lead and never as any member: a broadcast from the keys comes from `human`, a shutdown the keys ask
 * for is `human`'s request, and answers to it go to `human`'s inbox. No member may take the name, and
 * only the process that owns the screen (the multiplexer) may send as it.
 */

/** The reserved identity of the person at the teamux screen (never a member name). */
export const OPERATOR = 'human';

/** True for the operator's name. */
export function isOperator(name: string): boolean {
  return name === OPERATOR;
}

/** A pending request the person answers: a plan addressed to the operator, or a permission request. */
export function waitsForOperator(r: { type: string; to: string; status: string }): boolean {
  return r.status === 'pending' && ((r.type === 'plan_approval' && r.to === OPERATOR) || r.type === 'permission');
}
