/**
 * `teamux task …`: the task board from the command line, parsing arguments into calls of the shared
 * task ops (src/ops/tasks.ts). Every sub-command takes --json; protocol refusals (claim lost,
 * conflict, blocked) exit 3 with a `reason`.
 */
import type { OpContext } from '../ops/op.js';
import { VERDICTS, VerdictSchema, type CompletionFields } from '../protocol/pipeline.js';
import { createTask, taskClaim, taskComplete, taskGet, taskList, taskRelease, taskUpdate } from '../ops/tasks.js';
import { openBlockers } from '../protocol/tasks.js';
import { accept, TaskStatus, type Attempt, type Outcome, type Task } from '../protocol/types.js';
import { visible } from '../protocol/visible.js';
import type { TeamStore } from '../store/team.js';
import { actingAs, EXIT_OK, onePositional, openTeam, opContext, parse, report, taskIdArg, TEAM_OPTIONS, UsageError, type CliContext } from './context.js';
import { MACHINE_SUBVERBS } from './task-machine.js';
import type { SubVerb, Verb } from './verb.js';

const sub: SubVerb[] = [
  {
    name: 'add',
    usage: 'task add --subject S [--description D] [--blocked-by 1,2]',
    async run(ctx, argv) {
      const { values } = parse(argv, { ...TEAM_OPTIONS, subject: { type: 'string' }, description: { type: 'string' }, 'blocked-by': { type: 'string' } }, this.usage);
      if (!values.subject?.trim()) throw new UsageError('missing --subject', `usage: ${this.usage}`);
      const blockedBy = values['blocked-by'] ? values['blocked-by'].split(',').map((s) => taskIdArg(s.trim())) : [];
      const store = await openTeam(ctx, values['team-dir']);
      const r = await createTask.run({ subject: values.subject, description: values.description ?? '', blockedBy }, await nobody(store));
      return report(ctx, values.json, r, (t) => `created task ${t.id}: ${visible(t.subject)}`);
    },
  },
  {
    name: 'list',
    usage: 'task list [--status pending|in_progress|completed|blocked|deleted] [--ready]',
    async run(ctx, argv) {
      const { values } = parse(argv, { ...TEAM_OPTIONS, status: { type: 'string' }, ready: { type: 'boolean', default: false } }, this.usage);
      const status = values.status === undefined ? undefined : TaskStatus.safeParse(values.status);
      if (status && !status.success) throw new UsageError(`--status "${values.status}" is not a task status`, `use ${TaskStatus.options.join(', ')}`);
      const store = await openTeam(ctx, values['team-dir']);
      const listed = await taskList.run({ status: status?.data, ready: values.ready }, await nobody(store));
      if (!listed.ok) return report(ctx, values.json, listed, () => '');
      const { tasks, problems, index } = listed.value;
      for (const p of problems) ctx.err(`teamux: skipped ${visible(p.path)}: ${visible(p.message)}`);
      if (values.json) {
        ctx.out(JSON.stringify({ ok: true, tasks, problems }));
        return EXIT_OK;
      }
      if (tasks.length === 0) {
        ctx.out('no tasks');
        return EXIT_OK;
      }
      const rows = tasks.map((t) => [t.id, t.status, t.owner ?? '-', t.ready ? 'ready' : t.status === 'pending' ? `waits ${openBlockers(t, index).join(',') || '-'}` : '', t.subject]);
      ctx.out(table(['ID', 'STATUS', 'OWNER', 'READY', 'SUBJECT'], rows));
      return EXIT_OK;
    },
  },
  {
    name: 'show',
    usage: 'task show ID',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, TEAM_OPTIONS, this.usage);
      const id = taskIdArg(onePositional(positionals, 'task id', this.usage));
      const store = await openTeam(ctx, values['team-dir']);
      const r = await taskGet.run({ id }, await nobody(store));
      return report(ctx, values.json, r.ok ? accept(r.value.task) : r, describe);
    },
  },
  {
    name: 'claim',
    usage: 'task claim [ID] --as NAME',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, as: { type: 'string' } }, this.usage);
      if (positionals.length > 1) throw new UsageError('expected at most one task id', `usage: ${this.usage}`);
      const id = positionals[0] === undefined ? undefined : taskIdArg(positionals[0]);
      const as = actingAs(ctx, values.as);
      const store = await openTeam(ctx, values['team-dir']);
      const r = await runAs(store, as, (octx) => taskClaim.run({ id }, octx));
      return report(ctx, values.json, r, (t) => `${as} claimed task ${t.id}: ${visible(t.subject)} (revision ${t.revision})`);
    },
  },
  {
    name: 'update',
    usage: 'task update ID --as NAME --revision N [--status S] [--description D] [--subject S]',
    async run(ctx, argv) {
      const opts = { ...TEAM_OPTIONS, as: { type: 'string' }, revision: { type: 'string' }, status: { type: 'string' }, description: { type: 'string' }, subject: { type: 'string' } } as const;
      const { values, positionals } = parse(argv, opts, this.usage);
      const id = taskIdArg(onePositional(positionals, 'task id', this.usage));
      const as = actingAs(ctx, values.as);
      if (values.revision === undefined) throw new UsageError('missing --revision', 'updates are compare-and-set: pass the revision you read (`teamux task show ID`)');
      const revision = Number(values.revision);
      if (!Number.isInteger(revision) || revision < 1) throw new UsageError(`--revision "${values.revision}" is not a positive whole number`);
      const status = values.status === undefined ? undefined : TaskStatus.safeParse(values.status);
      if (status && !status.success) throw new UsageError(`--status "${values.status}" is not a task status`, `use ${TaskStatus.options.join(', ')}`);
      const store = await openTeam(ctx, values['team-dir']);
      const r = await runAs(store, as, (octx) => taskUpdate.run({ id, revision, status: status?.data, description: values.description, subject: values.subject }, octx));
      return report(ctx, values.json, r, (t) => `task ${t.id} updated to revision ${t.revision} (${t.status})`);
    },
  },
  {
    name: 'complete',
    usage: 'task complete ID --as NAME [--result TEXT] [--verdict V --finding "STORY: text" …] [--stories JSON] [--criteria JSON]',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, as: { type: 'string' }, result: { type: 'string' }, ...PIPELINE_OPTIONS }, this.usage);
      const id = taskIdArg(onePositional(positionals, 'task id', this.usage));
      const as = actingAs(ctx, values.as);
      const fields = pipelineFields(values);
      const store = await openTeam(ctx, values['team-dir']);
      const r = await runAs(store, as, (octx) => taskComplete.run({ id, result: values.result ?? '', ...fields } as Parameters<typeof taskComplete.run>[0], octx));
      return report(ctx, values.json, r, (v) => `task ${v.task.id} completed${v.nowReady.length ? `; now ready: ${v.nowReady.join(', ')}` : ''}`);
    },
  },
  {
    name: 'release',
    usage: 'task release ID --as NAME | task release --stale',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, as: { type: 'string' }, stale: { type: 'boolean', default: false } }, this.usage);
      const store = await openTeam(ctx, values['team-dir']);
      if (values.stale) {
        if (positionals.length > 0) throw new UsageError('--stale releases every task of exited members; do not give an id with it', `usage: ${this.usage}`);
        const r = await store.releaseStale();
        if (values.json) ctx.out(JSON.stringify({ ok: true, released: r.released }));
        else ctx.out(r.released.length === 0 ? 'no stale tasks' : r.released.map((t) => `released task ${t.id} (${visible(t.subject)})`).join('\n'));
        return EXIT_OK;
      }
      const id = taskIdArg(onePositional(positionals, 'task id', this.usage));
      const as = actingAs(ctx, values.as);
      return report(ctx, values.json, await runAs(store, as, (octx) => taskRelease.run({ id }, octx)), (t) => `task ${t.id} released`);
    },
  },
];

/** The options of `task complete` for pipeline tasks. */
const PIPELINE_OPTIONS = {
  verdict: { type: 'string' }, finding: { type: 'string', multiple: true }, stories: { type: 'string' }, criteria: { type: 'string' },
} as const;

/** Parse the pipeline options of `task complete` (bad input is a UsageError naming the option). */
function pipelineFields(values: { verdict?: string | undefined; finding?: string[] | undefined; stories?: string | undefined; criteria?: string | undefined }): CompletionFields {
  const out: CompletionFields = {};
  if (values.verdict !== undefined) {
    const v = VerdictSchema.safeParse(values.verdict);
    if (!v.success) throw new UsageError(`--verdict "${values.verdict}" is not a verdict`, `use one of ${VERDICTS.join(', ')}`);
    out.verdict = v.data;
  }
  if (values.finding?.length) {
    out.findings = values.finding.map((f) => {
      const m = /^([a-z0-9][a-z0-9_-]{0,31}):\s*(.+)$/s.exec(f);
      return m ? { story: m[1]!, severity: 'major' as const, text: m[2]! } : { severity: 'major' as const, text: f };
    });
  }
  for (const key of ['stories', 'criteria'] as const) {
    const raw = values[key];
    if (raw === undefined) continue;
    try {
      out[key] = JSON.parse(raw) as never;
    } catch (err) {
      throw new UsageError(`--${key} is not JSON: ${(err as Error).message}`, key === 'stories' ? `e.g. --stories '[{"id":"s1","subject":"Lexer","acceptance":["tokens for every operator"]}]'` : `e.g. --criteria '[{"story":"s1","checks":["npm test -- lexer"]}]'`);
    }
  }
  return out;
}
sub.push(...MACHINE_SUBVERBS);

export const taskVerb: Verb = {
  name: 'task',
  usage: sub.map((s) => s.usage),
  examples: [
    'teamux task add --subject "Write the parser" --blocked-by 1',
    'teamux task claim --as alice',
    'teamux task update 3 --as alice --revision 2 --description "now with tests"',
    'teamux task complete 3 --as alice --result "parser merged"',
    'teamux task complete 7 --as carol --verdict REVISE --finding "s2: no test for an empty file"',
    'teamux task release --stale',
    'teamux task fail 3 --as alice --reason "the API it needs is not there"',
    'teamux task reassign 3 --to bob --reason "alice is stuck"',
    'teamux task reopen 3 --reason "tests fail on main"',
    'teamux task delete 5',
  ],
  run: (ctx, argv) => dispatch('task', sub, ctx, argv),
};

/** Run the named sub-command. */
export async function dispatch(verb: string, subs: SubVerb[], ctx: CliContext, argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const s = subs.find((x) => x.name === name);
  if (!s) {
    const what = name === undefined ? `missing sub-command for "${verb}"` : `unknown sub-command "${verb} ${name}"`;
    throw new UsageError(what, `one of: ${subs.map((x) => x.name).join(', ')} (teamux ${verb} --help)`);
  }
  return s.run(ctx, rest);
}

/** Run an op as member `as`; an unknown member is a refusal, as from the store. */
export async function runAs<T>(store: TeamStore, as: string, op: (ctx: OpContext) => Promise<Outcome<T>>): Promise<Outcome<T>> {
  const octx = await opContext(store, as);
  return octx.ok ? op(octx.value) : octx;
}

/** The op context of a verb that acts as nobody (reads, task creation). */
async function nobody(store: TeamStore): Promise<OpContext> {
  const octx = await opContext(store, null);
  if (!octx.ok) throw new Error(octx.message);
  return octx.value;
}

/** A multi-line human description of a task, its attempts last. */
function describe(t: Task): string {
  return [
    `task ${t.id}: ${visible(t.subject)}`,
    `  status:     ${t.status}${t.owner ? ` (owner ${visible(t.owner)})` : ''}`,
    t.blockedReason ? `  blocked:    ${indented(t.blockedReason)}` : '',
    `  revision:   ${t.revision}`,
    `  blockedBy:  ${t.blockedBy.join(', ') || '-'}`,
    `  blocks:     ${t.blocks.join(', ') || '-'}`,
    t.description ? `  description: ${indented(t.description)}` : '',
    t.result ? `  result:     ${indented(t.result)}` : '',
    t.attempts.length ? `  attempts:\n${t.attempts.map((a, i) => `    ${attemptLine(a, i + 1)}`).join('\n')}` : '',
  ].filter(Boolean).join('\n');
}

/** One attempt on one line: number, owner, start, how long, outcome and note. */
function attemptLine(a: Attempt, n: number): string {
  const took = a.endedAt ? ` for ${duration(Date.parse(a.endedAt) - Date.parse(a.startedAt))}` : '';
  const end = a.outcome ? `${a.outcome}${took}` : 'in progress';
  return `${n}. ${visible(a.owner)}  ${a.startedAt}  ${end}${a.note ? `: ${visible(a.note)}` : ''}`;
}

/** A span of milliseconds as 4s, 3m12s or 2h05m. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Multi-line team text for a field of `task show`: control characters escaped, lines indented under it. */
function indented(text: string): string {
  return visible(text, { lines: true }).split('\n').join('\n      ');
}

/** Left-aligned columns; every cell is shown with its control characters escaped (newlines too). */
export function table(head: string[], cells: string[][]): string {
  const rows = cells.map((r) => r.map((c) => visible(c)));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]): string => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [fmt(head), ...rows.map(fmt)].join('\n');
}
