/**
 * The longer pieces of work the runner's effects start on panes: starting a process and recording
 * its pid, recording an exit, the shutdown handshake with one pane, and a forced quit's SIGTERM /
 * SIGKILL for all. Each reports back through `dispatch` as events for the reducer. Owns no data.
 */
import type { PaneHost } from '../host/types.js';
import type { Clock } from '../host/clock.js';
import type { MuxEvent } from '../mux/events.js';
import { OPERATOR } from '../protocol/operator.js';
import type { TeamStore } from '../store/team.js';
import type { Pane } from './pane.js';
import { shutdownHandshake, terminate } from './shutdown.js';

type Dispatch = (event: MuxEvent) => void;

/** Start or restart a pane's process, say so (pane-started), and record its pid in the team folder. */
export async function startPane(store: TeamStore, host: PaneHost, pane: Pane, dispatch: Dispatch): Promise<void> {
  try {
    await pane.start(host);
  } catch (err) {
    store.log.error(`starting ${pane.name} failed`, err);
    dispatch({ kind: 'pane-started', pane: pane.name, error: (err as Error).message });
    return;
  }
  dispatch({ kind: 'pane-started', pane: pane.name, error: null });
  if (pane.pid) await store.memberStarted(pane.name, pane.pid);
  store.log.info(`started ${pane.name} (pid ${pane.pid ?? '?'})${pane.startNote ? `: ${pane.startNote}` : ''}`);
}

/** Record a member's exit in the team folder (a failure to record it is not the person's problem). */
export async function recordExit(store: TeamStore, name: string, code: number | null, text: string): Promise<void> {
  store.log.info(`${name} ${text}`);
  await store.updateMember(name, { status: 'exited', exitCode: code }).catch(() => undefined);
}

/** The shutdown handshake with one pane, as the operator; its steps and its end come back as events. */
export async function handshake(store: TeamStore, id: string, pane: Pane | undefined, timeoutMs: number, clock: Clock, dispatch: Dispatch): Promise<void> {
  if (!pane) return dispatch({ kind: 'shutdown-done', pane: id, refused: null });
  let refused: string | null = null;
  try {
    const outcome = await shutdownHandshake(store, OPERATOR, pane, timeoutMs, (text) => dispatch({ kind: 'shutdown-step', pane: id, text }), clock);
    if (outcome.kind === 'refused') refused = outcome.reason;
  } catch (err) {
    store.log.error(`shutting down ${id} failed`, err);
    refused = `shutdown failed: ${(err as Error).message}`;
  }
  dispatch({ kind: 'shutdown-done', pane: id, refused });
}

/** A forced quit: SIGTERM every pane, SIGKILL what outlives 1.5 s, then `terminated`. */
export async function terminateAll(panes: readonly Pane[], dispatch: Dispatch): Promise<void> {
  await Promise.all(panes.map((p) => terminate(p, (text) => dispatch({ kind: 'pane-note', pane: p.name, text }), 1_500)));
  dispatch({ kind: 'terminated' });
}
