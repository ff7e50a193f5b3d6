// The state machine's CLI verbs (task fail, reopen, reassign, edit, delete) and attempts in
// `task show`: exit 0 with one line, 3 with reason illegal_transition naming the states, 1 with a
// one-line message and a hint for bad arguments, never a stack trace.
import { afterEach, describe, expect, it } from 'vitest';
import { cli, makeTeam } from '../helpers/team.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function team() {
  const t = await makeTeam(['amy', 'bob']);
  cleanup = t.cleanup;
  return { ...t, env: { TEAMUX_TEAM_DIR: t.dir } };
}

describe('task state machine on the command line', () => {
  it('cli.machine-verbs-walk-a-task-through-its-states', async () => {
    const { env, store } = await team();
    await cli(['task', 'add', '--subject', 'parser'], env);
    await cli(['task', 'add', '--subject', 'docs', '--blocked-by', '1'], env);
    expect((await cli(['task', 'claim', '1', '--as', 'amy'], env)).code).toBe(0);
    expect(await cli(['task', 'reassign', '1', '--to', 'bob', '--as', 'lead', '--reason', 'amy is stuck'], env)).toEqual({ code: 0, out: 'task 1 reassigned to bob (attempt 2)\n', err: '' });
    expect(await cli(['task', 'fail', '1', '--as', 'bob', '--reason', 'no spec'], env)).toEqual({ code: 0, out: 'task 1 is pending again (attempt 2 failed)\n', err: '' });
    expect((await cli(['task', 'claim', '1', '--as', 'amy'], env)).code).toBe(0);
    expect((await cli(['task', 'complete', '1', '--as', 'amy', '--result', 'merged'], env)).code).toBe(0);
    const reopened = await cli(['task', 'reopen', '1', '--reason', 'tests fail', '--json'], env);
    expect(reopened.code).toBe(0);
    expect(JSON.parse(reopened.out)).toMatchObject({ ok: true, id: '1', status: 'pending', owner: null, result: null });
    const show = await cli(['task', 'show', '1'], env);
    expect(show.out).toMatch(/attempts:\n {4}1\. amy .* reassigned for \d+s: amy is stuck\n {4}2\. bob .* failed for \d+s: no spec\n {4}3\. amy .* completed for \d+s: merged\n$/);
    const rev = (JSON.parse((await cli(['task', 'show', '2', '--json'], env)).out) as { revision: number }).revision;
    expect((await cli(['task', 'edit', '2', '--revision', String(rev), '--subject', 'user docs'], env)).out).toBe(`task 2 edited (revision ${rev + 1})\n`);
    expect(await cli(['task', 'delete', '1'], env)).toEqual({ code: 0, out: 'task 1 deleted; now ready: 2\n', err: '' });
    const list = JSON.parse((await cli(['task', 'list', '--json'], env)).out) as { tasks: Array<{ id: string }> };
    expect(list.tasks.map((t) => t.id)).toEqual(['2']);
    expect((JSON.parse((await cli(['task', 'list', '--status', 'deleted', '--json'], env)).out) as { tasks: Array<{ id: string }> }).tasks.map((t) => t.id)).toEqual(['1']);
    const { events } = await store.events.read();
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['task_reassigned', 'task_failed', 'task_reopened', 'task_deleted']));
  });

  it('cli.illegal-transitions-exit-3-naming-the-states', async () => {
    const { env } = await team();
    await cli(['task', 'add', '--subject', 'x'], env);
    const cases: Array<[string[], string]> = [
      [['task', 'reopen', '1'], 'cannot reopen task 1: it is pending, and reopen goes from completed or blocked to pending (it is open already)'],
      [['task', 'reassign', '1', '--to', 'bob'], 'cannot reassign task 1: it is pending, and reassign goes from in_progress to in_progress (claim it first)'],
      [['task', 'fail', '1', '--as', 'amy', '--reason', 'r'], 'cannot fail task 1: it is pending, and fail goes from in_progress to pending (claim it first)'],
      [['task', 'complete', '1', '--as', 'amy'], 'cannot complete task 1: it is pending, and complete goes from in_progress to completed (claim it first)'],
      [['task', 'release', '1', '--as', 'amy'], 'cannot release task 1: it is pending, and release goes from in_progress to pending (claim it first)'],
      [['task', 'update', '1', '--as', 'amy', '--revision', '1', '--status', 'completed'], 'cannot move task 1 from pending to completed with an update (claim it first, then complete it)'],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv, env);
      expect(r, argv.join(' ')).toEqual({ code: 3, out: '', err: `teamux: refused (illegal_transition): ${message}\n` });
      expect(JSON.parse((await cli([...argv, '--json'], env)).out)).toEqual({ ok: false, reason: 'illegal_transition', message });
    }
    await cli(['task', 'delete', '1'], env);
    const r = await cli(['task', 'claim', '1', '--as', 'amy', '--json'], env);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.out)).toMatchObject({ reason: 'illegal_transition', message: expect.stringContaining('it is deleted') });
  });

  it('cli.machine-verbs-bad-input-exits-1-with-one-line-and-a-hint', async () => {
    const { env } = await team();
    await cli(['task', 'add', '--subject', 'x'], env);
    await cli(['task', 'claim', '1', '--as', 'amy'], env);
    const cases: Array<[string[], RegExp]> = [
      [['task', 'reassign', '1'], /^teamux: missing --to\n {2}hint: name the member/],
      [['task', 'reassign', '1', '--to', 'zed'], /^teamux: "zed" is not a member of this team\n$/],
      [['task', 'reassign', '1', '--to', 'amy'], /^teamux: task 1 is already owned by amy\n$/],
      [['task', 'reassign', 'one', '--to', 'bob'], /^teamux: "one" is not a task id\n {2}hint: /],
      [['task', 'fail', '1', '--as', 'amy'], /^teamux: missing --reason\n {2}hint: /],
      [['task', 'fail', '1', '--reason', 'r'], /^teamux: say who is acting with --as NAME\n {2}hint: /],
      [['task', 'edit', '1', '--subject', 'y'], /^teamux: missing --revision\n {2}hint: /],
      [['task', 'edit', '1', '--revision', '2'], /^teamux: nothing to change\n {2}hint: /],
      [['task', 'edit', '1', '--revision', 'x', '--subject', 'y'], /^teamux: --revision "x" is not a positive whole number\n/],
      [['task', 'delete'], /^teamux: missing task id\n {2}hint: usage: task delete ID/],
      [['task', 'reopen', '1', '--bogus'], /^teamux: .*bogus.*\n/],
    ];
    for (const [argv, err] of cases) {
      const r = await cli(argv, env);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.err, argv.join(' ')).toMatch(err);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
    // Inside a member's pane the lead's verbs cannot act as someone else.
    const r = await cli(['task', 'reopen', '1', '--as', 'lead'], { ...env, TEAMUX_MEMBER: 'amy' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/cannot act as another member/);
  });
});

