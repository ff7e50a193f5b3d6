/**
 * Routing the outer terminal's input, as pure steps: in attach mode every key goes to the focused
 * pane (arrows re-encoded for the pane's cursor-key mode), the prefix key switches to the key table,
 * pastes are wrapped when the application asked for bracketed paste, and mouse events focus panes,
 * scroll them back, or reach the application when it asked for mouse reports. The overlays (help,
 * reader, prompt) take keys first. Owns no data.
 */
import type { InputToken, MouseEvent } from '../keys/input.js';
import { routeKey } from '../keys/keymap.js';
import { runAction } from './actions.js';
import { confirmedShutdown, submitPrompt } from './commands.js';
import type { Effect, TermFacts } from './events.js';
import { promptKey } from './prompt.js';
import { clampScroll, focusedPane, keyOf, layoutOf, readerSize, type MuxState } from './state.js';
import { patchPane, same, say, type Step } from './transitions.js';

/** Re-encode cursor keys for the pane's DECCKM mode (tmux does the same translation). */
export function encodeForPane(raw: string, applicationCursor: boolean): string {
  const m = /^\x1b[\[O]([ABCDHF])$/.exec(raw);
  if (!m) return raw;
  return applicationCursor ? `\x1bO${m[1]}` : `\x1b[${m[1]}`;
}

const NO_FACTS: TermFacts = { rows: 24, applicationCursorKeys: false, bracketedPaste: false, mouse: false };

/** One input token. */
export function inputStep(s: MuxState, tok: InputToken, terms: Readonly<Record<string, TermFacts>>, readerRows = 0): Step {
  if (s.help || s.panel) {
    if (tok.kind === 'mouse' && tok.release) return same(s);
    return [{ ...s, help: false, panel: null }, [{ kind: 'repaint' }]];
  }
  if (s.reader && !s.prompt) {
    if (tok.kind === 'mouse') return (tok.code & 64) !== 0 ? readerScroll(s, (tok.code & 1) === 0 ? -3 : 3, readerRows) : same(s);
    // The prefix still works, so C-a a / C-a r answer the request being read.
    if (s.mode === 'attach' && tok.kind === 'key' && tok.raw !== s.cfg.keys.prefixBytes) return readerKey(s, tok.name, readerRows);
  }
  if (s.prompt) return promptToken(s, tok);
  if (tok.kind === 'mouse') return mouseStep(s, tok, terms);
  const pane = focusedPane(s);
  if (tok.kind === 'paste') {
    if (!pane) return same(s);
    return [patchPane(s, pane.id, { scrollMode: false }), [{ kind: 'paste', pane: pane.id, text: tok.text }]];
  }
  if (s.mode === 'attach' && pane?.scrollMode && tok.raw !== s.cfg.keys.prefixBytes) return scrollKey(s, pane.id, tok.name, terms[pane.id] ?? NO_FACTS);
  const route = routeKey(s.mode, tok.raw, tok.name, s.cfg.keys);
  // A key that leaves the mode as it was leaves the state as it was: no frame is drawn for it (the
  // echo's frame must not wait behind one).
  const routed = route.mode === s.mode ? s : { ...s, mode: route.mode };
  switch (route.kind) {
    case 'await':
      return same(routed);
    case 'passthrough': {
      if (!pane) return same(routed);
      if (pane.life === 'exited') {
        const key = keyOf(s.cfg.keys, 'restart');
        return say(routed, `${pane.id}: ${pane.exitText}; keys go nowhere${key ? ` (${s.cfg.keys.prefix} ${key} restarts it)` : ''}`);
      }
      return [routed, [{ kind: 'type', pane: pane.id, raw: tok.raw }]];
    }
    case 'unbound':
      return say(routed, `${s.cfg.keys.prefix} ${route.key} is not bound (${s.cfg.keys.prefix} ? lists the keys)`);
    case 'action':
      return runAction(routed, route.action);
  }
}

/**
 * The pane that one printable ASCII key (0x20-0x7e, alone) goes to unchanged, or null when the key
 * must take the whole route (inputStep). For such a key, inputStep passes it through and changes no
 * state exactly when: the screen is not finishing, no overlay or prompt is open, the prefix is not
 * pending and the key is not the prefix, and the focused pane is live and not in scroll mode. The
 * screen then writes it straight to that pane, without tokenizing or reducing it: the echo's path
 * (test/mux/plain-keys.test.ts holds the two to the same answer).
 */
export function plainKeyTarget(s: MuxState, key: string): string | null {
  if (s.finished || s.help || s.panel || s.reader || s.prompt || s.mode !== 'attach' || key === s.cfg.keys.prefixBytes) return null;
  const pane = focusedPane(s);
  return pane && !pane.scrollMode && pane.life !== 'exited' ? pane.id : null;
}

/** Keys while a prompt is open: edit, submit or cancel. */
function promptToken(s: MuxState, tok: InputToken): Step {
  const prompt = s.prompt!;
  if (tok.kind === 'mouse') return same(s);
  // A y/n question takes one key: y goes on, any other key cancels (tmux's confirm-before).
  if (prompt.purpose.kind === 'confirm-shutdown') {
    const [next, fx] = confirmedShutdown({ ...s, prompt: null }, prompt.purpose.panes, tok.kind === 'key' && (tok.raw === 'y' || tok.raw === 'Y'));
    return [next, [...fx, { kind: 'repaint' }]];
  }
  const r = tok.kind === 'paste' ? promptKey(prompt.edit, tok.text, null) : promptKey(prompt.edit, tok.raw, tok.name);
  if (r.kind === 'edit') return [{ ...s, prompt: { ...prompt, edit: r.state } }, [{ kind: 'repaint' }]];
  const closed = { ...s, prompt: null };
  const label = prompt.edit.label.replace(/[:—].*$/, '').trim();
  const [next, fx] = r.kind === 'submit' ? submitPrompt(closed, prompt.purpose, label, r.text) : say(closed, 'cancelled');
  return [next, [...fx, { kind: 'repaint' }]];
}

/** Keys while the request reader is open: scroll, or q / Esc to close. */
function readerKey(s: MuxState, name: string | null, rows: number): Step {
  const page = readerSize(s).page;
  const moves: Record<string, number> = { up: -1, k: -1, down: 1, j: 1, enter: 1, pageup: -page, 'C-b': -page, b: -page, pagedown: page, 'C-f': page, space: page };
  if (name && name in moves) return readerScroll(s, moves[name]!, rows);
  if (name === 'g' || name === 'home') return readerScroll(s, -1_000_000, rows);
  if (name === 'G' || name === 'end') return readerScroll(s, 1_000_000, rows);
  if (name === 'q' || name === 'escape') return [{ ...s, reader: null }, [{ kind: 'repaint' }]];
  return same(s);
}

/** Scroll the reader, kept within the request's `rows` rows of text. */
function readerScroll(s: MuxState, by: number, rows: number): Step {
  if (!s.reader) return same(s);
  const req = s.snapshot.requests.find((r) => r.id === s.reader!.id);
  const top = req ? clampScroll(Math.max(0, s.reader.top + by), rows, readerSize(s).visible) : 0;
  return [{ ...s, reader: { ...s.reader, top } }, [{ kind: 'repaint' }]];
}

/** Keys while a pane is in scrollback mode. */
function scrollKey(s: MuxState, id: string, name: string | null, facts: TermFacts): Step {
  const page = Math.max(1, facts.rows - 1);
  const moves: Record<string, number> = { up: -1, k: -1, down: 1, j: 1, pageup: -page, 'C-b': -page, pagedown: page, 'C-f': page, space: page };
  const scroll = (by: number | 'top' | 'bottom'): Effect => ({ kind: 'scroll', pane: id, by });
  if (name && name in moves) return [s, [scroll(moves[name]!)]];
  if (name === 'g' || name === 'home') return [s, [scroll('top')]];
  if (name === 'G' || name === 'end') return [s, [scroll('bottom')]];
  if (name === 'q' || name === 'escape' || name === 'enter') return [patchPane(s, id, { scrollMode: false }), [scroll('bottom')]];
  return [s, [{ kind: 'pane-dirty', pane: id }]];
}

/** Mouse: focus on click, wheel scrolls back unless the application wants the mouse. */
function mouseStep(s: MuxState, ev: MouseEvent, terms: Readonly<Record<string, TermFacts>>): Step {
  const rects = layoutOf(s).panes;
  const index = rects.findIndex((r) => ev.x >= r.left && ev.x < r.left + r.width && ev.y >= r.top && ev.y < r.top + r.height);
  if (index < 0) return same(s);
  const rect = rects[index]!;
  const pane = s.panes[index];
  if (!pane) return same(s);
  const wheel = (ev.code & 64) !== 0;
  const motion = (ev.code & 32) !== 0;
  const button = ev.code & 3;
  const fx: Effect[] = [];
  let next = s;
  if (!wheel && !motion && !ev.release && index !== s.focused) {
    const before = s.panes[s.focused];
    if (before) fx.push({ kind: 'report-focus', pane: before.id, focused: false });
    fx.push({ kind: 'report-focus', pane: pane.id, focused: true }, { kind: 'repaint' });
    next = { ...s, focused: index };
  }
  const row = ev.y - rect.top - 1;
  const col = ev.x - rect.left;
  if (row >= 0 && (terms[pane.id] ?? NO_FACTS).mouse && !pane.scrollMode) {
    fx.push({
      kind: 'report-mouse', pane: pane.id, report: {
        col, row,
        button: wheel ? 'wheel' : button === 3 ? 'none' : (['left', 'middle', 'right'] as const)[button]!,
        action: wheel ? ((ev.code & 1) === 0 ? 'up' : 'down') : motion ? 'move' : ev.release ? 'release' : 'press',
        shift: (ev.code & 4) !== 0, alt: (ev.code & 8) !== 0, ctrl: (ev.code & 16) !== 0,
      },
    });
    return [next, fx];
  }
  if (wheel) fx.push({ kind: 'scroll', pane: pane.id, by: (ev.code & 1) === 0 ? -3 : 3, report: true });
  return [next, fx];
}
