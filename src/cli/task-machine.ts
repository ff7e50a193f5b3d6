/**
 * `teamux task fail|reopen|reassign|edit|delete`: the state machine's transitions beyond claim,
 * update, complete and release, as sub-commands of `task` (src/cli/task.ts) calling the shared ops of
 * src/ops/tasks-machine.ts. The lead's transitions act as `--as NAME` (else $TEAMUX_MEMBER, else
 * nobody), which the event log records; an illegal move exits 3 with reason `illegal_transition`.
 */
import type { OpContext } from '../ops/op.js';
import { deleteTask, editTask, reassignTask, reopenTask, taskFail } from '../ops/tasks-machine.js';
import type { Outcome } from '../protocol/types.js';
import { visible } from '../protocol/visible.js';
import { actingAs, onePositional, openTeam, opContext, parse, report, taskIdArg, TEAM_OPTIONS, UsageError, type CliContext } from './context.js';
import type { SubVerb } from './verb.js';

const AS = { ...TEAM_OPTIONS, as: { type: 'string' } } as const;

/** The op context of a lead transition: the named member, or nobody when none is named. */
async function leadContext(ctx: CliContext, dir: string | undefined, as: string | undefined): Promise<Outcome<OpContext>> {
  const who = as !== undefined || ctx.env.TEAMUX_MEMBER ? actingAs(ctx, as) : null;
  return opContext(await openTeam(ctx, dir), who);
}

/** The sub-commands. */
export const MACHINE_SUBVERBS: SubVerb[] = [
  {
    name: 'fail',
    usage: 'task fail ID --as NAME --reason TEXT',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, { ...AS, reason: { type: 'string' } }, this.usage);
      const id = taskIdArg(onePositional(positionals, 'task id', this.usage));
      const as = actingAs(ctx, values.as);
      if (!values.reason?.trim()) throw new UsageError('missing --reason', 'say what went wrong, for whoever tries next');
      const octx = await leadContext(ctx, values['team-dir'], as);
      const r = octx.ok ? await taskFail.run({ id, reason: values.reason }, octx.value) : octx;
      return report(ctx, values.json, r, (t) => (t.status === 'blocked' ? `task ${t.id} is blocked: ${visible(t.blockedReason ?? '')}` : `task ${t.id} is pending again (attempt ${t.attempts.length} failed)`));
    },
  },
  {
    name: 'reopen',
    usage: 'task reopen ID [--reason TEXT] [--as NAME]',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, { ...AS, reason: { type: 'string' } }, this.usage);
      const id = taskIdArg(onePositional(positionals, 'task id', this.usage));
      const octx = await leadContext(ctx, values['team-dir'], values.as);
      const r = octx.ok ? await reopenTask.run({ id, reason: values.reason }, octx.value) : octx;
      return report(ctx, values.json, r, (t) => `task ${t.id} reopened (revision ${t.revision})`);
    },
  },
  {
    name: 'reassign',
    usage: 'task reassign ID --to NAME [--reason TEXT] [--as NAME]',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, { ...AS, to: { type: 'string' }, reason: { type: 'string' } }, this.usage);
      const id = taskIdArg(onePositional(positionals, 'task id', this.usage));
      if (!values.to) throw new UsageError('missing --to', 'name the member who takes the task over');
      const octx = await leadContext(ctx, values['team-dir'], values.as);
      const r = octx.ok ? await reassignTask.run({ id, to: values.to, reason: values.reason }, octx.value) : octx;
      return report(ctx, values.json, r, (t) => `task ${t.id} reassigned to ${visible(t.owner ?? '-')} (attempt ${t.attempts.length})`);
    },
  },
  {
    name: 'edit',
    usage: 'task edit ID --revision N [--subject S] [--description D] [--as NAME]',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, { ...AS, revision: { type: 'string' }, subject: { type: 'string' }, description: { type: 'string' } }, this.usage);
      const id = taskIdArg(onePositional(positionals, 'task id', this.usage));
      if (values.revision === undefined) throw new UsageError('missing --revision', 'edits are compare-and-set: pass the revision you read (`teamux task show ID`)');
      const revision = Number(values.revision);
      if (!Number.isInteger(revision) || revision < 1) throw new UsageError(`--revision "${values.revision}" is not a positive whole number`);
      if (values.subject === undefined && values.description === undefined) throw new UsageError('nothing to change', 'give --subject and/or --description');
      if (values.subject !== undefined && !values.subject.trim()) throw new UsageError('--subject cannot be empty');
      const octx = await leadContext(ctx, values['team-dir'], values.as);
      const r = octx.ok ? await editTask.run({ id, revision, subject: values.subject, description: values.description }, octx.value) : octx;
      return report(ctx, values.json, r, (t) => `task ${t.id} edited (revision ${t.revision})`);
    },
  },
  {
    name: 'delete',
    usage: 'task delete ID [--as NAME]',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, AS, this.usage);
      const id = taskIdArg(onePositional(positionals, 'task id', this.usage));
      const octx = await leadContext(ctx, values['team-dir'], values.as);
      const r = octx.ok ? await deleteTask.run({ id }, octx.value) : octx;
      return report(ctx, values.json, r, (v) => `task ${v.task.id} deleted${v.nowReady.length ? `; now ready: ${v.nowReady.join(', ')}` : ''}`);
    },
  },
];
