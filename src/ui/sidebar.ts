/**
 * The sidebar: the roster (one line per member, a coloured dot for its activity), task board, mailbox
 * traffic and requests, rendered as rows of styled text from a SidebarData. Pure: (snapshot, size,
 * selection) → rows. Each section gets a share of the height; pending requests come first, in the
 * warning colour; a board of 1000 tasks shows counts per status and as many rows as fit.
 */
import type { ProtocolRequest, Task, TeamEvent } from '../protocol/types.js';
import { BoardModel, type BoardState, type BoardView } from '../store/board-model.js';
import { pendingRequests, type SidebarData, type SidebarSection } from '../mux/sidebar-data.js';
import { memberActivity, type Activity } from '../protocol/activity.js';
import { activityStyle } from './chrome.js';
import { claudeTeamRows } from './claude-team-rows.js';
import { claudeUsageLabel } from './claude-usage.js';
import { pipelineLineRow, verdictBadge } from './pipeline-line.js';
import { budgetLineRow, spentMembers } from './budget-line.js';
import { C, fit, shownPart, style, textWidth, type Row } from './text.js';
import type { WorkSummary } from '../protocol/worktrees.js';
import { visible } from '../protocol/visible.js';

/** What the sidebar needs besides the snapshot. */
export interface SidebarOptions {
  width: number;
  height: number;
  sections: readonly SidebarSection[];
  selectedRequest: string | null;
  /** Extra lines about handshakes in progress ("alice: waiting for shutdown_response (7s)"). */
  notices: string[];
  /** Each member's activity as the pane titles show it; members not in it are judged from the snapshot. */
  activities?: ReadonlyMap<string, Activity>;
}

const HEAD = style(C.black, C.cyan, { bold: true });
const DIM = style(C.default, C.default, { dim: true });
const PLAIN = style();
const STATUS_STYLE: Record<string, number> = {
  in_progress: style(C.yellow), ready: style(C.green, C.default, { bold: true }), waiting: style(C.default, C.default, { dim: true }), completed: style(C.green, C.default, { dim: true }),
};

/** How each request type is named in the list. */
const REQUEST_LABEL: Record<ProtocolRequest['type'], string> = { plan_approval: 'plan', shutdown: 'shutdown', permission: 'permission' };

/** The full text of a permission request: the tool and every field of its input. */
function permissionDetail(r: ProtocolRequest): string {
  const p = r.payload ?? {};
  const input = typeof p['input'] === 'object' && p['input'] !== null ? (p['input'] as Record<string, unknown>) : {};
  const fields = Object.entries(input).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [`tool: ${String(p['tool'] ?? '?')}`, ...fields, 'C-a a allow · C-a r deny'].join('\n');
}

/**
 * The first `most` lines of at most `width` characters, breaking long lines; control characters
 * shown as '?'. Only what those lines can hold is looked at (a tool input of megabytes costs what
 * a short one does).
 */
function wrapText(text: string, width: number, most: number): string[] {
  const out: string[] = [];
  const seen = text.slice(0, (width + 1) * most);
  for (const raw of seen.replace(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/g, '?').split('\n')) {
    let line = raw;
    while (out.length < most && textWidth(line) > width) {
      out.push(line.slice(0, width));
      line = line.slice(width);
    }
    if (out.length >= most) break;
    out.push(line);
  }
  return out;
}

function header(text: string, width: number): Row {
  const t = fit(` ${text}`, width);
  return [{ text: t + ' '.repeat(Math.max(0, width - textWidth(t))), attr: HEAD }];
}

const GLYPH: Record<BoardState, string> = { in_progress: '●', ready: '○', waiting: '◌', completed: '✓' };

/** The board to render: the snapshot's live one, or one built from its task list (a caller without a watch). */
function boardOf(s: SidebarData): BoardView<Task> {
  if (s.board) return s.board;
  const m = new BoardModel<Task>();
  m.reset(s.tasks);
  return m;
}

/** The task section: counts, then only the rows that fit (in progress, ready, waiting, completed; by id). */
function taskRows(s: SidebarData, width: number, budget: number): Row[] {
  const board = boardOf(s);
  const counts = board.counts();
  const rows: Row[] = [header(`TASKS ${board.size}  ●${counts.in_progress} ○${counts.ready} ◌${counts.waiting} ✓${counts.completed}`, width)];
  const room = Math.max(0, budget - 1 - (s.problems.length > 0 ? 1 : 0));
  for (const t of board.rows(room)) {
    const st = board.stateOf(t.id) ?? 'waiting';
    const who = t.owner ? ` @${t.owner}` : '';
    // A task blocked by its failed attempts waits for the lead (reopen, or a pipeline retry), not for other tasks.
    const deps = t.status === 'blocked' ? ' ✗blocked' : st === 'waiting' ? ` ⟵${t.blockedBy.join(',')}` : '';
    const lead = `${GLYPH[st]}${t.id.padStart(3)} `;
    const tail = `${verdictBadge(t.pipeline?.verdict)}${who}${deps}`;
    const subject = fit(t.subject, Math.max(1, width - textWidth(lead) - textWidth(tail)));
    rows.push([{ text: lead, attr: STATUS_STYLE[st]! }, { text: subject, attr: st === 'completed' ? DIM : PLAIN }, { text: tail, attr: DIM }]);
  }
  if (board.size > room && room > 0) rows[rows.length - 1] = [{ text: fit(`  … ${board.size - room + 1} more`, width), attr: DIM }];
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

function requestRows(s: SidebarData, width: number, budget: number, selected: string | null, notices: string[]): Row[] {
  const pending = pendingRequests(s);
  const rows: Row[] = [pending.length > 0 ? [{ text: fit(` ⚑ REQUESTS ${pending.length} pending`, width).padEnd(width), attr: style(C.black, C.yellow, { bold: true }) }] : header('REQUESTS 0 pending', width)];
  for (const n of notices.slice(0, Math.max(0, budget - 1))) rows.push([{ text: fit(n, width), attr: style(C.yellow) }]);
  for (const r of pending) {
    if (rows.length >= budget) break;
    const mark = r.id === selected ? '▶' : ' ';
    const kind = REQUEST_LABEL[r.type];
    const text = fit(`${mark}${kind} ${r.from}→${r.to}: ${shownPart(r.body, width).replace(/\s+/g, ' ')}`, width);
    rows.push([{ text: text + ' '.repeat(Math.max(0, width - textWidth(text))), attr: r.id === selected ? style(C.yellow, C.default, { inverse: true, bold: true }) : style(C.yellow, C.default, { bold: true }) }]);
    // A selected permission request is shown in full (up to the room there is): the operator answers what it reads.
    if (r.id === selected && r.type === 'permission') {
      for (const line of wrapText(permissionDetail(r), Math.max(1, width - 2), Math.max(0, budget - rows.length))) rows.push([{ text: fit(`  ${line}`, width), attr: DIM }]);
    }
  }
  const resolved = s.requests.filter((r) => r.status !== 'pending').slice(-3).reverse();
  for (const r of resolved) {
    if (rows.length >= budget) break;
    const why = r.response?.text ? ` — ${r.response.text}` : '';
    const who = r.type === 'shutdown' ? `shutdown ${r.to}` : `${REQUEST_LABEL[r.type]} ${r.from}`;
    rows.push([{ text: fit(` ${who}: ${r.status}${why}`, width), attr: r.status === 'approved' ? style(C.green, C.default, { dim: true }) : style(C.red, C.default, { dim: true }) }]);
  }
  return rows;
}

/** One line per member: a dot in the activity's colour, the name, what it is doing, a Claude Code member's budget note, tokens and cost. */
function rosterRows(s: SidebarData, o: SidebarOptions): Row[] {
  const pending = pendingRequests(s);
  const nameWidth = Math.min(12, Math.max(4, ...s.roster.map((m) => textWidth(m.name))));
  const spent = spentMembers(s.budget);
  return s.roster.map((m) => {
    const hooks = s.claude?.[m.name];
    const a = o.activities?.get(m.name) ?? memberActivity({ name: m.name, runtime: m.runtime, status: m.reportedStatus, exitCode: m.exitCode, pending, hooks: hooks?.state });
    const name = fit(m.name, nameWidth).padEnd(nameWidth);
    // A member whose own budget is spent says so first: it is not calling its model. A Claude Code
    // member's label already says "(budget spent)" from its hooks' record.
    const mark = spent.has(m.name) && !hooks?.budget ? ' ✗budget' : '';
    const row: Row = [{ text: '● ', attr: activityStyle(a.kind) }, { text: name, attr: PLAIN }];
    if (mark) row.push({ text: fit(mark, Math.max(0, o.width - 2 - nameWidth)), attr: style(C.red, C.default, { bold: true }) });
    const work = s.work?.members[m.name];
    const counts = work && work.files > 0 ? ` +${work.added} −${work.removed} · ${work.files} file${work.files === 1 ? '' : 's'}` : '';
    const room = Math.max(0, o.width - 3 - nameWidth - textWidth(mark) - textWidth(counts));
    if (room > 0) row.push({ text: ` ${claudeUsageLabel(a.label, hooks, room)}`, attr: activityStyle(a.kind) });
    if (counts && o.width - 2 - nameWidth - textWidth(mark) > textWidth(counts)) row.push({ text: counts, attr: DIM });
    return row;
  }).concat(overlapRows(s.work, o.width));
}

/** The most overlap lines the roster shows (then "… N more"). */
const OVERLAPS_SHOWN = 3;

/** A yellow line per file two members both changed, naming them. */
function overlapRows(work: WorkSummary | null | undefined, width: number): Row[] {
  const all = work?.overlaps ?? [];
  const rows: Row[] = all.slice(0, OVERLAPS_SHOWN).map((o) => [{ text: fit(`  ⚠ overlap ${visible(o.path)}: ${o.members.join(' + ')}`, width), attr: style(C.yellow, C.default, { bold: true }) }]);
  if (all.length > OVERLAPS_SHOWN) rows.push([{ text: fit(`  ⚠ … ${all.length - OVERLAPS_SHOWN} more overlapping files (teamux worktree list)`, width), attr: style(C.yellow, C.default) }]);
  return rows;
}

/** Render the sidebar. */
export function renderSidebar(s: SidebarData, o: SidebarOptions): Row[] {
  const rows: Row[] = [];
  rows.push([{ text: fit(`teamux · ${s.team}`, o.width), attr: style(C.cyan, C.default, { bold: true }) }]);
  if (s.pipeline) rows.push(pipelineLineRow(s.pipeline, o.width));
  if (s.budget) rows.push(budgetLineRow(s.budget, o.width));
  // The roster gets up to a third of the height; a longer team ends with "… N more".
  const roster = rosterRows(s, o);
  const rosterRoom = Math.max(1, Math.floor(o.height / 3));
  if (roster.length > rosterRoom) roster.splice(rosterRoom - 1, roster.length, [{ text: fit(`  … ${roster.length - rosterRoom + 1} more`, o.width), attr: DIM }]);
  rows.push(...roster);
  if (s.claudeTeam) rows.push(...claudeTeamRows(s.claudeTeam, o.width, Math.max(2, Math.floor((o.height - rows.length) / 3))));
  const left = o.height - rows.length;
  const pendingCount = pendingRequests(s).length;
  // Pending requests wait for the person: their section comes first.
  const sections = pendingCount > 0 && o.sections.includes('requests') ? ['requests' as const, ...o.sections.filter((x) => x !== 'requests')] : o.sections;
  const n = sections.length;
  if (n === 0 || left <= 0) return rows.slice(0, o.height);
  // Requests get what they need (up to a third); mail a third; tasks the rest.
  const budgets = new Map<SidebarSection, number>();
  const resolvedShown = Math.min(3, s.requests.length - pendingCount);
  const selected = pendingRequests(s).find((r) => r.id === o.selectedRequest && r.type === 'permission');
  // A selected permission request may take half the column to be read in full.
  const detail = selected ? wrapText(permissionDetail(selected), Math.max(1, o.width - 2), o.height).length : 0;
  const reqNeed = Math.min(Math.max(2, Math.floor(left / (detail ? 2 : 3))), 1 + o.notices.length + pendingCount + resolvedShown + detail);
  if (sections.includes('requests')) budgets.set('requests', reqNeed);
  if (sections.includes('mailbox')) budgets.set('mailbox', Math.max(2, Math.min(Math.floor(left / 3), 1 + s.traffic.length)));
  const used = [...budgets.values()].reduce((a, b) => a + b, 0);
  if (sections.includes('task_board')) budgets.set('task_board', Math.max(2, left - used));
  for (const sec of sections) {
    const budget = Math.min(budgets.get(sec) ?? 0, o.height - rows.length);
    if (budget <= 0) continue;
    if (sec === 'task_board') rows.push(...taskRows(s, o.width, budget).slice(0, budget));
    else if (sec === 'mailbox') rows.push(...trafficRows(s.traffic, o.width, budget).slice(0, budget));
    else rows.push(...requestRows(s, o.width, budget, o.selectedRequest, o.notices).slice(0, budget));
  }
  return rows.slice(0, o.height);
}
