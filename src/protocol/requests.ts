/**
 * The request/response state machines for shutdown and plan approval. A request starts pending and
 * is resolved exactly once, by the member it targets, with a response of its own type. These are
 * pure functions: the store reads the request file, calls resolve(), and writes what comes back.
 */
import { accept, refuse, type Outcome, type ProtocolRequest, type RequestType } from './types.js';

/** A response as it arrives: which kind, from whom, and the verdict. */
export interface ResponseInput {
  type: 'shutdown_response' | 'plan_approval_response' | 'permission_response';
  by: string;
  approve: boolean;
  text: string;
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

/** The asker stops waiting for a pending request (only the asker may, and only while it is pending). */
export function withdraw(req: ProtocolRequest, by: string, reason: string, now: string): Outcome<ProtocolRequest> {
  if (req.status !== 'pending') return refuse('not_pending', `request ${req.id} was already ${req.status} by ${req.response?.by ?? 'someone'}`);
  if (by !== req.from) return refuse('wrong_responder', `request ${req.id} was opened by ${req.from}; ${by} cannot withdraw it`);
  return accept({ ...req, status: 'withdrawn', resolvedAt: now, response: { by, approve: false, text: reason, at: now } });
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
  if (response.by !== req.to) {
    return refuse('wrong_responder', `request ${req.id} is addressed to ${req.to}; ${response.by} cannot answer it`);
  }
  return accept({
    ...req,
    status: response.approve ? 'approved' : 'rejected',
    resolvedAt: now,
    response: { by: response.by, approve: response.approve, text: response.text, at: now },
  });
}

/** The state of a member's plan gate, derived from its plan requests (newest last). */
export type PlanStatus = 'not_required' | 'not_submitted' | 'pending' | 'rejected' | 'approved';

/** Derive the plan gate state from a member's plan requests. */
export function planStatus(planRequired: boolean, requests: readonly ProtocolRequest[]): PlanStatus {
  if (!planRequired) return 'not_required';
  if (requests.some((r) => r.type === 'plan_approval' && r.status === 'approved')) return 'approved';
  const plans = requests.filter((r) => r.type === 'plan_approval');
  const last = plans[plans.length - 1];
  if (!last) return 'not_submitted';
  return last.status === 'pending' ? 'pending' : 'rejected';
}
