/**
 * The web view's pages as markup, pure: the shell (navigation, the live marker, the stylesheet and the
 * one script, both served from /static), the team page (pending requests first, then the roster with
 * state, tokens and cost, the budget and pipeline lines) and a request in full with its answer forms.
 * Every piece of team data goes through `html`, which escapes it. Forms post without script; the
 * script only swaps in fresh page bodies pushed by the server.
 */
import { waitsForOperator } from '../protocol/operator.js';
import type { ProtocolRequest } from '../protocol/types.js';
import { budgetLineText } from '../ui/budget-line.js';
import { html, seg, type Html } from './html.js';
import { markdownHtml } from './markdown.js';
import { activityOf, requestTitle, revisionOf, spendOf, type WebData } from './view.js';

/** What the shell needs besides the body. */
export interface Shell {
  team: string;
  /** The current path, for the navigation's marker and the live stream. */
  path: string;
  /** Asset URLs with their content digests. */
  css: string;
  js: string;
}

const NAV: ReadonlyArray<[string, string]> = [['/', 'Team'], ['/board', 'Board'], ['/traffic', 'Traffic'], ['/events', 'Events'], ['/timeline', 'Timeline']];

/** A whole page around a body. */
export function page(shell: Shell, title: string, body: Html): Html {
  const here = shell.path.split('?')[0];
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · teamux: ${shell.team}</title>
<link rel="stylesheet" href="${shell.css}"><script src="${shell.js}" defer></script></head>
<body data-live="${shell.path}">
<header><span class="brand">teamux</span> <b>${shell.team}</b>
<nav>${NAV.map(([href, name]) => html`<a href="${href}"${here === href ? html` aria-current="page"` : ''}>${name}</a>`)}</nav>
<span id="live" class="live" title="live updates">●</span></header>
<main id="main">${body}</main>
</body></html>`;
}

/** A short line about the request for lists: who asks what, and since when. */
function requestItem(r: ProtocolRequest): Html {
  const first = r.body.split('\n').find((l) => l.trim() !== '') ?? '';
  return html`<li class="req ${r.type}"><a href="/requests/${seg(r.id)}"><b>${requestTitle(r)}</b> <span class="dim">→ ${r.to} · ${r.createdAt.slice(11, 19)}</span><br><span class="excerpt">${first.slice(0, 160)}</span></a></li>`;
}

/** The team page's body. */
export function teamBody(d: WebData): Html {
  const s = d.snapshot;
  const waiting = s.requests.filter(waitsForOperator);
  const otherPending = s.requests.filter((r) => r.status === 'pending' && !waitsForOperator(r));
  const counts = { done: 0, working: 0, open: 0 };
  for (const t of s.tasks) {
    if (t.status === 'completed') counts.done++;
    else if (t.status === 'in_progress') counts.working++;
    else if (t.status !== 'deleted') counts.open++;
  }
  return html`<section class="waiting"><h2>Waiting for you <span class="count">${waiting.length}</span></h2>
${waiting.length ? html`<ul class="reqs">${waiting.map(requestItem)}</ul>` : html`<p class="dim">Nothing waits for an answer.</p>`}
${otherPending.length ? html`<h3>Other open requests</h3><ul class="reqs">${otherPending.map(requestItem)}</ul>` : ''}</section>
<section><h2>Members</h2>
<table class="roster"><thead><tr><th>member</th><th>state</th><th>tokens · cost</th><th>role</th></tr></thead><tbody>
${s.roster.map((m) => {
  const a = activityOf(d, m.name);
  return html`<tr><td><b>${m.name}</b>${m.kind === 'lead' ? html` <span class="tag">lead</span>` : ''}${d.worktrees?.has(m.name) ? html` <a class="tag" href="/members/${seg(m.name)}/diff">diff</a>` : ''}</td><td class="st ${a.kind}">${a.label}</td><td>${spendOf(d, m.name) || '—'}</td><td class="dim">${m.role}</td></tr>`;
})}
</tbody></table>
${s.budget ? html`<p class="budget">${budgetLineText(s.budget)}</p>` : ''}
${s.store ? html`<p class="dim">store: ${s.store.state} ${s.store.detail}</p>` : ''}
<p class="tasks">Tasks: ${counts.done} done · ${counts.working} in progress · ${counts.open} open — <a href="/board">board</a> · <a href="/timeline">timeline</a></p></section>
${s.problems.length ? html`<section class="problems"><h2>Files that did not read</h2><ul>${s.problems.slice(0, 20).map((p) => html`<li><code>${p.path}</code>: ${p.message}</li>`)}</ul></section>` : ''}`;
}

/** What the answer forms need: the CSRF token of this browser's session. */
export interface FormContext {
  csrf: string;
  /** A word about the last answer, from the redirect after a post ("approved", "refused: …"). */
  notice?: string | null;
}

/** A request in full, with its answer forms while the person may answer it. */
export function requestBody(d: WebData, r: ProtocolRequest, f: FormContext): Html {
  const kind = r.type === 'plan_approval' ? 'plan' : r.type === 'permission' ? 'permission request' : 'shutdown request';
  const yes = r.type === 'permission' ? 'Allow' : 'Approve';
  const no = r.type === 'permission' ? 'Deny' : 'Reject';
  const hidden = html`<input type="hidden" name="csrf" value="${f.csrf}"><input type="hidden" name="rev" value="${revisionOf(r)}">`;
  const forms = waitsForOperator(r)
    ? html`<div class="answer">
<form method="post" action="/requests/${seg(r.id)}/answer" class="yes">${hidden}<input type="hidden" name="decision" value="approve"><button type="submit" class="ok">${yes}</button></form>
<form method="post" action="/requests/${seg(r.id)}/answer" class="no">${hidden}<input type="hidden" name="decision" value="reject">
<label>feedback <textarea name="feedback" rows="3" required maxlength="4000" placeholder="what to change"></textarea></label><button type="submit" class="bad">${no} with feedback</button></form></div>`
    : r.status === 'pending' ? html`<p class="dim">This request waits for ${r.to}, not for you.</p>` : '';
  const input = r.type === 'permission' && r.payload?.['input'] !== undefined ? html`<h3>Input</h3><pre class="code">${JSON.stringify(r.payload['input'], null, 2)}</pre>` : '';
  return html`<article class="request">
${f.notice ? html`<p class="notice">${f.notice}</p>` : ''}
<h2>${kind} from ${r.from} to ${r.to} · <span class="status ${r.status}">${r.status}</span></h2>
<p class="dim">${r.id} · opened ${r.createdAt.replace('T', ' ').slice(0, 19)}</p>
${r.response ? html`<p class="dim">answered by ${r.response.by}: ${r.response.approve ? 'approved' : 'rejected'}${r.response.text ? ` — ${r.response.text}` : ''}</p>` : ''}
${forms}
${markdownHtml(r.body || '(no text)')}
${input}
</article>`;
}
