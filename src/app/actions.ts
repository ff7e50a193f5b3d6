/**
 * The one table of key-bound actions, as tmux registers its commands: each entry has a name (the
 * word a layout's `keys.bindings` uses), a line of help, its default keys and what it runs. The key
 * map's defaults, the help overlay and the README's key table all come from this table, and a test
 * checks that every action in the config's vocabulary has an entry, a key and help.
 */
import type { KeyAction } from '../config/keys-actions.js';
import type { Multiplexer } from './multiplexer.js';
import {
  approve, broadcast, detach, focusNext, focusNumber, focusPrev, help, quit, reject, restart, scrollback, selectRequest,
  readRequest, sendPrefix, shutdownAll, shutdownFocused, toggleSidebar, zoom,
} from './mux-actions.js';

/** Default keys: key names pressed after the prefix, or 'prefix' for the prefix key itself. */
export type DefaultKeys = readonly string[] | 'prefix';

/** One key-bound action. */
export interface MuxAction {
  name: KeyAction;
  help: string;
  defaultKeys: DefaultKeys;
  /** Actions of one group are listed as one row (focus_1 … focus_9). */
  group?: string;
  run(mux: Multiplexer): unknown;
}

const focusN = (n: number): MuxAction => ({
  name: `focus_${n}` as KeyAction, help: `focus pane ${n}`, defaultKeys: [String(n)], group: 'focus pane N (1 is the lead)', run: (mux) => focusNumber(mux, n),
});

/** Every action, in the order help lists them. */
export const ACTIONS: readonly MuxAction[] = [
  { name: 'focus_next', help: 'focus the next pane', defaultKeys: ['n', 'o'], run: focusNext },
  { name: 'focus_prev', help: 'focus the previous pane', defaultKeys: ['p'], run: focusPrev },
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map(focusN),
  { name: 'zoom', help: 'zoom / unzoom the focused pane', defaultKeys: ['z'], run: zoom },
  { name: 'scrollback', help: 'scrollback (↑ ↓ PgUp PgDn, q)', defaultKeys: ['['], run: scrollback },
  { name: 'toggle_sidebar', help: 'show / hide the sidebar', defaultKeys: ['t'], run: toggleSidebar },
  { name: 'next_request', help: 'select the next request', defaultKeys: ['j'], run: (mux) => selectRequest(mux, 1) },
  { name: 'prev_request', help: 'select the previous request', defaultKeys: ['k'], run: (mux) => selectRequest(mux, -1) },
  { name: 'read_request', help: 'read the selected request', defaultKeys: ['v'], run: readRequest },
  { name: 'approve', help: 'approve / allow the request', defaultKeys: ['a'], run: approve },
  { name: 'reject', help: 'reject / deny, with feedback', defaultKeys: ['r'], run: reject },
  { name: 'broadcast', help: 'broadcast to every inbox', defaultKeys: ['b'], run: broadcast },
  { name: 'shutdown', help: 'shut down the focused teammate', defaultKeys: ['s'], run: shutdownFocused },
  { name: 'shutdown_all', help: 'shut down every teammate', defaultKeys: ['S'], run: shutdownAll },
  { name: 'restart', help: 'restart the exited pane', defaultKeys: ['R'], run: restart },
  { name: 'detach', help: 'detach (tmux backend only)', defaultKeys: ['d'], run: detach },
  { name: 'quit', help: 'quit (press again to force)', defaultKeys: ['q'], run: quit },
  { name: 'help', help: 'this list of keys', defaultKeys: ['?'], run: help },
  { name: 'send_prefix', help: 'send the prefix to the pane', defaultKeys: 'prefix', run: sendPrefix },
];

const BY_NAME = new Map(ACTIONS.map((a) => [a.name, a]));

/** The action called `name` (every KeyAction has one; the table test checks it). */
export function actionNamed(name: KeyAction): MuxAction {
  const a = BY_NAME.get(name);
  if (!a) throw new Error(`no action ${name} in the action table`);
  return a;
}

/** Run the action called `name`. */
export function runAction(mux: Multiplexer, name: KeyAction): unknown {
  return actionNamed(name).run(mux);
}

/** The default bindings (key → action) for the key map; the prefix's own binding is the key map's business. */
export function defaultBindings(): Array<readonly [string, KeyAction]> {
  return ACTIONS.flatMap((a) => (a.defaultKeys === 'prefix' ? [] : a.defaultKeys.map((k) => [k, a.name] as const)));
}

/** The widest help text an action may have. */
export const HELP_WIDTH = 30;

/** One row of the key list: the keys (after the prefix) and what they do. */
export interface KeyRow {
  keys: string[];
  help: string;
}

/**
 * The key list for a key table (help is at most HELP_WIDTH columns, so two columns fit 80x24), in table order: one row per action, one row per group (keys shown
 * as first … last), actions with no key left out.
 */
export function keyRows(bindings: ReadonlyMap<string, KeyAction>): KeyRow[] {
  const keysOf = (name: KeyAction): string[] => [...bindings].filter(([, a]) => a === name).map(([k]) => k);
  const rows: KeyRow[] = [];
  const groups = new Map<string, KeyRow>();
  for (const a of ACTIONS) {
    const keys = keysOf(a.name);
    if (keys.length === 0) continue;
    if (!a.group) {
      rows.push({ keys, help: a.help });
      continue;
    }
    const row = groups.get(a.group);
    if (row) row.keys.push(...keys);
    else {
      const fresh = { keys: [...keys], help: a.group };
      groups.set(a.group, fresh);
      rows.push(fresh);
    }
  }
  // A group whose keys are a run (1 … 9) reads best as its ends.
  for (const row of groups.values()) {
    const run = row.keys.every((k, i) => /^[0-9]$/.test(k) && (i === 0 || Number(k) === Number(row.keys[i - 1]) + 1));
    if (run && row.keys.length > 2) row.keys = [row.keys[0]!, '…', row.keys[row.keys.length - 1]!];
  }
  return rows;
}
