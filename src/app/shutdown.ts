/**
 * The shutdown handshake with one member, as the multiplexer runs it: send `shutdown_request`, wait
 * for `shutdown_response`, then wait for the process to exit (a process that does not exit by itself
 * once it approved, like Claude Code, is sent SIGTERM at once); with no answer (or no exit) within the
 * timeout, SIGTERM, then SIGKILL. A refusal stops the handshake and reports its reason. A member that
 * does not speak the protocol (a plain command: a shell, vim, top) is hung up on instead, as closing
 * its terminal would: SIGHUP at once, then SIGTERM and SIGKILL only if it outlives the grace period.
 * Each step is reported through `onStep` so the pane title and sidebar can show it. Every wait is
 * measured on the given clock, so a test can drive the escalation without sleeping.
 */
import { sleep, systemClock, type Clock } from '../host/clock.js';
import type { ProtocolRequest } from '../protocol/types.js';
import type { TeamStore } from '../store/team.js';
import { waitOnFolder } from '../store/watch.js';

/** What the handshake needs from the pane it is closing. */
export interface ShutdownTarget {
  name: string;
  /** True if it answers a shutdown request; false: it is hung up on at once. */
  speaksProtocol: boolean;
  /** True once the process has exited. */
  exited(): boolean;
  /** Resolve when the process exits (immediately if it already has). */
  waitExit(timeoutMs: number): Promise<boolean>;
  kill(signal: NodeJS.Signals): void;
  /** The process does not exit by itself after approving (Claude Code): teamux ends it at once. */
  readonly endsOnApproval?: boolean;
  /** Set once teamux began ending the process after it approved its shutdown: its exit is no failure. */
  endedByShutdown?: boolean;
}

/** How a handshake ended. */
export type ShutdownOutcome =
  | { kind: 'exited'; how: 'approved' | 'hung_up' | 'terminated' | 'killed' | 'already' }
  | { kind: 'refused'; reason: string };

/** Wait until request `id` is no longer pending, or the deadline (on `clock`), or `alsoStop()`; null if unanswered. */
export async function waitForAnswer(store: TeamStore, id: string, timeoutMs: number, alsoStop: () => boolean, clock: Clock = systemClock): Promise<ProtocolRequest | null> {
  // The requests folder announces the answer; a process exiting does not, so look every 250 ms too.
  const answered = async (): Promise<ProtocolRequest | null | undefined> => {
    const r = await store.requests.get(id);
    if (r.ok && r.value.status !== 'pending') return r.value;
    return alsoStop() ? null : undefined;
  };
  // The deadline is the clock's: when it passes, the folder wait is aborted.
  const deadline = new AbortController();
  const settled = new AbortController();
  void sleep(clock, timeoutMs, settled.signal).then((early) => early || deadline.abort());
  try {
    // The folder wait's own timeout is only a backstop (a minute past the deadline, should the clock be a fake that stops).
    return (await waitOnFolder(store.paths.requests, timeoutMs + 60_000, answered, { everyMs: 250, signal: deadline.signal })) ?? null;
  } finally {
    settled.abort();
  }
}

/** Run the handshake from `from` (the operator, for the keys) to the target member. */
export async function shutdownHandshake(store: TeamStore, from: string, target: ShutdownTarget, timeoutMs: number, onStep: (text: string) => void, clock: Clock = systemClock): Promise<ShutdownOutcome> {
  if (target.exited()) return { kind: 'exited', how: 'already' };
  if (!target.speaksProtocol) return hangUp(target, onStep);
  const opened = await store.openRequest('shutdown', from, target.name, 'the operator asked you to shut down');
  if (!opened.ok) {
    onStep(`cannot send shutdown_request: ${opened.message}; terminating`);
    return terminate(target, onStep);
  }
  await store.updateMember(target.name, { status: 'stopping' });
  onStep('shutdown requested; waiting for shutdown_response');
  const answer = await waitForAnswer(store, opened.value.id, timeoutMs, () => target.exited(), clock);
  if (target.exited()) return { kind: 'exited', how: 'approved' };
  if (answer?.status === 'rejected') {
    const reason = answer.response?.text || 'no reason given';
    onStep(`refused shutdown: ${reason}`);
    await store.updateMember(target.name, { status: 'working' });
    return { kind: 'refused', reason };
  }
  if (answer?.status === 'approved' && target.endsOnApproval) {
    onStep('approved; ending the process');
    const ended = await endApproved(target, onStep, timeoutMs);
    if (!ended) return (await target.waitExit(timeoutMs)) ? { kind: 'exited', how: 'approved' } : terminate(target, onStep);
    return ended.kind === 'exited' && ended.how === 'terminated' ? { kind: 'exited', how: 'approved' } : ended;
  }
  if (answer?.status === 'approved') {
    onStep('approved; waiting for exit');
    if (await target.waitExit(timeoutMs)) return { kind: 'exited', how: 'approved' };
    onStep(`did not exit within ${Math.round(timeoutMs / 1000)}s of approving`);
  } else {
    onStep(`no shutdown_response within ${Math.round(timeoutMs / 1000)}s`);
  }
  return terminate(target, onStep);
}

/**
 * End a member that approved its shutdown and does not exit by itself: SIGTERM, then SIGKILL, once.
 * Null when its ending had already begun (the handshake and the folder watch both see the approval).
 */
export async function endApproved(target: ShutdownTarget, onStep: (text: string) => void, graceMs?: number): Promise<ShutdownOutcome | null> {
  if (target.endedByShutdown) return null;
  target.endedByShutdown = true;
  return terminate(target, onStep, graceMs);
}

/** SIGTERM, a grace period, then SIGKILL. */
export async function terminate(target: ShutdownTarget, onStep: (text: string) => void, graceMs = 3_000): Promise<ShutdownOutcome> {
  if (target.exited()) return { kind: 'exited', how: 'already' };
  onStep('sending SIGTERM');
  target.kill('SIGTERM');
  if (await target.waitExit(graceMs)) return { kind: 'exited', how: 'terminated' };
  onStep('sending SIGKILL');
  target.kill('SIGKILL');
  await target.waitExit(graceMs);
  return { kind: 'exited', how: 'killed' };
}

/** What a closed terminal does: SIGHUP, then (if the process outlives the grace period) SIGTERM and SIGKILL. */
export async function hangUp(target: ShutdownTarget, onStep: (text: string) => void, graceMs = 3_000): Promise<ShutdownOutcome> {
  if (target.exited()) return { kind: 'exited', how: 'already' };
  onStep('not a protocol member; sending SIGHUP');
  target.kill('SIGHUP');
  if (await target.waitExit(graceMs)) return { kind: 'exited', how: 'hung_up' };
  onStep(`still running ${Math.round(graceMs / 1000)}s after SIGHUP`);
  return terminate(target, onStep, graceMs);
}
