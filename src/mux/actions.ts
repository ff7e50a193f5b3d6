/**
 * The one table of key-bound actions, as tmux registers its commands: each entry has a name (the
 * word a layout's `keys.bindings` uses), a line of help, its default keys and the reducer step it
 * runs. The table is a record keyed by every KeyAction and checked with `satisfies`, so an action
 * added to the config's vocabulary without an entry here fails the typecheck. The key map's
 * defaults, the help overlay and the README's key table all come from this table.
 */
import type { KeyAction } from '../config/keys-actions.js';
import {
  approve, broadcast, detach, webLink, focusNext, focusNumber, focusPrev, help, quit, readRequest, reject, restart, restartFresh, scrollback, selectRequest,
  sendPrefix, shutdownAll, shutdownFocused, toggleSidebar, zoom,
} from './commands.js';
import type { MuxState } from './state.js';
import type { Step } from './transitions.js';

/** Default keys: key names pressed after the prefix, or 'prefix' for the prefix key itself. */
export type DefaultKeys = readonly string[] | 'prefix';

/** One entry of the table, without its name. */
interface ActionEntry {
  help: string;
  defaultKeys: DefaultKeys;
  /** Actions of one group are listed as one row (focus_1 … focus_9). */
  group?: string;
  run(s: MuxState): Step;
}

/** One key-bound action. */
export interface MuxAction extends ActionEntry {
  name: KeyAction;
}

const focusN = (n: number): ActionEntry => ({ help: `focus pane ${n}`, defaultKeys: [String(n)], group: 'focus pane N (1 is the lead)', run: (s) => focusNumber(s, n) });

// In the order help lists them. `satisfies` makes a missing (or unknown) action a type error.
const TABLE = {
  focus_next: { help: 'focus the next pane', defaultKeys: ['n', 'o'], run: focusNext },
  focus_prev: { help: 'focus the previous pane', defaultKeys: ['p'], run: focusPrev },
  focus_1: focusN(1),
  focus_2: focusN(2),
  focus_3: focusN(3),
  focus_4: focusN(4),
  focus_5: focusN(5),
  focus_6: focusN(6),
  focus_7: focusN(7),
  focus_8: focusN(8),
  focus_9: focusN(9),
  zoom: { help: 'zoom / unzoom the focused pane', defaultKeys: ['z'], run: zoom },
  scrollback: { help: 'scrollback (↑ ↓ PgUp PgDn, q)', defaultKeys: ['['], run: scrollback },
  toggle_sidebar: { help: 'show / hide the sidebar', defaultKeys: ['t'], run: toggleSidebar },
  next_request: { help: 'select the next request', defaultKeys: ['j'], run: (s) => selectRequest(s, 1) },
  prev_request: { help: 'select the previous request', defaultKeys: ['k'], run: (s) => selectRequest(s, -1) },
  read_request: { help: 'read the selected request', defaultKeys: ['v'], run: readRequest },
  approve: { help: 'approve / allow the request', defaultKeys: ['a'], run: approve },
  reject: { help: 'reject / deny, with feedback', defaultKeys: ['r'], run: reject },
  broadcast: { help: 'broadcast to every inbox', defaultKeys: ['b'], run: broadcast },
  shutdown: { help: 'shut down the focused teammate', defaultKeys: ['s'], run: shutdownFocused },
  shutdown_all: { help: 'shut down every teammate', defaultKeys: ['S'], run: shutdownAll },
  restart: { help: 'restart, same conversation', defaultKeys: ['R'], run: restart },
  restart_fresh: { help: 'restart, fresh conversation', defaultKeys: ['F'], run: restartFresh },
  detach: { help: 'detach (tmux backend only)', defaultKeys: ['d'], run: detach },
  quit: { help: 'quit (press again to force)', defaultKeys: ['q'], run: quit },
  help: { help: 'this list of keys', defaultKeys: ['?'], run: help },
  web_link: { help: 'web view link and QR code', defaultKeys: ['W'], run: webLink },
  send_prefix: { help: 'send the prefix to the pane', defaultKeys: 'prefix', run: sendPrefix },
} satisfies Record<KeyAction, ActionEntry>;

/** Every action, in the order help lists them. */
export const ACTIONS: readonly MuxAction[] = (Object.keys(TABLE) as KeyAction[]).map((name) => ({ name, ...TABLE[name] }));

/** The action called `name`. */
export function actionNamed(name: KeyAction): MuxAction {
  return { name, ...TABLE[name] };
}

/** Run the action called `name` on a state. */
export function runAction(s: MuxState, name: KeyAction): Step {
  return TABLE[name].run(s);
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
 * The key list for a key table (help is at most HELP_WIDTH columns, so two columns fit 80x24), in
 * table order: one row per action, one row per group (keys shown as first … last), actions with no
 * key left out.
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
