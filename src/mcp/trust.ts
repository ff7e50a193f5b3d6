/**
 * What `teamux mcp --as NAME` fixes at its start about trust, from the environment its MCP client
 * started it with (Claude Code passes its own environment on to stdio servers, so a Claude Code
 * member's server sees what the teamux screen gave that member): the member's plan gate anchor (the
 * screen's trust key and run), and for the lead, its signing key. A lead whose screen gave it a
 * one-time token (plan_approver: lead; fetched from TEAMUX_ENROL_SOCKET, which hands it only to a
 * process in the lead's pane) enrols a fresh in-memory key at once, exactly as teamux's agent lead
 * does; the variables are dropped from this process's environment before anything else runs. approve_plan / reject_plan then sign with that key, or are refused saying why not.
 */
import { gateAnchorAtStart, type GateAnchor } from '../protocol/plan-gate.js';
import type { Member, TeamConfig } from '../protocol/types.js';
import type { TeamStore } from '../store/team.js';
import { enrolKey, enrolTokenOf, type Enrolled } from '../store/trust.js';

/** How long the lead's server waits for the screen's certificate. */
export const MCP_ENROL_TIMEOUT_MS = 30_000;

/** The server's trust, fixed at start. */
export interface McpTrust {
  /** The member's plan gate as its start-up environment fixes it (null: nothing is checked). */
  anchor: GateAnchor | null;
  /** The lead's enrolment, settling once the screen has answered; null for a member that signs nothing. */
  signing: Promise<Enrolled> | null;
}

/** Nothing fixed: no anchor, no signer (tests and clients that do not come from a teamux screen). */
export const NO_TRUST: McpTrust = { anchor: null, signing: null };

/**
 * Fix the trust of a server for `me` from `env` (the process environment at start; the enrolment
 * token is deleted from it) and start the lead's enrolment, logging its outcome to teamux.log.
 */
export function mcpTrustAtStart(store: TeamStore, env: NodeJS.ProcessEnv, me: Member, team: TeamConfig): McpTrust {
  const lead = team.members.find((m) => m.kind === 'lead')?.name ?? '';
  const anchor = gateAnchorAtStart(env, me, team, lead);
  const given = { ...env };
  delete env.TEAMUX_ENROL_TOKEN;
  delete env.TEAMUX_ENROL_SOCKET;
  if (me.kind !== 'lead') return { anchor, signing: null };
  if (!given.TEAMUX_ENROL_TOKEN && !given.TEAMUX_ENROL_SOCKET) {
    const why = 'this lead was given no enrolment token (plan_approver is not lead, or this server was not started from a lead the teamux screen launched)';
    return { anchor, signing: Promise.resolve({ why }) };
  }
  const signing = enrolTokenOf(given, me.name).then((token) => (!token || 'why' in token ? token ?? { why: 'no token' } : enrolKey(store.trust, anchor.trust, me.name, token.token, MCP_ENROL_TIMEOUT_MS))).then((r) => {
    if ('signer' in r) store.log.info(`mcp ${me.name}: signing key enrolled for run ${anchor.run}`);
    else store.log.error(`mcp ${me.name}: plan approvals disabled: ${r.why}`);
    return r;
  });
  return { anchor, signing };
}
