/**
 * The request/response state machines for shutdown, plan approval and permission. A request belongs
 * to the run it was opened in, starts pending and is closed exactly once: answered by the member (or
 * operator) it targets with a response of its own type, or expired when a new run starts. A plan
 * request may not be addressed to its own author, and a plan decision or a permission answer must
 * carry a signature (see trust.ts); which answers count is decided by the member's gate (from the
 * current plan only) and its permission hook. These are pure
 * functions: the store reads the request file, calls resolve(), and writes what comes back.
 */
import { OPERATOR, type ResponseSignature } from './trust.js';
import { accept, refuse, type Outcome, type ProtocolRequest, type RequestType } from './types.js';

/** A response as it arrives: which kind, from whom, the verdict, and for a plan its signature. */
export interface ResponseInput {
  type: 'shutdown_response' | 'plan_approval_response' | 'permission_response';
  by: string;
  approve: boolean;
  text: string;
  signed?: ResponseSignature | null;
}

/** Whether a request may be opened from `from` to `to`: nobody approves their own plan. */
export function checkOpen(type: RequestType, from: string, to: string): Outcome<null> {
  if (type === 'plan_approval' && from === to) {
    return refuse('self_approval', `${from} cannot send a plan request to itself: plans go to the configured approver`);
  }
  return accept(null);
}

/** The request type a response answers. */
export function requestTypeOf(response: ResponseInput['type']): RequestType {
  return response === 'shutdown_response' ? 'shutdown' : response === 'permission_response' ? 'permission' : 'plan_approval';
}

/** The message type that opens a request of this type. */
export function requestMessageType(type: RequestType): 'shutdown_request' | 'plan_approval_request' {
  return type === 'shutdown' ? 'shutdown_request' : 'plan_approval_request';
}

/** The message type that answers a request of this type. */
export function responseMessageType(type: RequestType): ResponseInput['type'] {
  return type === 'shutdown' ? 'shutdown_response' : type === 'permission' ? 'permission_response' : 'plan_approval_response';
}

/** Whether answering a request of this type sends its asker a message (a permission answer goes back to the waiting hook instead). */
export function answerIsMessaged(type: RequestType): boolean {
  return type !== 'permission';
}

/** The one-line body of a permission request: the tool and the gist of its input. */
export function permissionSummary(tool: string, input: unknown): string {
  const i = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const gist = [i['command'], i['file_path'], i['notebook_path'], i['url'], i['pattern']].find((v) => typeof v === 'string') as string | undefined;
  const text = gist ?? JSON.stringify(input ?? {});
  return `${tool}: ${text.length > 200 ? `${text.slice(0, 199)}…` : text}`;
}

/** The refusal for a permission answer that is not the operator's signed one from the teamux screen. */
export function permissionUnsigned(id: string): Outcome<never> {
  return refuse('unsigned', `request ${id} is a permission request: only the operator answers it, on the teamux screen (select it, C-a a allows, C-a r denies), signed with the screen's key; nothing else counts (after permission_timeout, Claude Code asks in the member's own pane)`);
}

/** The asker stops waiting for a pending request (only the asker may, and only while it is pending). */
export function withdraw(req: ProtocolRequest, by: string, reason: string, now: string): Outcome<ProtocolRequest> {
  if (req.status !== 'pending') return refuse('not_pending', `request ${req.id} was already ${req.status} by ${req.response?.by ?? 'someone'}`);
  if (by !== req.from) return refuse('wrong_responder', `request ${req.id} was opened by ${req.from}; ${by} cannot withdraw it`);
  return accept({ ...req, status: 'withdrawn', resolvedAt: now, response: { by, approve: false, text: reason, at: now, signed: null } });
}

/**
 * Resolve a pending request. A duplicate (already resolved), a response of the wrong type, or one
 * from anybody but the target changes nothing and says why.
 */
export function resolve(req: ProtocolRequest, response: ResponseInput, now: string): Outcome<ProtocolRequest> {
  if (requestTypeOf(response.type) !== req.type) {
    return refuse('type_mismatch', `request ${req.id} is a ${req.type} request; a ${response.type} cannot answer it`);
  }
  if (req.status !== 'pending') {
    return refuse('not_pending', `request ${req.id} was already ${req.status} by ${req.response?.by ?? 'someone'}`);
  }
  if (req.type === 'plan_approval' && response.by === req.from) {
    return refuse('self_approval', `request ${req.id} is ${req.from}'s own plan; nobody approves their own plan`);
  }
  if (response.by !== req.to) {
    return refuse('wrong_responder', `request ${req.id} is addressed to ${req.to}; ${response.by} cannot answer it`);
  }
  if (req.type === 'plan_approval' && !response.signed) {
    const how = req.to === OPERATOR ? 'from the teamux screen with C-a a / C-a r' : `by ${req.to}'s approve_plan / reject_plan tools, with the key the teamux screen certified`;
    return refuse('unsigned', `request ${req.id} is a plan request: its answer must be signed by ${req.to} (${how})`);
  }
  if (req.type === 'permission' && !response.signed) return permissionUnsigned(req.id);
  return accept({
    ...req,
    status: response.approve ? 'approved' : 'rejected',
    resolvedAt: now,
    response: { by: response.by, approve: response.approve, text: response.text, at: now, signed: response.signed ?? null },
  });
}

/** Close a pending request of an earlier run as expired; anything else is left as it is (null). */
export function expire(req: ProtocolRequest, currentRun: string, now: string): ProtocolRequest | null {
  if (req.status !== 'pending' || req.run === currentRun) return null;
  const reason = req.run === null ? 'opened before runs were recorded; teamux was started again' : `opened in run ${req.run}; teamux was started again (run ${currentRun})`;
  return { ...req, status: 'expired', resolvedAt: now, expiredReason: reason };
}

/**
 * The state of a member's plan gate. `unverified`: the current plan has an answer on record whose
 * signature this process cannot check or that does not check out, so it does not count.
 */
export type PlanStatus = 'not_required' | 'not_submitted' | 'pending' | 'rejected' | 'approved' | 'unverified';

/** The member's current plan: its newest plan request of this run (requests are oldest first). */
export function currentPlan(requests: readonly ProtocolRequest[], member: string, run: string | null): ProtocolRequest | undefined {
  const mine = requests.filter((r) => r.type === 'plan_approval' && r.from === member && r.run === run);
  return mine[mine.length - 1];
}

/** Derive the plan gate state from the current plan; `trusted` says whether its answer's signature counts. */
export function planStatus(planRequired: boolean, current: ProtocolRequest | undefined, trusted: (req: ProtocolRequest) => boolean): PlanStatus {
  if (!planRequired) return 'not_required';
  // (`withdrawn` only happens to permission requests; read defensively like `expired`.)
  if (!current || current.status === 'expired' || current.status === 'withdrawn') return 'not_submitted';
  if (current.status === 'pending') return 'pending';
  if (!trusted(current)) return 'unverified';
  return current.status;
}
