/**
 * Small pure steps the reducer and the actions share: saying something in the status line, moving
 * focus, changing one pane, removing a pane, and the shutdown batches that a quit is made of. Each
 * takes a state and returns the next state with the effects it needs. Owns no data.
 */
import type { Effect } from './events.js';
import { paneIndex, type MuxState, type PaneState, type ShutdownBatch } from './state.js';

/** A state and the effects that go with it. */
export type Step = readonly [MuxState, readonly Effect[]];

/** Nothing to do. */
export function same(s: MuxState): Step {
  return [s, []];
}

/** Run steps one after another, collecting their effects. */
export function chain(s: MuxState, ...steps: Array<(s: MuxState) => Step>): Step {
  const fx: Effect[] = [];
  for (const step of steps) {
    const [next, more] = step(s);
    s = next;
    fx.push(...more);
  }
  return [s, fx];
}

/** Show a transient message in the status line (it expires after cfg.messageMs) and log it. */
export function say(s: MuxState, text: string): Step {
  const serial = s.serial + 1;
  return [
    { ...s, message: { text, serial }, serial },
    [{ kind: 'log', text }, { kind: 'timer', name: 'status', ms: s.cfg.messageMs, event: { kind: 'status-expired', serial } }],
  ];
}

/** Change the pane called `id` (nothing if there is none). */
export function patchPane(s: MuxState, id: string, patch: Partial<PaneState>): MuxState {
  const i = paneIndex(s, id);
  if (i < 0) return s;
  const panes = s.panes.slice();
  panes[i] = { ...panes[i]!, ...patch };
  return { ...s, panes };
}

/** Focus the pane at `index` in layout order: focus reports to both panes, the zoom follows. */
export function focus(s: MuxState, index: number): Step {
  if (index < 0 || index >= s.panes.length || index === s.focused) return same(s);
  const fx: Effect[] = [];
  const before = s.panes[s.focused];
  if (before) fx.push({ kind: 'report-focus', pane: before.id, focused: false });
  fx.push({ kind: 'report-focus', pane: s.panes[index]!.id, focused: true });
  const zoomed = s.zoomed !== null ? index : null;
  if (zoomed !== null) fx.push({ kind: 'relayout' });
  fx.push({ kind: 'repaint' });
  return [{ ...s, focused: index, zoomed }, fx];
}

/** Remove a pane from the screen and release it; focus stays in range and the zoom ends. */
export function removePane(s: MuxState, id: string): Step {
  const i = paneIndex(s, id);
  if (i < 0) return same(s);
  const panes = s.panes.filter((p) => p.id !== id);
  const focused = s.focused >= panes.length ? Math.max(0, panes.length - 1) : s.focused;
  return [{ ...s, panes, focused, zoomed: null }, [{ kind: 'dispose', pane: id }, { kind: 'relayout' }]];
}

/** Finish once (later requests do nothing). */
export function finish(s: MuxState, code: number, kill: boolean, farewell: string | null = null): Step {
  if (s.finished) return same(s);
  return [{ ...s, finished: true }, [{ kind: 'finish', code, kill, farewell }]];
}

/** Shut panes down by handshake, in parallel; when the last is done, `batchDone` decides what follows. */
export function startShutdown(s: MuxState, purpose: ShutdownBatch['purpose'], names: readonly string[]): Step {
  if (names.length === 0) {
    // An empty shutdown counts as done; C-a s / C-a S say so, a quit keeps its own words on show.
    const [said, fx] = purpose === 'manual' ? say(s, 'no teammate to shut down') : [s, []];
    const [next, more] = batchDone(said, { purpose, names, waiting: [], refused: false });
    return [next, [...fx, ...more]];
  }
  const batch: ShutdownBatch = { purpose, names, waiting: names, refused: false };
  return [{ ...s, shutdowns: [...s.shutdowns, batch] }, [{ kind: 'shutdown', panes: names }]];
}

/**
 * While a quit waits for handshakes, what the status line shows when no message is on it: who it
 * waits for, and how to force it (null when no quit is under way).
 */
export function quittingNote(s: MuxState): string | null {
  if (s.quitting !== 'graceful') return null;
  const waiting = s.shutdowns.flatMap((b) => b.waiting);
  const who = waiting.length > 0 ? `waiting for ${waiting.join(', ')} to shut down` : 'shutting down';
  return `quitting: ${who} (press ${s.cfg.keys.prefix} q again to force)`;
}

/** One pane's handshake ended: update its batch and run what follows the batch when it is the last. */
export function shutdownDone(s: MuxState, pane: string, refused: boolean): Step {
  const at = s.shutdowns.findIndex((b) => b.waiting.includes(pane));
  if (at < 0) return same(s);
  const b = s.shutdowns[at]!;
  const batch = { ...b, waiting: b.waiting.filter((n) => n !== pane), refused: b.refused || refused };
  const shutdowns = s.shutdowns.slice();
  if (batch.waiting.length > 0) {
    shutdowns[at] = batch;
    return same({ ...s, shutdowns });
  }
  shutdowns.splice(at, 1);
  return batchDone({ ...s, shutdowns }, batch);
}

function batchDone(s: MuxState, b: ShutdownBatch): Step {
  const prefix = s.cfg.keys.prefix;
  switch (b.purpose) {
    case 'manual':
      if (s.quitting !== 'no' || b.names.length === 0) return same(s);
      return say(s, b.refused ? 'some teammates refused to shut down' : `shut down ${b.names.join(', ')}`);
    case 'quit-teammates': {
      if (s.quitting !== 'graceful') return same(s);
      if (b.refused) return say(s, `a teammate refused; press ${prefix} q again to force the quit`);
      const leads = s.panes.filter((p) => p.isLead && p.life !== 'exited').map((p) => p.id);
      return startShutdown(s, 'quit-leads', leads);
    }
    case 'quit-leads':
      return s.quitting === 'graceful' ? finish(s, 0, true) : same(s);
  }
}
