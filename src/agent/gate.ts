/**
 * The plan gate and the tool permissions, decided at dispatch: pure functions of what the member
 * process fixed at its start (a GateAnchor: whether it needs a plan, who approves, the trust key and
 * run from its environment) and of its current plan request, so no model output, hand-edited file or
 * child process can talk its way past them. A member with planRequired may not run a mutating tool
 * until its current plan (the newest of this run) carries an approval signed by its approver and
 * verified against the trust key; a teammate may not run a lead-only tool; a `tools` allowlist in
 * team.json narrows either set further.
 */
import type { PlanStatus } from '../protocol/requests.js';
import type { Member, ProtocolRequest, TeamConfig } from '../protocol/types.js';
import { currentPlan, planStatus } from '../protocol/requests.js';
import { answerTrusted, OPERATOR, parsePublicKey, whyUntrusted, type TrustAnchor } from '../protocol/trust.js';

/** What a member process fixes at its start and never re-reads from files. */
export interface GateAnchor {
  member: string;
  planRequired: boolean;
  /** Whose signed answer counts: OPERATOR or the lead's name. */
  approver: string;
  /** This run (requests of other runs do not count). */
  run: string | null;
  /** The trust key from TEAMUX_TRUST_KEY; null when the process was not started by a teamux screen. */
  trust: TrustAnchor | null;
}

/** The gate anchor from the environment the process started with, and team.json as read at start. */
export function gateAnchorAtStart(env: NodeJS.ProcessEnv, me: Member, team: TeamConfig, lead: string): GateAnchor {
  const run = env.TEAMUX_RUN || team.run;
  const key = env.TEAMUX_TRUST_KEY ?? '';
  const trust = run && parsePublicKey(key) ? { trustKey: key.trim(), team: team.name, run } : null;
  return {
    member: me.name,
    planRequired: me.planRequired || env.TEAMUX_PLAN_REQUIRED === '1',
    approver: env.TEAMUX_PLAN_APPROVER || me.planApprover || lead || OPERATOR,
    run,
    trust,
  };
}

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
      : status === 'unverified'
        ? 'the answer on record is not signed by your approver for this plan, so it does not count; wait for a signed answer'
        : 'submit a plan with submit_plan and wait for its approval';
  return { allow: false, reason: `blocked: plan status is ${status} (${hint})` };
}

/** The plan status of the member, from all requests of the team: its current plan, and whether its answer is signed. */
export function memberPlanStatus(anchor: GateAnchor, requests: readonly ProtocolRequest[]): PlanStatus {
  return planStatus(anchor.planRequired, currentPlan(requests, anchor.member, anchor.run), (q) => answerTrusted(anchor.trust, anchor.approver, q));
}

/** Why the answer on the member's current plan does not count (for the pane), or null. */
export function untrustedReason(anchor: GateAnchor, requests: readonly ProtocolRequest[]): string | null {
  const q = currentPlan(requests, anchor.member, anchor.run);
  return q && q.response ? whyUntrusted(anchor.trust, anchor.approver, q) : null;
}

/** Whether a member of this kind, with this allowlist, may use a tool (leadOnly marks the lead's tools). */
export function toolPermitted(tool: { name: string; leadOnly: boolean }, member: Pick<Member, 'kind' | 'tools'>): GateDecision {
  if (tool.leadOnly && member.kind !== 'lead') return { allow: false, reason: `${tool.name} is a lead-only tool; a teammate cannot use it (ask the lead with send_message)` };
  if (member.tools !== null && !member.tools.includes(tool.name)) return { allow: false, reason: `${tool.name} is not in this member's tools allowlist (${member.tools.join(', ') || 'empty'})` };
  return { allow: true };
}
