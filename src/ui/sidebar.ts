/**
 * The sidebar: task board, mailbox traffic and pending requests, rendered as rows of styled text from
 * a TeamSnapshot. Pure: (snapshot, size, selection) → rows. Each section gets a share of the height;
 * a board of 1000 tasks shows counts per status and as many rows as fit, in-progress first.
 */
import { memberState } from '../protocol/members.js';
import type { ProtocolRequest, TeamEvent } from '../protocol/types.js';
import type { TaskRow, TeamSnapshot } from '../app/team-view.js';
import { C, fit, style, textWidth, type Row } from './text.js';

export type SidebarSection = 'task_board' | 'mailbox' | 'requests';

/** What the sidebar needs besides the snapshot. */
export interface SidebarOptions {
  width: number;
  height: number;
  sections: readonly SidebarSection[];
  selectedRequest: string | null;
  /** Extra lines about handshakes in progress ("alice: waiting for shutdown_response (7s)"). */
  notices: string[];
}

const HEAD = style(C.black, C.cyan, { bold: true });
const DIM = style(C.default, C.default, { dim: true });
const PLAIN = style();
const STATUS_STYLE: Record<string, number> = {
  in_progress: style(C.yellow), ready: style(C.green, C.default, { bold: true }), waiting: style(C.default, C.default, { dim: true }), completed: style(C.green, C.default, { dim: true }),
};

/** Pending requests, oldest first: the ones keys act on. */
export function pendingRequests(s: TeamSnapshot): ProtocolRequest[] {
  return s.requests.filter((r) => r.status === 'pending');
}

function header(text: string, width: number): Row {
  const t = fit(` ${text}`, width);
  return [{ text: t + ' '.repeat(Math.max(0, width - textWidth(t))), attr: HEAD }];
}

type TaskState = 'in_progress' | 'ready' | 'waiting' | 'completed';

function taskState(t: TaskRow): TaskState {
  if (t.status === 'completed') return 'completed';
  if (t.status === 'in_progress') return 'in_progress';
  return t.ready ? 'ready' : 'waiting';
}

const GLYPH: Record<string, string> = { in_progress: '●', ready: '○', waiting: '◌', completed: '✓' };

function taskRows(s: TeamSnapshot, width: number, budget: number): Row[] {
  const counts = { in_progress: 0, ready: 0, waiting: 0, completed: 0 };
  for (const t of s.tasks) counts[taskState(t)]++;
  const rows: Row[] = [header(`TASKS ${s.tasks.length}  ●${counts.in_progress} ○${counts.ready} ◌${counts.waiting} ✓${counts.completed}`, width)];
  const order = ['in_progress', 'ready', 'waiting', 'completed'] as const;
  const sorted = [...s.tasks].sort((a, b) => order.indexOf(taskState(a)) - order.indexOf(taskState(b)) || Number(a.id) - Number(b.id));
  const room = budget - 1 - (s.problems.length > 0 ? 1 : 0);
  for (const t of sorted.slice(0, Math.max(0, room))) {
    const st = taskState(t);
    const who = t.owner ? ` @${t.owner}` : '';
    const deps = st === 'waiting' ? ` ⟵${t.blockedBy.join(',')}` : '';
    const lead = `${GLYPH[st]}${t.id.padStart(3)} `;
    const tail = `${who}${deps}`;
    const subject = fit(t.subject, Math.max(1, width - textWidth(lead) - textWidth(tail)));
    rows.push([{ text: lead, attr: STATUS_STYLE[st]! }, { text: subject, attr: st === 'completed' ? DIM : PLAIN }, { text: tail, attr: DIM }]);
  }
  if (sorted.length > room && room > 0) rows[rows.length - 1] = [{ text: fit(`  … ${sorted.length - room + 1} more`, width), attr: DIM }];
  if (s.problems.length > 0) rows.push([{ text: fit(`! ${s.problems.length} bad file${s.problems.length > 1 ? 's' : ''}: ${s.problems[0]!.path.split('/').pop()}: ${s.problems[0]!.message}`, width), attr: style(C.red) }]);
  return rows;
}

function trafficRows(traffic: TeamEvent[], width: number, budget: number): Row[] {
  const rows: Row[] = [header(`MAIL ${traffic.length}`, width)];
  const shown = traffic.slice(-Math.max(0, budget - 1));
  for (const ev of shown) {
    const time = typeof ev.time === 'string' ? ev.time.slice(11, 16) : '';
    const route = `${String(ev.from)}→${String(ev.to)}`;
    const type = String(ev.messageType ?? 'message');
    const prefix = `${time} ${route} `;
    const rest = fit(`${type}: ${String(ev.excerpt ?? '')}`, Math.max(1, width - textWidth(prefix)));
    rows.push([{ text: prefix, attr: DIM }, { text: rest, attr: type.includes('request') ? style(C.magenta) : type === 'result' ? style(C.green) : PLAIN }]);
  }
  return rows;
}

function requestRows(s: TeamSnapshot, width: number, budget: number, selected: string | null, notices: string[]): Row[] {
  const pending = pendingRequests(s);
  const rows: Row[] = [header(`REQUESTS ${pending.length} pending`, width)];
  for (const n of notices.slice(0, Math.max(0, budget - 1))) rows.push([{ text: fit(n, width), attr: style(C.yellow) }]);
  for (const r of pending) {
    if (rows.length >= budget) break;
    const mark = r.id === selected ? '▶' : ' ';
    const kind = r.type === 'plan_approval' ? 'plan' : 'shutdown';
    const text = fit(`${mark}${kind} ${r.from}→${r.to}: ${r.body.replace(/\s+/g, ' ')}`, width);
    rows.push([{ text: text + ' '.repeat(Math.max(0, width - textWidth(text))), attr: r.id === selected ? style(C.default, C.default, { inverse: true }) : style(C.magenta) }]);
  }
  const resolved = s.requests.filter((r) => r.status !== 'pending').slice(-3).reverse();
  for (const r of resolved) {
    if (rows.length >= budget) break;
    const why = r.response?.text ? ` — ${r.response.text}` : '';
    const who = r.type === 'plan_approval' ? `plan ${r.from}` : `shutdown ${r.to}`;
    rows.push([{ text: fit(` ${who}: ${r.status}${why}`, width), attr: r.status === 'approved' ? style(C.green, C.default, { dim: true }) : style(C.red, C.default, { dim: true }) }]);
  }
  return rows;
}

/** Render the sidebar. */
export function renderSidebar(s: TeamSnapshot, o: SidebarOptions): Row[] {
  const rows: Row[] = [];
  const members = s.roster.map((m) => `${m.name}:${memberState(m.name, m.reportedStatus, s.requests)}`).join(', ');
  rows.push([{ text: fit(`teamux · ${s.team}`, o.width), attr: style(C.cyan, C.default, { bold: true }) }]);
  rows.push([{ text: fit(members, o.width), attr: DIM }]);
  const left = o.height - rows.length;
  const n = o.sections.length;
  if (n === 0 || left <= 0) return rows.slice(0, o.height);
  // Requests get what they need (up to a third); mail a third; tasks the rest.
  const budgets = new Map<SidebarSection, number>();
  const resolvedShown = Math.min(3, s.requests.length - pendingRequests(s).length);
  const reqNeed = Math.min(Math.max(2, Math.floor(left / 3)), 1 + o.notices.length + pendingRequests(s).length + resolvedShown);
  if (o.sections.includes('requests')) budgets.set('requests', reqNeed);
  if (o.sections.includes('mailbox')) budgets.set('mailbox', Math.max(2, Math.min(Math.floor(left / 3), 1 + s.traffic.length)));
  const used = [...budgets.values()].reduce((a, b) => a + b, 0);
  if (o.sections.includes('task_board')) budgets.set('task_board', Math.max(2, left - used));
  for (const sec of o.sections) {
    const budget = Math.min(budgets.get(sec) ?? 0, o.height - rows.length);
    if (budget <= 0) continue;
    if (sec === 'task_board') rows.push(...taskRows(s, o.width, budget).slice(0, budget));
    else if (sec === 'mailbox') rows.push(...trafficRows(s.traffic, o.width, budget).slice(0, budget));
    else rows.push(...requestRows(s, o.width, budget, o.selectedRequest, o.notices).slice(0, budget));
  }
  return rows.slice(0, o.height);
}
