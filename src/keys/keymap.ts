/**
 * The key table: which key (after the prefix, as in tmux) runs which action. Defaults are here;
 * a layout's `keys` section overrides them. Key names are the same grammar the layout file uses
 * (`C-a`, `M-x`, `?`, `f1`); routing a key is a pure function of the mode and the table.
 */
import type { KeyAction } from '../config/keys-actions.js';

/** teamux's default prefix: C-a, so it never clashes with tmux's C-b when run inside tmux. */
export const DEFAULT_PREFIX = 'C-a';

/** The default bindings: key name (pressed after the prefix) → action. */
export const DEFAULT_BINDINGS: ReadonlyArray<readonly [string, KeyAction]> = [
  ['n', 'focus_next'], ['o', 'focus_next'], ['p', 'focus_prev'],
  ['1', 'focus_1'], ['2', 'focus_2'], ['3', 'focus_3'], ['4', 'focus_4'], ['5', 'focus_5'],
  ['6', 'focus_6'], ['7', 'focus_7'], ['8', 'focus_8'], ['9', 'focus_9'],
  ['z', 'zoom'], ['[', 'scrollback'],
  ['a', 'approve'], ['r', 'reject'], ['j', 'next_request'], ['k', 'prev_request'],
  ['b', 'broadcast'], ['s', 'shutdown'], ['S', 'shutdown_all'], ['R', 'restart'],
  ['?', 'help'], ['q', 'quit'], ['d', 'detach'],
];

/** What each action does, for the help overlay. */
export const ACTION_HELP: Record<KeyAction, string> = {
  focus_next: 'focus the next pane', focus_prev: 'focus the previous pane',
  focus_1: 'focus pane 1 (the lead)', focus_2: 'focus pane 2', focus_3: 'focus pane 3', focus_4: 'focus pane 4', focus_5: 'focus pane 5',
  focus_6: 'focus pane 6', focus_7: 'focus pane 7', focus_8: 'focus pane 8', focus_9: 'focus pane 9',
  zoom: 'zoom / unzoom the focused pane', scrollback: 'scrollback mode (arrows, PgUp/PgDn, q to leave)',
  approve: 'approve the selected plan request', reject: 'reject the selected plan request (asks for feedback)',
  next_request: 'select the next pending request', prev_request: 'select the previous pending request',
  broadcast: 'broadcast a message to every inbox', shutdown: 'shutdown handshake with the focused teammate',
  shutdown_all: 'shutdown handshake with every teammate', restart: 'restart the focused pane if it exited',
  help: 'show this help', quit: 'shut everyone down and quit (twice: force)', detach: 'detach (tmux backend: members keep running)',
  send_prefix: 'send the prefix key itself to the focused pane',
};

/** The bytes a terminal sends for a key name, for the keys a prefix can be. */
export function keyBytes(name: string): string | null {
  const ctl = /^C-(.)$/.exec(name);
  if (ctl) {
    const ch = ctl[1]!.toLowerCase();
    if (ch >= 'a' && ch <= 'z') return String.fromCharCode(ch.charCodeAt(0) - 96);
    const special: Record<string, string> = { '@': '\x00', '[': '\x1b', '\\': '\x1c', ']': '\x1d', '^': '\x1e', _: '\x1f' };
    return special[ch] ?? null;
  }
  if (name === 'C-space') return '\x00';
  const meta = /^M-(.)$/.exec(name);
  if (meta) return `\x1b${meta[1]}`;
  if ([...name].length === 1) return name;
  return null;
}

/** A resolved key table. */
export interface KeyTable {
  prefix: string;
  prefixBytes: string;
  bindings: Map<string, KeyAction>;
}

/** Build the table from a prefix and overrides (action → key); an override replaces the action's default keys. */
export function buildKeyTable(prefix: string, overrides: Partial<Record<KeyAction, string>>): { ok: true; table: KeyTable } | { ok: false; message: string } {
  const prefixBytes = keyBytes(prefix);
  if (prefixBytes === null) return { ok: false, message: `prefix "${prefix}" cannot be typed as one key; use C-<letter> or M-<char>` };
  const bindings = new Map<string, KeyAction>();
  const overridden = new Set(Object.keys(overrides));
  for (const [key, action] of DEFAULT_BINDINGS) if (!overridden.has(action)) bindings.set(key, action);
  for (const [action, key] of Object.entries(overrides) as Array<[KeyAction, string]>) bindings.set(key, action);
  // The prefix pressed twice sends it through, unless the layout bound that key to something else.
  const prefixAgain = bindings.has(prefix) ? null : prefix;
  if (prefixAgain) bindings.set(prefixAgain, 'send_prefix');
  return { ok: true, table: { prefix, prefixBytes, bindings } };
}

/** Input modes of the multiplexer. */
export type KeyMode = 'attach' | 'prefix';

/** What to do with one key token. */
export type KeyRoute =
  | { mode: KeyMode; kind: 'passthrough' }
  | { mode: KeyMode; kind: 'action'; action: KeyAction }
  | { mode: KeyMode; kind: 'await' }
  | { mode: KeyMode; kind: 'unbound'; key: string };

/** Route one key: in attach mode everything but the prefix goes to the pane; after the prefix, a binding runs. */
export function routeKey(mode: KeyMode, raw: string, name: string | null, table: KeyTable): KeyRoute {
  if (mode === 'attach') {
    if (raw === table.prefixBytes) return { mode: 'prefix', kind: 'await' };
    return { mode: 'attach', kind: 'passthrough' };
  }
  const action = name ? table.bindings.get(name) : undefined;
  if (action) return { mode: 'attach', kind: 'action', action };
  return { mode: 'attach', kind: 'unbound', key: name ?? JSON.stringify(raw) };
}
