/**
 * Request ops: submitting a plan and asking where one's plan gate stands, the approver's answers to
 * plan requests, the lead's shutdown request and a member's answer to one. Answers are thin calls
 * into TeamStore.answerRequest, whose state machine refuses duplicates, wrong responders and type
 * mismatches with a reason. A plan decision is signed with the caller's signer (an enrolled lead's
 * key: teamux's agent lead, or `teamux mcp --as LEAD` for a Claude Code lead); a caller without one
 * (the CLI, any other MCP client) is refused `unsigned` before anything is written. Plan status counts an answer only when its signature checks out against the caller's
 * start-time anchor; without one, the recorded status is reported, marked unverified.
 */
import { z } from '../protocol/zod.js';
import { gateAnchorAtStart, memberPlanStatus, untrustedReason } from '../protocol/plan-gate.js';
import { currentPlan, type PlanStatus } from '../protocol/requests.js';
import { OPERATOR } from '../protocol/trust.js';
import { accept, Name, refuse, RequestId, type Outcome, type ProtocolRequest } from '../protocol/types.js';
import { actor, defineOp, leadOf, oneLine, type OpContext } from './op.js';
import { releaseHeld } from './tasks.js';

export const submitPlan = defineOp({
  name: 'submit_plan',
  description: 'Submit your plan for approval. Until it is approved, bash, write_file and edit_file are blocked. The answer arrives as a plan_approval_response message.',
  input: z.strictObject({ plan: z.string().min(1).describe('what you will change and how, step by step') }),
  summary: (i) => oneLine(i.plan, 60),
  async run(i, ctx) {
    const me = actor(ctx);
    const approver = me.planApprover ?? leadOf(ctx.team);
    if (!approver) return refuse('unknown_member', 'this team has no lead to approve plans');
    return ctx.store.openRequest('plan_approval', me.name, approver, i.plan);
  },
  text: (q) => `plan submitted to ${q.to} as ${q.id}; status pending. Wait for the plan_approval_response before changing anything.`,
});

/** Where a member's plan gate stands, with its current plan request, and whether the answer was checked. */
export interface PlanState {
  member: string;
  status: PlanStatus;
  request: ProtocolRequest | null;
  verified: boolean;
  /** Why the status is not verified (no trust key, or a signature that does not check out). */
  unverifiedReason: string | null;
}

export const planStatusOp = defineOp({
  name: 'plan_status',
  description: 'Where your plan gate stands: not_required, not_submitted, pending, rejected (with feedback), approved, or unverified (an answer whose signature does not check out).',
  input: z.strictObject({}),
  summary: () => 'plan status',
  async run(_i, ctx) {
    const me = actor(ctx);
    const anchor = ctx.anchor ?? gateAnchorAtStart({}, me, ctx.team, leadOf(ctx.team) ?? '');
    const requests = (await ctx.store.requests.list()).requests;
    const request = currentPlan(requests, me.name, anchor.run) ?? null;
    if (!anchor.trust) {
      // Nothing can be checked without the screen's key: the status as recorded, marked unverified.
      const status: PlanStatus = !anchor.planRequired ? 'not_required' : !request || request.status === 'expired' || request.status === 'withdrawn' ? 'not_submitted' : request.status;
      return accept<PlanState>({ member: me.name, status, request, verified: false, unverifiedReason: 'no TEAMUX_TRUST_KEY: signatures not checked' });
    }
    const status = memberPlanStatus(anchor, requests);
    const why = status === 'unverified' ? untrustedReason(anchor, requests) : null;
    return accept<PlanState>({ member: me.name, status, request, verified: why === null, unverifiedReason: why });
  },
  text: (v) => `plan ${v.status}${v.request ? ` (${v.request.id})` : ''}${v.unverifiedReason ? ` [unverified: ${v.unverifiedReason}]` : ''}${v.request?.response?.text ? `: ${v.request.response.text}` : ''}`,
});

/** The refusal for a plan answer from a caller that cannot sign: who answers plan `id` addressed to `to`, and how. */
export function unsignedRefusal(id: string, to: string, why?: string): Outcome<never> {
  const how = to === OPERATOR ? 'the human answers it on the teamux screen (select it, C-a a / C-a r)' : `${to} answers it with its approve_plan / reject_plan tools, signed with the key the teamux screen certified (a lead started by teamux with plan_approver: lead)`;
  return refuse('unsigned', `${id} is a plan request: its answer must be signed, and this caller has no signing key${why ? `: ${why}` : ''} (${how})`);
}

/** Answer a plan request with the caller's signer; without one the answer would not count, so it is refused. */
async function signedAnswer(ctx: OpContext, id: string, approve: boolean, feedback: string): Promise<Outcome<ProtocolRequest>> {
  const me = actor(ctx).name;
  if (!ctx.signer) {
    const found = await ctx.store.requests.get(id);
    if (found.ok && found.value.type !== 'plan_approval') return ctx.store.answerRequest(id, me, approve, feedback, 'plan_approval_response');
    return unsignedRefusal(id, found.ok ? found.value.to : me, ctx.unsignedWhy);
  }
  return ctx.store.answerRequest(id, me, approve, feedback, 'plan_approval_response', ctx.signer);
}

export const approvePlan = defineOp({
  name: 'approve_plan',
  description: 'Approve a teammate\'s plan request (its request_id is on the plan_approval_request message).',
  leadOnly: true,
  input: z.strictObject({ request_id: RequestId, feedback: z.string().default('approved') }),
  summary: (i) => i.request_id,
  run: (i, ctx) => signedAnswer(ctx, i.request_id, true, i.feedback),
  text: (q) => `approved the plan of ${q.from} (${q.id})`,
});

export const rejectPlan = defineOp({
  name: 'reject_plan',
  description: 'Reject a teammate\'s plan with feedback saying what to change; they revise and resubmit.',
  leadOnly: true,
  input: z.strictObject({ request_id: RequestId, feedback: z.string().min(1) }),
  summary: (i) => `${i.request_id}: ${oneLine(i.feedback, 40)}`,
  run: (i, ctx) => signedAnswer(ctx, i.request_id, false, i.feedback),
  text: (q) => `rejected the plan of ${q.from} (${q.id})`,
});

export const requestShutdown = defineOp({
  name: 'request_shutdown',
  description: 'Ask a member to finish its current step and stop. Its shutdown_response arrives in your inbox.',
  leadOnly: true,
  input: z.strictObject({ to: Name, reason: z.string().default('the work is done') }),
  summary: (i) => `${i.to}: ${oneLine(i.reason, 50)}`,
  run: (i, ctx) => ctx.store.openRequest('shutdown', actor(ctx).name, i.to, i.reason),
  text: (q) => `asked ${q.to} to shut down (${q.id})`,
});

/** A shutdown answer: the resolved request and the tasks put back on the board. */
export interface ShutdownAnswer {
  request: ProtocolRequest;
  released: string[];
}

export const respondShutdown = defineOp({
  name: 'respond_shutdown',
  description: 'Answer a shutdown_request addressed to you (its request_id is on the message). Approving puts the tasks you hold back on the board and tells the lead you are stopping: finish at once. Refusing needs a reason.',
  input: z.strictObject({
    request_id: RequestId,
    approve: z.boolean(),
    reason: z.string().default('').describe('why you refuse (required to refuse), or a last word when approving'),
  }),
  summary: (i) => `${i.request_id}: ${i.approve ? 'approve' : `refuse: ${oneLine(i.reason, 40)}`}`,
  async run(i, ctx) {
    const me = actor(ctx).name;
    if (!i.approve && !i.reason.trim()) return refuse('invalid_input', 'refusing a shutdown needs a reason');
    const found = await ctx.store.requests.get(i.request_id);
    if (!found.ok) return found;
    if (found.value.type !== 'shutdown') return refuse('type_mismatch', `request ${i.request_id} is a ${found.value.type} request; respond_shutdown answers shutdown requests`);
    if (found.value.to !== me || found.value.status !== 'pending') {
      // The store's state machine words these refusals; let it.
      const r = await ctx.store.answerRequest(i.request_id, me, i.approve, i.reason, 'shutdown_response');
      return r.ok ? accept({ request: r.value, released: [] }) : r;
    }
    const released = i.approve ? await releaseHeld(ctx.store, me, 'owner shut down') : [];
    const text = i.approve ? [i.reason.trim() || 'shutting down', released.length ? `released task${released.length > 1 ? 's' : ''} ${released.join(', ')}` : ''].filter(Boolean).join('; ') : i.reason;
    const r = await ctx.store.answerRequest(i.request_id, me, i.approve, text, 'shutdown_response');
    return r.ok ? accept<ShutdownAnswer>({ request: r.value, released }) : r;
  },
  text: (v) => v.request.status === 'approved'
    ? `shutdown approved (${v.request.id})${v.released.length ? `; released ${v.released.join(', ')}` : ''}: stop now`
    : `shutdown refused (${v.request.id})`,
});
