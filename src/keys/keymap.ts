/**
 * The key table: which key (after the prefix, as in tmux) runs which action. The defaults come from
 * the action table (src/mux/actions.ts); a layout's `keys` section overrides them. Key names are the same grammar the layout file uses
 * (`C-a`, `M-x`, `?`, `f1`); routing a key is a pure function of the mode and the table.
 */
import type { KeyAction } from '../config/keys-actions.js';

/** teamux's default prefix: C-a, so it never clashes with tmux's C-b when run inside tmux. */
export const DEFAULT_PREFIX = 'C-a';

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

/** Build the table from a prefix, the default bindings and overrides (action → key); an override replaces the action's default keys. */
export function buildKeyTable(prefix: string, overrides: Partial<Record<KeyAction, string>>, defaults: ReadonlyArray<readonly [string, KeyAction]>): { ok: true; table: KeyTable } | { ok: false; message: string } {
  const prefixBytes = keyBytes(prefix);
  if (prefixBytes === null) return { ok: false, message: `prefix "${prefix}" cannot be typed as one key; use C-<letter> or M-<char>` };
  const bindings = new Map<string, KeyAction>();
  const overridden = new Set(Object.keys(overrides));
  for (const [key, action] of defaults) if (!overridden.has(action)) bindings.set(key, action);
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
