/**
 * A member's plan gate as its process sees it: what it fixed at its start (a GateAnchor: whether it
 * needs a plan, who approves, the run and the trust key from its environment), and the status of its
 * current plan, counting an answer only when its signature checks out (trust.ts). Pure functions,
 * shared by the agent's tool gate, `teamux plan status` and the plan_status op.
 */
import { currentPlan, planStatus, type PlanStatus } from './requests.js';
import { answerTrusted, OPERATOR, parsePublicKey, whyUntrusted, type TrustAnchor } from './trust.js';
import type { Member, ProtocolRequest, TeamConfig } from './types.js';

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

/** The plan status of the member, from all requests of the team: its current plan, and whether its answer is signed. */
export function memberPlanStatus(anchor: GateAnchor, requests: readonly ProtocolRequest[]): PlanStatus {
  return planStatus(anchor.planRequired, currentPlan(requests, anchor.member, anchor.run), (q) => answerTrusted(anchor.trust, anchor.approver, q));
}

/** Why the answer on the member's current plan does not count (for the pane), or null. */
export function untrustedReason(anchor: GateAnchor, requests: readonly ProtocolRequest[]): string | null {
  const q = currentPlan(requests, anchor.member, anchor.run);
  return q && q.response ? whyUntrusted(anchor.trust, anchor.approver, q) : null;
}
