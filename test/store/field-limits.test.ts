// Field limits (docs/protocol.md §12, attack 7): a gated member could, through MCP task_update and
// without a shell, give tasks 9.5 MB subjects that made every board change cost the screen seconds.
// The store holds every text field to protocol/limits.ts at write, whatever the entrance (MCP here,
// the CLI, the store API the agent tools and the screen use); a task file written by hand past the
// limits is a problem, not a task; and the sidebar measures only what it can show.
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { FIELD_LIMITS } from '../../src/protocol/limits.js';
import type { Task } from '../../src/protocol/types.js';
import { renderSidebar } from '../../src/ui/sidebar.js';
import { fit } from '../../src/ui/text.js';
import { callTool, mcpClient } from '../mcp/helpers.js';
import { cliProcess, makeTeam } from '../helpers/team.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const MB = 1_000_000;

describe('field limits', () => {
  it('limits.a-giant-subject-is-refused-at-every-entrance', async () => {
    const t = await makeTeam(['lead', 'amy']);
    cleanups.push(t.cleanup);
    const made = await t.store.tasks.create({ subject: 'small' });
    if (!made.ok) throw new Error(made.message);
    // MCP, as a gated member can without a shell: the schema says so, and the call is refused.
    const amy = await mcpClient(t.dir, 'amy');
    cleanups.push(() => amy.close());
    const update = (await amy.listTools()).tools.find((x) => x.name === 'task_update')!;
    expect((update.inputSchema.properties as Record<string, { maxLength?: number }>)['subject']?.maxLength).toBe(FIELD_LIMITS.subject);
    const r = await callTool(amy, 'task_update', { id: made.value.id, revision: 1, subject: 'x'.repeat(9.5 * MB) });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/subject|1000/);
    // The store API (what the agent tools, the screen and every verb call).
    const big = 'y'.repeat(FIELD_LIMITS.subject + 1);
    expect(await t.store.tasks.update(made.value.id, 'amy', 1, { subject: big })).toMatchObject({ ok: false, reason: 'invalid_input' });
    expect(await t.store.tasks.create({ subject: big })).toMatchObject({ ok: false, reason: 'invalid_input' });
    expect(await t.store.tasks.create({ subject: 's', description: 'd'.repeat(FIELD_LIMITS.description + 1) })).toMatchObject({ ok: false, reason: 'invalid_input' });
    const claimed = await t.store.claim('amy', made.value.id);
    expect(claimed.ok).toBe(true);
    expect(await t.store.complete('amy', made.value.id, 'r'.repeat(FIELD_LIMITS.result + 1))).toMatchObject({ ok: false, reason: 'invalid_input' });
    expect(await t.store.openRequest('plan_approval', 'amy', 'lead', 'p'.repeat(FIELD_LIMITS.body + 1))).toMatchObject({ ok: false, reason: 'invalid_input' });
    const member = { ...(await t.store.config()).members[1]!, name: 'carol', role: 'r'.repeat(FIELD_LIMITS.role + 1) };
    expect(await t.store.addMember(member)).toMatchObject({ ok: false, reason: 'invalid_input' });
    // The CLI: refused with the reason (invalid_input: exit 1), nothing written.
    const cli = await cliProcess(['task', 'add', '--subject', big, '--team-dir', t.dir]);
    expect(cli.code, cli.err).toBe(1);
    expect(cli.err).toContain(`the subject is ${big.length} characters, more than the ${FIELD_LIMITS.subject}`);
    expect(await t.store.tasks.get(made.value.id)).toMatchObject({ ok: true, value: { subject: 'small' } });
    expect((await t.store.tasks.snapshot()).tasks).toHaveLength(1);
  }, 60_000);

  it('limits.a-task-file-written-past-them-is-a-problem-and-the-sidebar-measures-only-what-it-shows', async () => {
    const t = await makeTeam(['lead', 'amy']);
    cleanups.push(t.cleanup);
    const made = await t.store.tasks.create({ subject: 'small' });
    if (!made.ok) throw new Error(made.message);
    writeFileSync(t.store.paths.task(made.value.id), JSON.stringify({ ...made.value, subject: 'z'.repeat(9.5 * MB) }));
    const board = await t.store.tasks.snapshot();
    expect(board.tasks).toHaveLength(0);
    expect(board.problems[0]?.message).toMatch(/subject/);

    // The renderer, should a giant subject ever reach it: it costs what a small one does.
    const task = (id: string, subject: string): Task => ({ ...made.value, id, subject });
    const data = (tasks: Task[]) => ({ team: 't', roster: [], tasks, requests: [], traffic: [], problems: [] });
    const opts = { width: 40, height: 30, sections: ['task_board', 'mailbox', 'requests'] as const, selectedRequest: null, notices: [] };
    const plain = data([task('1', 'one'), task('2', 'two')]);
    const giant = data([task('1', 'x'.repeat(9.5 * MB)), task('2', 'y'.repeat(9.5 * MB))]);
    const time = (d: ReturnType<typeof data>): number => {
      const t0 = performance.now();
      renderSidebar(d as never, opts as never);
      return performance.now() - t0;
    };
    const runs = { plain: [] as number[], giant: [] as number[] };
    for (let i = 0; i < 7; i++) [runs.plain.push(time(plain)), runs.giant.push(time(giant))];
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[3]!;
    // Before: seconds per render (fit measured the whole 9.5 MB); now within noise of the small board.
    expect(median(runs.giant)).toBeLessThan(10 * median(runs.plain) + 20);
    expect(fit('x'.repeat(9.5 * MB), 10)).toBe('xxxxxxxxx…');
    expect(fit('short', 10)).toBe('short');
    expect(fit('🙂'.repeat(3), 6)).toBe('🙂🙂🙂');
  }, 60_000);
});
