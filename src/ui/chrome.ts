/**
 * Pane titles, the status line and the help overlay, as rows of styled text. Pure: the multiplexer
 * passes in what each pane is doing and gets rows back to paint.
 */
import { ACTION_HELP } from '../keys/keymap.js';
import type { KeyAction } from '../config/keys-actions.js';
import { C, fit, style, textWidth, type Row } from './text.js';

/** What a pane title needs. */
export interface TitleInfo {
  index: number;
  name: string;
  role: string;
  /** working, idle, waiting for approval, stopping, exited 0, killed by SIGTERM … */
  state: string;
  focused: boolean;
  zoomed: boolean;
  scrolled: boolean;
  note: string | null;
}

const STATE_COLOR: Array<[RegExp, number]> = [
  [/^working/, C.green], [/^idle/, C.cyan], [/^waiting/, C.magenta], [/^stopping/, C.yellow], [/^(exited|killed)/, C.red], [/^starting/, C.yellow],
];

/** The one-row title of a pane. */
export function titleRow(t: TitleInfo, width: number): Row {
  const bg = t.focused ? C.blue : 236;
  const base = style(C.brightWhite, bg, { bold: t.focused });
  const stateColor = STATE_COLOR.find(([re]) => re.test(t.state))?.[1] ?? C.default;
  const head = ` ${t.index} ${t.name} `;
  const state = ` ${t.state}${t.zoomed ? ' [zoom]' : ''}${t.scrolled ? ' [scroll]' : ''} `;
  const note = t.note ? ` ${t.note}` : '';
  const roleRoom = width - textWidth(head) - textWidth(state) - textWidth(note);
  const role = roleRoom > 4 ? fit(`· ${t.role}`, roleRoom) : '';
  const row: Row = [
    { text: head, attr: base },
    { text: role, attr: style(250, bg) },
    { text: state, attr: style(stateColor, bg, { bold: true }) },
    { text: fit(note, Math.max(0, width - textWidth(head) - textWidth(role) - textWidth(state))), attr: style(C.yellow, bg) },
  ];
  return row;
}

/** What the status line needs. */
export interface StatusInfo {
  team: string;
  prefix: string;
  prefixPending: boolean;
  focused: string;
  demo: boolean;
  message: string | null;
  prompt: { label: string; text: string } | null;
  backend: string;
}

/** The bottom status line. */
export function statusRow(s: StatusInfo, width: number): Row {
  const bar = style(C.black, C.green);
  if (s.prompt) {
    return [{ text: fit(`${s.prompt.label} ${s.prompt.text}`, width), attr: style(C.black, C.yellow) }];
  }
  const left = `[${s.team}] ${s.prefixPending ? `${s.prefix} …` : `→ ${s.focused}`}`;
  const demo = s.demo ? ' DEMO MODEL (no API key) ' : '';
  const right = `${s.prefix} ? help  ${s.backend}`;
  const msg = s.message ? ` ${s.message}` : '';
  const room = width - textWidth(left) - textWidth(demo) - textWidth(right) - 1;
  return [
    { text: left, attr: style(C.black, C.green, { bold: true }) },
    { text: demo, attr: style(C.brightWhite, C.red, { bold: true }) },
    { text: fit(msg, Math.max(0, room)).padEnd(Math.max(0, room)), attr: bar },
    { text: ' ' + right, attr: bar },
  ];
}

/** The help overlay's rows: every binding, prefixed. */
export function helpRows(prefix: string, bindings: ReadonlyMap<string, KeyAction>): Row[] {
  const byAction = new Map<KeyAction, string[]>();
  for (const [key, action] of bindings) byAction.set(action, [...(byAction.get(action) ?? []), key]);
  const rows: Row[] = [
    [{ text: ' teamux keys ', attr: style(C.black, C.cyan, { bold: true }) }],
    [{ text: `Press ${prefix}, then a key. Everything else goes to the focused pane.`, attr: style() }],
    [{ text: '', attr: style() }],
  ];
  for (const [action, keys] of byAction) {
    rows.push([{ text: `  ${keys.join(' ').padEnd(8)} `, attr: style(C.yellow, C.default, { bold: true }) }, { text: ACTION_HELP[action], attr: style() }]);
  }
  rows.push([{ text: '', attr: style() }]);
  rows.push([{ text: '  mouse: click a pane to focus it, wheel scrolls back; any key closes this', attr: style(C.default, C.default, { dim: true }) }]);
  return rows;
}
