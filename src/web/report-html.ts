/**
 * `teamux report --html`: the report as one self-contained file (styles inline, no script, nothing
 * fetched) — the headline figures, the timeline of the run drawn as in the web view, and the tables
 * of the Markdown report (done, blocked, verdicts, members). Every piece of team data is escaped. Pure.
 */
import { formatTokens, formatUsd } from '../protocol/pricing.js';
import type { TeamReport } from '../protocol/report.js';
import type { Timeline } from '../protocol/timeline.js';
import { PAGE_CSS } from './assets.js';
import { html } from './html.js';
import { timelineSvg } from './timeline-svg.js';

function took(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms) || ms < 0) return '-';
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** The whole file. */
export function reportHtml(r: TeamReport, t: Timeline): string {
  const k = r.tasks;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>teamux report: ${r.team}</title><style>${PAGE_CSS}</style></head>
<body><header><span class="brand">teamux</span> <b>${r.team}</b> <span class="dim">report generated ${r.generatedAt}</span></header>
<main>
<ul>
<li>Tasks: ${k.total} — ${k.completed} done, ${k.inProgress} in progress, ${k.pending} pending, ${k.blocked} blocked${k.deleted ? ` (${k.deleted} deleted)` : ''}</li>
<li>${r.span.start ? `Work ran from ${r.span.start} to ${r.span.end} (${took(r.span.ms)}).` : 'No task was claimed.'}</li>
<li>Parallelism: peak ${r.parallelism.peak} worker${r.parallelism.peak === 1 ? '' : 's'} at once, average ${r.parallelism.average.toFixed(2)}; someone was busy for ${took(r.parallelism.busyMs)}</li>
<li>Spend: ${formatTokens(r.total.input)} tokens in, ${formatTokens(r.total.output)} out${r.total.usd === null ? '' : `, ${formatUsd(r.total.usd)} (estimated where the tool did not report it)`}</li>
${r.pipeline ? html`<li>Pipeline: ${r.pipeline.status} at ${r.pipeline.stage}${r.pipeline.reason ? ` — ${r.pipeline.reason}` : ''}; ${r.pipeline.fixRounds} fix round${r.pipeline.fixRounds === 1 ? '' : 's'}</li>` : ''}
</ul>
<h2>Timeline</h2>
<p class="legend"><span class="sw ok"></span>completed <span class="sw bad"></span>failed / abandoned <span class="sw mid"></span>released <span class="sw run"></span>running <span class="sw wait"></span>waiting for an answer <span class="sw idle"></span>idle</p>
${timelineSvg(t, 1000, true)}
<h2>Done</h2>
${r.done.length === 0 ? html`<p class="dim">Nothing yet.</p>` : html`<table><thead><tr><th>task</th><th>subject</th><th>by</th><th>attempts</th><th>took</th></tr></thead><tbody>${r.done.map((d) => html`<tr><td>#${d.id}</td><td>${d.subject}</td><td>${d.owner ?? '-'}</td><td>${d.attempts}</td><td>${took(d.ms)}</td></tr>`)}</tbody></table>`}
${r.blocked.length ? html`<h2>Blocked</h2><table><thead><tr><th>task</th><th>subject</th><th>attempts</th><th>why</th></tr></thead><tbody>${r.blocked.map((b) => html`<tr><td>#${b.id}</td><td>${b.subject}</td><td>${b.attempts}</td><td>${b.reason ?? '-'}</td></tr>`)}</tbody></table>` : ''}
${r.verdicts.length ? html`<h2>Verdicts</h2><table><thead><tr><th>task</th><th>story</th><th>round</th><th>verdict</th><th>by</th><th>findings</th></tr></thead><tbody>${r.verdicts.map((v) => html`<tr><td>#${v.task}</td><td>${v.story ?? '-'}</td><td>${v.round}</td><td>${v.verdict}</td><td>${v.by ?? '-'}</td><td>${v.findings}</td></tr>`)}</tbody></table>` : ''}
<h2>Members</h2>
<table><thead><tr><th>member</th><th>runtime</th><th>done</th><th>attempts</th><th>failed</th><th>abandoned</th><th>busy</th><th>tokens in</th><th>tokens out</th><th>cost</th></tr></thead><tbody>
${r.members.map((m) => html`<tr><td>${m.name}</td><td>${m.runtime}</td><td>${m.completed}</td><td>${m.attempts}</td><td>${m.failed}</td><td>${m.abandoned}</td><td>${took(m.busyMs)}</td><td>${formatTokens(m.spend.input + m.spend.cacheRead + m.spend.cacheWrite)}</td><td>${formatTokens(m.spend.output)}</td><td>${m.spend.usd === null ? '-' : formatUsd(m.spend.usd)}</td></tr>`)}
</tbody></table>
</main></body></html>
`.text;
}
