/**
 * `teamux report`: what a team did, as Markdown (or `--json`, or `--html`: one self-contained file with the run's timeline): tasks done and blocked, stories and
 * verdicts when the team ran a pipeline, the parallelism achieved, durations, and tokens and cost
 * per member. It reads a running team, a finished one, or an archive (`--team-dir`); the numbers
 * come from protocol/report.ts, the spend from each member's records (store/usage.ts), dollars
 * estimated from the price table where the member's tool did not report them.
 */
import { estimateCost, formatTokens, formatUsd } from '../protocol/pricing.js';
import { buildReport, type Spend, type TeamReport } from '../protocol/report.js';
import { buildTimeline } from '../protocol/timeline.js';
import { visible } from '../protocol/visible.js';
import { reportHtml } from '../web/report-html.js';
import { recordedSpend } from '../store/usage.js';
import { EXIT_OK, openTeam, parse, TEAM_OPTIONS, UsageError } from './context.js';
import { duration } from './task.js';
import { workRows, type WorkRow } from '../ops/worktree-report.js';
import { WorktreeRecord } from '../store/worktrees.js';
import { cliGit } from './worktrees-run.js';
import type { Verb } from './verb.js';

export const reportVerb: Verb = {
  name: 'report',
  usage: ['report [--team-dir DIR] [--json | --html]'],
  examples: ['teamux report', 'teamux report --json --team-dir .teamux/archive/demo-20261201-154703', 'teamux report --html > report.html   # one file, with the timeline'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, html: { type: 'boolean', default: false } }, this.usage[0]!);
    if (values.html && values.json) throw new UsageError('--html and --json both asked for', 'choose one');
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${visible(positionals[0]!)}"`, `usage: ${this.usage[0]!}`);
    const store = await openTeam(ctx, values['team-dir']);
    const cfg = await store.config();
    const board = await store.tasks.snapshot();
    for (const p of board.problems) ctx.err(`teamux: skipped ${visible(p.path)}: ${visible(p.message)}`);
    const members = await Promise.all(cfg.members.map(async (m) => {
      const r = await recordedSpend(store.paths, m.name);
      const usd = r.usd ?? (r.model && r.source === 'transcript' ? estimateCost(r.model, r) : null);
      const spend: Spend = { model: r.model, input: r.input, output: r.output, cacheRead: r.cacheRead, cacheWrite: r.cacheWrite, usd };
      return { name: m.name, runtime: m.runtime, spend };
    }));
    // A pipeline whose files do not read is reported from its tasks alone, with the problem said.
    const piped = store.pipeline.active() ? await store.pipeline.load() : null;
    if (piped && !piped.ok) ctx.err(`teamux: ${visible(piped.message)}`);
    const report = buildReport(cfg.name, board.tasks, members, Date.now(), piped?.ok ? piped.value.state : null);
    if (values.html) {
      const { requests } = await store.requests.list();
      ctx.out(reportHtml(report, buildTimeline(board.tasks, requests, cfg.members.map((m) => m.name), Date.now())));
      return EXIT_OK;
    }
    const book = await new WorktreeRecord(store.dir).read();
    if (!book.ok) ctx.err(`teamux: ${visible(book.message)}`);
    const work = book.ok && book.book ? await workRows(cliGit(ctx.env), book.book) : [];
    ctx.out(values.json ? JSON.stringify({ ok: true, ...report, work, problems: board.problems }) : `${markdown(report)}${workMarkdown(work)}`);
    return EXIT_OK;
  },
};

/** Team text in a Markdown table cell: control characters escaped, pipes too. */
function cell(s: string): string {
  return visible(s).replace(/\|/g, '\\|');
}

/** The members' work (layout `worktrees:`) as a Markdown section; empty without worktrees. */
export function workMarkdown(rows: readonly WorkRow[]): string {
  if (rows.length === 0) return '';
  const lines = ['', '', '## Work', '', '| member | branch | commits | files | lines | merged | worktree |', '|---|---|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.member} | ${cell(r.branch)} | ${r.commits} | ${r.files} | +${r.added} −${r.removed} | ${r.merged ? 'yes' : 'no'}${r.note ? ` (${cell(r.note)})` : ''} | ${r.retired ? 'removed' : 'live'} |`);
  return lines.join('\n');
}

/** The report as Markdown; team text is shown with control characters escaped. */
export function markdown(r: TeamReport): string {
  const t = r.tasks;
  const lines = [
    `# Team ${r.team}: report`,
    '',
    `Generated ${r.generatedAt}. ${r.span.start ? `Work ran from ${r.span.start} to ${r.span.end} (${duration(r.span.ms)}).` : 'No task was claimed.'}`,
    '',
    `- Tasks: ${t.total} — ${t.completed} done, ${t.inProgress} in progress, ${t.pending} pending, ${t.blocked} blocked${t.deleted ? ` (${t.deleted} deleted)` : ''}`,
    `- Parallelism: peak ${r.parallelism.peak} worker${r.parallelism.peak === 1 ? '' : 's'} at once, average ${r.parallelism.average.toFixed(2)} over the span; someone was busy for ${duration(r.parallelism.busyMs)}`,
    `- Spend: ${formatTokens(r.total.input)} tokens in, ${formatTokens(r.total.output)} out${r.total.usd === null ? '' : `, ${formatUsd(r.total.usd)} (estimated where the tool did not report it)`}`,
  ];
  if (r.pipeline) {
    const n = (st: string): number => r.stories.filter((s) => s.status === st).length;
    lines.push(`- Pipeline: ${r.pipeline.status} at ${r.pipeline.stage}${r.pipeline.reason ? ` — ${cell(r.pipeline.reason)}` : ''}; stories ${n('done')} done, ${n('blocked')} blocked, ${n('open')} open; ${r.pipeline.fixRounds} fix round${r.pipeline.fixRounds === 1 ? '' : 's'}`);
  }
  if (r.stories.length) {
    lines.push('', '## Stories', '', '| story | status | tasks | why |', '|---|---|---|---|');
    for (const s of r.stories) lines.push(`| ${cell(s.story)} | ${s.status} | ${s.tasks.join(', ')} | ${cell(s.reason ?? '-')} |`);
  }
  if (r.verdicts.length) {
    lines.push('', `## Verdicts (${r.rounds} fix round${r.rounds === 1 ? '' : 's'})`, '', '| task | story | round | verdict | by | findings |', '|---|---|---|---|---|---|');
    for (const v of r.verdicts) lines.push(`| ${v.task} | ${cell(v.story ?? '-')} | ${v.round} | ${v.verdict} | ${cell(v.by ?? '-')} | ${v.findings} |`);
  }
  lines.push('', '## Done', '');
  if (r.done.length === 0) lines.push('Nothing yet.');
  else {
    lines.push('| task | subject | by | attempts | took |', '|---|---|---|---|---|');
    for (const d of r.done) lines.push(`| ${d.id} | ${cell(d.subject)} | ${cell(d.owner ?? '-')} | ${d.attempts} | ${d.ms === null ? '-' : duration(d.ms)} |`);
  }
  if (r.blocked.length) {
    lines.push('', '## Blocked', '', '| task | subject | attempts | why |', '|---|---|---|---|');
    for (const b of r.blocked) lines.push(`| ${b.id} | ${cell(b.subject)} | ${b.attempts} | ${cell(b.reason ?? '-')} |`);
  }
  lines.push('', '## Members', '', '| member | runtime | done | attempts | failed | abandoned | busy | tokens in | tokens out | cost |', '|---|---|---|---|---|---|---|---|---|---|');
  for (const m of r.members) {
    const s = m.spend;
    lines.push(`| ${m.name} | ${m.runtime} | ${m.completed} | ${m.attempts} | ${m.failed} | ${m.abandoned} | ${duration(m.busyMs)} | ${formatTokens(s.input + s.cacheRead + s.cacheWrite)} | ${formatTokens(s.output)} | ${s.usd === null ? '-' : formatUsd(s.usd)} |`);
  }
  return lines.join('\n');
}
