/**
 * Routing the outer terminal's input: in attach mode every key goes to the focused pane's pty
 * (arrows re-encoded for the pane's cursor-key mode), the prefix key switches to the key table,
 * pastes are wrapped when the application asked for bracketed paste, and mouse events focus panes,
 * scroll them back, or reach the application when it asked for mouse reports.
 */
import type { InputToken, MouseEvent } from '../keys/input.js';
import { routeKey } from '../keys/keymap.js';
import type { Multiplexer } from './multiplexer.js';
import { promptKey } from './prompt.js';
import { runAction } from './actions.js';

/** Feed decoded input text. */
export function handleInput(mux: Multiplexer, text: string): void {
  for (const tok of mux.tokenizer.feed(text)) handleToken(mux, tok);
}

/** After a quiet time, treat pending bytes (a lone ESC) as keys. */
export function flushInput(mux: Multiplexer): void {
  mux.escTimer = null;
  for (const tok of mux.tokenizer.flush()) handleToken(mux, tok);
}

/** Re-encode cursor keys for the pane's DECCKM mode (tmux does the same translation). */
export function encodeForPane(raw: string, applicationCursor: boolean): string {
  const m = /^\x1b[\[O]([ABCDHF])$/.exec(raw);
  if (!m) return raw;
  return applicationCursor ? `\x1bO${m[1]}` : `\x1b[${m[1]}`;
}

function handleToken(mux: Multiplexer, tok: InputToken): void {
  if (mux.helpOpen) {
    if (tok.kind === 'mouse' && tok.release) return;
    mux.helpOpen = false;
    mux.invalidate();
    return;
  }
  if (mux.reader && !mux.prompt) {
    if (tok.kind === 'mouse') {
      if ((tok.code & 64) !== 0) readerScroll(mux, (tok.code & 1) === 0 ? -3 : 3);
      return;
    }
    // The prefix still works, so C-a a / C-a r answer the request being read.
    if (mux.mode === 'attach' && tok.kind === 'key' && tok.raw !== mux.opts.keys.prefixBytes) return readerKey(mux, tok.name);
  }
  if (mux.prompt) {
    if (tok.kind === 'mouse') return;
    const r = tok.kind === 'paste' ? promptKey(mux.prompt, tok.text, null) : promptKey(mux.prompt, tok.raw, tok.name);
    if (r.kind === 'edit') mux.prompt = r.state;
    else {
      const submit = mux.promptSubmit;
      const label = mux.prompt.label.replace(/[:—].*$/, '').trim();
      mux.prompt = null;
      mux.promptSubmit = null;
      if (r.kind === 'submit' && submit) mux.guarded(label, () => submit(r.text));
      else if (r.kind !== 'submit') mux.say('cancelled');
    }
    mux.invalidate();
    return;
  }
  if (tok.kind === 'mouse') return handleMouse(mux, tok);
  const pane = mux.panes[mux.focused];
  if (tok.kind === 'paste') {
    if (!pane) return;
    pane.term.scrollToBottom();
    pane.scrollMode = false;
    pane.lastTypedAt = Date.now();
    pane.write(pane.term.modes.bracketedPaste ? `\x1b[200~${tok.text}\x1b[201~` : tok.text);
    return;
  }
  if (mux.mode === 'attach' && pane?.scrollMode && tok.raw !== mux.opts.keys.prefixBytes) return scrollKey(mux, tok.name);
  const route = routeKey(mux.mode, tok.raw, tok.name, mux.opts.keys);
  mux.mode = route.mode;
  switch (route.kind) {
    case 'await':
      mux.requestFrame();
      return;
    case 'passthrough':
      if (!pane) return;
      if (pane.exited()) {
        const restart = [...mux.opts.keys.bindings].find(([, a]) => a === 'restart')?.[0];
        mux.say(`${pane.name}: ${pane.exitText()}; keys go nowhere${restart ? ` (${mux.opts.keys.prefix} ${restart} restarts it)` : ''}`);
        return;
      }
      if (pane.term.isScrolledBack) {
        pane.term.scrollToBottom();
        pane.markDirty();
      }
      pane.lastTypedAt = Date.now();
      pane.write(encodeForPane(tok.raw, pane.term.modes.applicationCursorKeys));
      return;
    case 'unbound':
      mux.say(`${mux.opts.keys.prefix} ${route.key} is not bound (${mux.opts.keys.prefix} ? lists the keys)`);
      return;
    case 'action':
      mux.requestFrame();
      mux.guarded(route.action, () => runAction(mux, route.action));
  }
}

/** Keys while the request reader is open: scroll, or q / Esc to close. */
function readerKey(mux: Multiplexer, name: string | null): void {
  const page = mux.readerPage;
  const moves: Record<string, number> = { up: -1, k: -1, down: 1, j: 1, enter: 1, pageup: -page, 'C-b': -page, b: -page, pagedown: page, 'C-f': page, space: page };
  if (name && name in moves) return readerScroll(mux, moves[name]!);
  if (name === 'g' || name === 'home') return readerScroll(mux, -1_000_000);
  if (name === 'G' || name === 'end') return readerScroll(mux, 1_000_000);
  if (name === 'q' || name === 'escape') {
    mux.reader = null;
    mux.invalidate();
  }
}

function readerScroll(mux: Multiplexer, by: number): void {
  if (!mux.reader) return;
  mux.reader.top = Math.max(0, mux.reader.top + by);
  mux.invalidate();
}

/** Keys while a pane is in scrollback mode. */
function scrollKey(mux: Multiplexer, name: string | null): void {
  const pane = mux.panes[mux.focused]!;
  const page = Math.max(1, pane.term.rows - 1);
  const moves: Record<string, number> = { up: -1, k: -1, down: 1, j: 1, pageup: -page, 'C-b': -page, pagedown: page, 'C-f': page, space: page };
  if (name && name in moves) pane.term.scrollBy(moves[name]!);
  else if (name === 'g' || name === 'home') pane.term.scrollBy(-1_000_000);
  else if (name === 'G' || name === 'end') pane.term.scrollToBottom();
  else if (name === 'q' || name === 'escape' || name === 'enter') {
    pane.term.scrollToBottom();
    pane.scrollMode = false;
  }
  pane.markDirty();
}

/** Mouse: focus on click, wheel scrolls back unless the application wants the mouse. */
function handleMouse(mux: Multiplexer, ev: MouseEvent): void {
  const g = mux.geometry;
  const index = g.panes.findIndex((r) => ev.x >= r.left && ev.x < r.left + r.width && ev.y >= r.top && ev.y < r.top + r.height);
  if (index < 0) return;
  const rect = g.panes[index]!;
  const pane = mux.panes[index]!;
  const wheel = (ev.code & 64) !== 0;
  const motion = (ev.code & 32) !== 0;
  const button = ev.code & 3;
  if (!wheel && !motion && !ev.release && index !== mux.focused) {
    const before = mux.panes[mux.focused];
    before?.reportFocus(false);
    mux.focused = index;
    pane.reportFocus(true);
    mux.invalidate();
  }
  const row = ev.y - rect.top - 1;
  const col = ev.x - rect.left;
  if (row >= 0 && pane.term.modes.mouseTracking !== 'none' && !pane.scrollMode) {
    pane.reportMouse({
      col, row,
      button: wheel ? 'wheel' : button === 3 ? 'none' : (['left', 'middle', 'right'] as const)[button]!,
      action: wheel ? ((ev.code & 1) === 0 ? 'up' : 'down') : motion ? 'move' : ev.release ? 'release' : 'press',
      shift: (ev.code & 4) !== 0, alt: (ev.code & 8) !== 0, ctrl: (ev.code & 16) !== 0,
    });
    return;
  }
  if (wheel) {
    pane.term.scrollBy((ev.code & 1) === 0 ? -3 : 3);
    pane.scrollMode = pane.term.isScrolledBack;
    pane.markDirty();
  }
}
