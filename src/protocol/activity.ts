/**
 * What a member is doing, in one word or phrase, from everything that says so: its process (when the
 * caller runs it), a shutdown handshake in progress, its pending plan request, and its record in
 * team.json. One pure function, so the pane titles, the sidebar roster and `teamux ls` never disagree
 * (alice is "waiting for approval" everywhere, not "idle" in one place).
 */
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
  /** `agent` members report working/idle; a plain `command` is just running. */
  runtime: 'agent' | 'command';
  /** The liveness-checked status from team.json. */
  status: MemberStatus;
  exitCode: number | null;
  /** The pending requests of the team (any order). */
  pending: readonly ProtocolRequest[];
  /** The process as the caller sees it, when it runs it (the screen); absent for `teamux ls`. */
  process?: { life: 'starting' | 'running' | 'exited'; exitCode: number | null; signal: string | null };
  /** A shutdown handshake with the member is under way. */
  stopping?: boolean;
}

/** How the member's process ended, as words. */
function ended(exitCode: number | null, signal: string | null): Activity {
  if (signal) return { kind: 'failed', label: `killed by ${signal}` };
  if (exitCode === null) return { kind: 'exited', label: 'exited' };
  return { kind: exitCode === 0 ? 'exited' : 'failed', label: `exited ${exitCode}` };
}

/** The member's activity: exited, starting, stopping, waiting for approval, working, running or idle. */
export function memberActivity(m: ActivityInput): Activity {
  if (m.process?.life === 'exited') return ended(m.process.exitCode, m.process.signal);
  if (!m.process && m.status === 'exited') return ended(m.exitCode, null);
  if (m.process?.life === 'starting') return { kind: 'starting', label: 'starting' };
  if (m.stopping || m.status === 'stopping') return { kind: 'stopping', label: 'stopping' };
  if (m.pending.some((r) => r.type === 'plan_approval' && r.status === 'pending' && r.from === m.name)) return { kind: 'waiting', label: 'waiting for approval' };
  if (m.status === 'idle') return { kind: 'idle', label: 'idle' };
  if (m.runtime === 'command') return { kind: 'running', label: 'running' };
  return { kind: 'working', label: 'working' };
}
