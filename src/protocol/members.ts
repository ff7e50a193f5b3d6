/**
 * What a member is doing, in the words every view uses: the sidebar roster, the pane titles and
 * `teamux ls` / `teamux team show` all call memberState, so they cannot disagree. It combines the
 * liveness-checked status from the roster with the requests: a member whose plan waits for an
 * answer is "waiting for approval" (a permission request: "waiting for permission"), whatever its
 * last recorded status says.
 */
import type { MemberStatus, ProtocolRequest } from './types.js';

/** A member's state as the screen and the CLI show it. */
export type MemberState = MemberStatus | 'waiting for approval' | 'waiting for permission';

/** The state of member `name` with reported status `reported`, given the team's requests. */
export function memberState(name: string, reported: MemberStatus, requests: readonly ProtocolRequest[]): MemberState {
  if (reported === 'exited' || reported === 'stopping') return reported;
  if (requests.some((r) => r.type === 'plan_approval' && r.status === 'pending' && r.from === name)) return 'waiting for approval';
  // A Claude Code member's permission request (src/agents/claude/hook-run.ts) waits for the operator.
  if (requests.some((r) => r.type === 'permission' && r.status === 'pending' && r.from === name)) return 'waiting for permission';
  return reported;
}
