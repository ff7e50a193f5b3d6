/**
 * Pane titles, the status line and the help overlay, as rows of styled text. Pure: the multiplexer
 * passes in what each pane is doing and gets rows back to paint.
 */
import type { Activity, ActivityKind } from '../protocol/activity.js';
import { C, fit, style, textWidth, type Row } from './text.js';

/** What a pane title needs. */
export interface TitleInfo {
  index: number;
  name: string;
  role: string;
  /** working, running, idle, waiting for approval, stopping, exited 0, killed by SIGTERM … */
  activity: Activity;
  focused: boolean;
  zoomed: boolean;
  scrolled: boolean;
  note: string | null;
}

/** The colour of each activity, shared by titles and the sidebar roster: exit 0 is dim, a failure red. */
export function activityStyle(kind: ActivityKind, bg: number = C.default): number {
  switch (kind) {
    case 'working': return style(C.green, bg, { bold: true });
    case 'running': return style(C.green, bg);
    case 'idle': return style(C.cyan, bg);
    case 'waiting': return style(C.yellow, bg, { bold: true });
    case 'stopping': case 'starting': return style(C.yellow, bg);
    case 'exited': return style(C.default, bg, { dim: true });
    case 'failed': return style(C.red, bg, { bold: true });
  }
}

/** The one-row title of a pane. */
export function titleRow(t: TitleInfo, width: number): Row {
  const bg = t.focused ? C.blue : 236;
  const base = style(C.brightWhite, bg, { bold: t.focused });
  const head = ` ${t.index} ${t.name} `;
  const state = ` ${t.activity.label}${t.zoomed ? ' [zoom]' : ''}${t.scrolled ? ' [scroll]' : ''} `;
  const note = t.note ? ` ${t.note}` : '';
  const roleRoom = width - textWidth(head) - textWidth(state) - textWidth(note);
  const role = roleRoom > 4 ? fit(`· ${t.role}`, roleRoom) : '';
  const row: Row = [
    { text: head, attr: base },
    { text: role, attr: style(250, bg) },
    { text: state, attr: activityStyle(t.activity.kind, bg) },
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
  /** Requests waiting for the person, e.g. "⚑ 1 plan awaiting C-a a"; null when none wait. */
  badge: string | null;
  /** A shared store that is not reachable now, e.g. "store lost: reconnecting"; absent or null: all is well. */
  storeAlert?: string | null;
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
  const badge = s.badge ? ` ${s.badge} ` : '';
  const alert = s.storeAlert ? ` ${s.storeAlert} ` : '';
  const room = width - textWidth(left) - textWidth(demo) - textWidth(alert) - textWidth(badge) - textWidth(right) - 1;
  return [
    { text: left, attr: style(C.black, C.green, { bold: true }) },
    { text: demo, attr: style(C.brightWhite, C.red, { bold: true }) },
    { text: alert, attr: style(C.brightWhite, C.red, { bold: true }) },
    { text: badge, attr: style(C.black, C.yellow, { bold: true }) },
    { text: fit(msg, Math.max(0, room)).padEnd(Math.max(0, room)), attr: bar },
    { text: ' ' + right, attr: bar },
  ];
}

/** One entry of the help box: keys after the prefix, and what they do. */
export interface HelpEntry {
  keys: string[];
  help: string;
}

const BOX = style(C.cyan, 235);
const BOX_FILL = style(C.default, 235);

/**
 * The help overlay: a bordered box listing the entries in two columns when the screen is wide enough
 * (one otherwise), no larger than maxWidth x maxHeight; rows past the height end with "…".
 */
export function helpBox(prefix: string, entries: readonly HelpEntry[], maxWidth: number, maxHeight: number): Row[] {
  const keyText = entries.map((e) => e.keys.join(' '));
  const keyWidth = Math.max(3, ...keyText.map(textWidth));
  const helpWidth = Math.max(...entries.map((e) => textWidth(e.help)), 10);
  const cell = keyWidth + 2 + helpWidth;
  // Inside the border: one blank column, then the entries with two blanks between the columns.
  const columns = maxWidth >= 2 * cell + 5 ? 2 : 1;
  const inner = Math.max(10, Math.min(maxWidth - 2, columns * cell + (columns - 1) * 2 + 1));
  const perColumn = Math.ceil(entries.length / columns);
  const line = (segs: Row): Row => {
    const used = segs.reduce((w, s) => w + textWidth(s.text), 0);
    return [{ text: '│', attr: BOX }, ...segs, { text: ' '.repeat(Math.max(0, inner - used)), attr: BOX_FILL }, { text: '│', attr: BOX }];
  };
  const title = ` teamux keys: ${prefix}, then `;
  const rows: Row[] = [[{ text: '┌', attr: BOX }, { text: fit(title, inner), attr: style(C.black, C.cyan, { bold: true }) }, { text: '─'.repeat(Math.max(0, inner - textWidth(fit(title, inner)))), attr: BOX }, { text: '┐', attr: BOX }]];
  const body: Row[] = [];
  for (let r = 0; r < perColumn; r++) {
    const segs: Row = [{ text: ' ', attr: BOX_FILL }];
    for (let c = 0; c < columns; c++) {
      const i = c * perColumn + r;
      const e = entries[i];
      if (!e) break;
      if (c > 0) segs.push({ text: '  ', attr: BOX_FILL });
      const room = columns === 1 ? inner - 1 - keyWidth - 2 : helpWidth;
      segs.push({ text: keyText[i]!.padEnd(keyWidth) + '  ', attr: style(C.yellow, 235, { bold: true }) });
      segs.push({ text: fit(e.help, room).padEnd(c < columns - 1 ? helpWidth : 0), attr: BOX_FILL });
    }
    body.push(line(segs));
  }
  const footer = line([{ text: fit(' any key closes; click a pane to focus it; the wheel scrolls back', inner), attr: style(C.default, 235, { dim: true }) }]);
  const room = Math.max(0, maxHeight - 3);
  if (body.length > room) {
    body.length = Math.max(0, room - 1);
    body.push(line([{ text: ' …', attr: BOX_FILL }]));
  }
  rows.push(...body, footer, [{ text: '└' + '─'.repeat(inner) + '┘', attr: BOX }]);
  return rows.slice(0, Math.max(0, maxHeight));
}

/**
 * A panel: a bordered box with a title, lines of text (cut to fit) and a QR code drawn dark on light
 * below them, at most `maxWidth` x `maxHeight` cells. A QR code that does not fit whole is left out
 * with a line saying so (a cut one would not scan).
 */
export function panelBox(title: string, lines: readonly string[], qr: readonly string[], maxWidth: number, maxHeight: number): Row[] {
  const qrWidth = qr.reduce((w, l) => Math.max(w, textWidth(l)), 0);
  const showQr = qr.length > 0 && qrWidth + 4 <= maxWidth && lines.length + qr.length + 2 <= maxHeight;
  const text = showQr || qr.length === 0 ? lines : [...lines, '(the QR code needs a larger terminal)'];
  const inner = Math.max(10, Math.min(maxWidth - 2, Math.max(showQr ? qrWidth + 2 : 0, ...text.map((l) => textWidth(l) + 2))));
  const line = (segs: Row): Row => {
    const used = segs.reduce((w, s) => w + textWidth(s.text), 0);
    return [{ text: '│', attr: BOX }, ...segs, { text: ' '.repeat(Math.max(0, inner - used)), attr: BOX_FILL }, { text: '│', attr: BOX }];
  };
  const head = fit(` ${title} `, inner);
  const rows: Row[] = [[{ text: '┌', attr: BOX }, { text: head, attr: style(C.black, C.cyan, { bold: true }) }, { text: '─'.repeat(Math.max(0, inner - textWidth(head))), attr: BOX }, { text: '┐', attr: BOX }]];
  for (const l of text) rows.push(line([{ text: ' ', attr: BOX_FILL }, { text: fit(l, inner - 1), attr: BOX_FILL }]));
  if (showQr) {
    const pad = Math.floor((inner - qrWidth) / 2);
    for (const l of qr) rows.push(line([{ text: ' '.repeat(pad), attr: BOX_FILL }, { text: l, attr: style(C.black, C.brightWhite) }]));
  }
  rows.push([{ text: `└${'─'.repeat(inner)}┘`, attr: BOX }]);
  return rows.slice(0, Math.max(2, maxHeight));
}
