/**
 * The web view's list pages as markup, pure: the board (a column per status, each task with its owner,
 * blocks and blockedBy), the traffic (messages, newest first, paged), the events (newest first, paged)
 * and the timeline (web/timeline-svg.ts over protocol/timeline.ts). Every piece of team data is escaped.
 */
import { buildTimeline } from '../protocol/timeline.js';
import type { TeamEvent } from '../protocol/types.js';
import { html, seg, type Html } from './html.js';
import { timelineSvg } from './timeline-svg.js';
import { eventLine, type WebData } from './view.js';

/** Rows a list page shows at once. */
export const PAGE_ROWS = 50;
/** Tasks a board column shows before "… N more" (the page stays light at 5k tasks). */
export const COLUMN_TASKS = 200;

const COLUMNS: ReadonlyArray<[string, string]> = [['pending', 'Pending'], ['in_progress', 'In progress'], ['blocked', 'Blocked'], ['completed', 'Done']];

/** The board's body: a column per status. */
export function boardBody(d: WebData): Html {
  const by = new Map<string, WebData['snapshot']['tasks']>();
  for (const t of d.snapshot.tasks) (by.get(t.status) ?? by.set(t.status, []).get(t.status)!).push(t);
  return html`<div class="board">${COLUMNS.map(([status, title]) => {
    const tasks = by.get(status) ?? [];
    return html`<section class="col ${status}"><h2>${title} <span class="count">${tasks.length}</span></h2>
${tasks.slice(0, COLUMN_TASKS).map((t) => html`<div class="task${t.ready ? ' ready' : ''}" id="task-${seg(t.id)}"><span class="id">#${t.id}</span> ${t.subject}
<div class="meta">${t.owner ? html`<span class="owner">${t.owner}</span>` : ''}${t.blockedBy.length ? html` <span class="dep">after ${t.blockedBy.map((b) => html`<a href="#task-${seg(b)}">#${b}</a> `)}</span>` : ''}${t.blocks.length ? html` <span class="dep">blocks ${t.blocks.map((b) => html`<a href="#task-${seg(b)}">#${b}</a> `)}</span>` : ''}${t.pipeline ? html` <span class="tag">${t.pipeline.stage}</span>` : ''}</div></div>`)}
${tasks.length > COLUMN_TASKS ? html`<p class="dim">… ${tasks.length - COLUMN_TASKS} more</p>` : ''}</section>`;
  })}</div>`;
}

/** Page `n` (1-based) of a list newest first, with links to the pages beside it. */
function paged(events: readonly TeamEvent[], n: number, path: string, empty: string, row: (e: TeamEvent) => Html): Html {
  const pages = Math.max(1, Math.ceil(events.length / PAGE_ROWS));
  const at = Math.min(Math.max(1, n), pages);
  const newestFirst = events.slice(Math.max(0, events.length - at * PAGE_ROWS), events.length - (at - 1) * PAGE_ROWS).reverse();
  const links = html`<p class="pager">${at > 1 ? html`<a href="${path}?page=${at - 1}">← newer</a>` : ''} page ${at} of ${pages} ${at < pages ? html`<a href="${path}?page=${at + 1}">older →</a>` : ''}</p>`;
  return events.length === 0 ? html`<p class="dim">${empty}</p>` : html`<ol class="list">${newestFirst.map(row)}</ol>${links}`;
}

/** The traffic's body: messages newest first. */
export function trafficBody(events: readonly TeamEvent[], n: number): Html {
  const sent = events.filter((e) => e.type === 'message_sent');
  return html`<h2>Traffic</h2>${paged(sent, n, '/traffic', 'No message yet.', (e) => html`<li><span class="time">${e.time.slice(11, 19)}</span> <b>${String(e['from'] ?? '')}</b> → <b>${String(e['to'] ?? '')}</b> <span class="tag">${String(e['messageType'] ?? '')}</span> ${String(e['excerpt'] ?? '')}</li>`)}`;
}

/** The events' body: every event newest first. */
export function eventsBody(events: readonly TeamEvent[], n: number): Html {
  return html`<h2>Events</h2>${paged(events, n, '/events', 'No event yet.', (e) => html`<li><span class="time">${e.time.slice(11, 19)}</span> <span class="ev ${e.type}">${eventLine(e)}</span></li>`)}`;
}

/** The timeline's body. */
export function timelineBody(d: WebData): Html {
  const t = buildTimeline(d.snapshot.tasks, d.snapshot.requests, d.snapshot.roster.map((m) => m.name), d.now);
  return html`<h2>Timeline</h2>
<p class="legend"><span class="sw ok"></span>completed <span class="sw bad"></span>failed / abandoned <span class="sw mid"></span>released <span class="sw run"></span>running <span class="sw wait"></span>waiting for an answer <span class="sw idle"></span>idle</p>
${timelineSvg(t)}`;
}

/** Lines of a patch the diff page shows (the rest is for `teamux diff NAME`). */
export const DIFF_LINES = 5000;

/** What the diff page shows of a member's work. */
export interface DiffView {
  member: string;
  branch: string;
  base: string;
  commits: number;
  added: number;
  removed: number;
  files: ReadonlyArray<{ path: string; added: number | null; removed: number | null; untracked?: true }>;
  patch: string;
}

/** A member's diff, read-only: the files with their counts, then the patch coloured by line. */
export function diffBody(d: DiffView): Html {
  const lines = d.patch.split('\n');
  const shown = lines.slice(0, DIFF_LINES);
  const cls = (l: string): string => (l.startsWith('+++') || l.startsWith('---') || l.startsWith('diff ') || l.startsWith('index ') ? 'fh' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('@@') ? 'hunk' : '');
  return html`<h2>${d.member}'s work <span class="dim">${d.branch} against ${d.base}</span></h2>
<p>+${d.added} −${d.removed} · ${d.files.length} file${d.files.length === 1 ? '' : 's'} · ${d.commits} commit${d.commits === 1 ? '' : 's'} <span class="dim">(merge or discard it on the screen, or with teamux merge / discard)</span></p>
<table class="files"><tbody>${d.files.map((f) => html`<tr><td><code>${f.path}</code>${f.untracked ? html` <span class="tag">new</span>` : ''}</td><td class="add">${f.added === null ? 'binary' : `+${f.added}`}</td><td class="del">${f.removed === null ? '' : `−${f.removed}`}</td></tr>`)}</tbody></table>
<pre class="diff">${shown.map((l) => html`<span class="${cls(l)}">${l}</span>\n`)}</pre>
${lines.length > DIFF_LINES ? html`<p class="dim">… ${lines.length - DIFF_LINES} more lines: teamux diff ${d.member}</p>` : ''}`;
}
