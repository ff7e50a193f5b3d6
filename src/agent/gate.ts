/**
 * The plan gate and the tool permissions, decided at dispatch: pure functions of the member record
 * and its plan status, so no model output can talk its way past them. A member with planRequired may
 * not run a mutating tool until one of its plan requests is approved; a teammate may not run a
 * lead-only tool; a `tools` allowlist in team.json narrows either set further.
 */
import type { PlanStatus } from '../protocol/requests.js';
import type { Member, ProtocolRequest } from '../protocol/types.js';
import { planStatus } from '../protocol/requests.js';

/** Tools that change the world outside the team folder: held back until a required plan is approved. */
export const MUTATING_TOOLS: ReadonlySet<string> = new Set(['bash', 'write_file', 'edit_file']);

/** Whether a tool may run now, and if not, the tool result the model gets instead. */
export type GateDecision = { allow: true } | { allow: false; reason: string };

/** Decide whether `tool` may run for a member whose plan gate is in `status`. */
export function gateDecision(tool: string, status: PlanStatus): GateDecision {
  if (!MUTATING_TOOLS.has(tool)) return { allow: true };
  if (status === 'not_required' || status === 'approved') return { allow: true };
  const hint = status === 'pending'
    ? 'wait for the plan_approval_response before changing anything'
    : status === 'rejected'
      ? 'revise the plan using the feedback and submit it again with submit_plan'
      : 'submit a plan with submit_plan and wait for its approval';
  return { allow: false, reason: `blocked: plan status is ${status} (${hint})` };
}

/** The plan status of `member`, from all requests of the team (only its own plan requests count). */
export function memberPlanStatus(member: Pick<Member, 'name' | 'planRequired'>, requests: readonly ProtocolRequest[]): PlanStatus {
  return planStatus(member.planRequired, requests.filter((r) => r.type === 'plan_approval' && r.from === member.name));
}

/** Whether a member may use a tool: one rule for every front end, kept with the ops. */
export { toolPermitted } from '../ops/invoke.js';
