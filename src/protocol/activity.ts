/**
 * What a member is doing on the screen: memberState (members.ts, the words `teamux ls` uses too)
 * refined with what only the screen knows: its process (starting, exit code or signal), a shutdown
 * handshake in progress, whether it is an agent (working) or a plain command (running), and for a
 * Claude Code member what its own hooks last reported (working, idle, at a permission prompt). The pane
 * titles and the sidebar roster both call memberActivity, so alice is "waiting for approval" in both,
 * and in `teamux ls`, never "idle" in one place.
 */
import { memberState } from './members.js';
import type { MemberStatus, ProtocolRequest } from './types.js';

/** The kinds of activity, each with its own colour on screen. */
export type ActivityKind = 'starting' | 'working' | 'running' | 'idle' | 'waiting' | 'stopping' | 'exited' | 'failed';

/** A member's activity: its kind and the words shown for it. */
export interface Activity {
  kind: ActivityKind;
  label: string;
}

/** What is known about a member. */
export interface ActivityInput {
  name: string;
  /** `agent`, `claude` and `codex` members report working/idle; a plain `command` is just running. */
  runtime: 'agent' | 'claude' | 'codex' | 'command';
  /** The liveness-checked status from team.json. */
  status: MemberStatus;
  exitCode: number | null;
  /** The pending requests of the team (any order). */
  pending: readonly ProtocolRequest[];
  /** The process as the caller sees it, when it runs it (the screen); absent for `teamux ls`. */
  process?: { life: 'starting' | 'running' | 'exited'; exitCode: number | null; signal: string | null; endedByShutdown?: boolean };
  /** A shutdown handshake with the member is under way. */
  stopping?: boolean;
  /** A Claude Code member's state as its hooks last recorded it (src/store/claude.ts). */
  hooks?: 'starting' | 'working' | 'idle' | 'waiting for permission' | 'ended';
}

/** The words for a process teamux ended after the member approved its shutdown (SIGTERM: exit 143). */
export const ENDED_BY_SHUTDOWN = 'ended (shutdown)';

/** How the member's process ended, as words. */
function ended(exitCode: number | null, signal: string | null): Activity {
  if (signal) return { kind: 'failed', label: `killed by ${signal}` };
  if (exitCode === null) return { kind: 'exited', label: 'exited' };
  return { kind: exitCode === 0 ? 'exited' : 'failed', label: `exited ${exitCode}` };
}

/** The member's activity: exited, starting, stopping, waiting for approval, working, running or idle. */
export function memberActivity(m: ActivityInput): Activity {
  if (m.process?.life === 'exited') return m.process.endedByShutdown ? { kind: 'exited', label: ENDED_BY_SHUTDOWN } : ended(m.process.exitCode, m.process.signal);
  if (!m.process && m.status === 'exited') return ended(m.exitCode, null);
  if (m.process?.life === 'starting') return { kind: 'starting', label: 'starting' };
  if (m.stopping) return { kind: 'stopping', label: 'stopping' };
  // The process is running, so a record that says exited (its pid not recorded yet) means working.
  const recorded = memberState(m.name, m.status === 'exited' ? 'working' : m.status, m.pending);
  // A Claude Code member's own hooks know better than the roster whether it works or waits at a prompt.
  const live = m.hooks === 'working' || m.hooks === 'idle' || m.hooks === 'waiting for permission' ? m.hooks : null;
  const state = (recorded === 'working' || recorded === 'idle') && live ? live : recorded;
  switch (state) {
    case 'waiting for approval': case 'waiting for permission': return { kind: 'waiting', label: state };
    case 'stopping': case 'idle': return { kind: state, label: state };
    default: return m.runtime === 'command' ? { kind: 'running', label: 'running' } : { kind: 'working', label: 'working' };
  }
}
