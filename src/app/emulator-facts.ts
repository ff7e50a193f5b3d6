/**
 * The emulator facts the reducer routes input by (TermFacts in mux/events.ts), read from the panes'
 * emulators for one input event. They are gathered on every key, before its bytes go to the pane,
 * and each read of an emulator is a trip into xterm's code, which is cold after the idle time between
 * two keys (tens of microseconds, on the echo's path). A mouse event may land on any pane, so every
 * pane's facts are read at once; a key or a paste reaches the focused pane only, and its reducer
 * reads them in scroll mode only (the page size): they are then read when the reducer asks, during
 * the same dispatch, from the pane's emulator as it is then. Owns no data.
 */
import type { InputToken } from '../keys/input.js';
import type { TermFacts } from '../mux/events.js';
import type { Pane } from './pane.js';

/** What the reducer needs to know of a pane's emulator to route input to it, read now. */
export function factsOf(p: Pane): TermFacts {
  const m = p.term.modes;
  return { rows: p.term.rows, applicationCursorKeys: m.applicationCursorKeys, bracketedPaste: m.bracketedPaste, mouse: m.mouseTracking !== 'none' };
}

/** A pane's facts, read from its emulator when the reducer reads them. */
class FactsOnRead implements TermFacts {
  constructor(private readonly pane: Pane) {}

  get rows(): number {
    return this.pane.term.rows;
  }

  get applicationCursorKeys(): boolean {
    return this.pane.term.applicationCursorKeys;
  }

  get bracketedPaste(): boolean {
    return this.pane.term.modes.bracketedPaste;
  }

  get mouse(): boolean {
    return this.pane.term.modes.mouseTracking !== 'none';
  }
}

/** The facts `token` is routed by, by pane id: every pane's for a mouse event, the focused pane's (read on use) otherwise. */
export function termFactsFor(token: InputToken, live: ReadonlyMap<string, Pane>, focused: string | undefined): Record<string, TermFacts> {
  const out: Record<string, TermFacts> = {};
  if (token.kind === 'mouse') {
    for (const [id, p] of live) out[id] = factsOf(p);
    return out;
  }
  const p = focused === undefined ? undefined : live.get(focused);
  if (p) out[focused!] = new FactsOnRead(p);
  return out;
}
