// The task board's contract, run unchanged on the team folder and on NATS JetStream: ids, the DAG,
// readiness, claim rules, revision compare-and-set, release, and claims that never double when two
// handles (two processes' worth of state) race on the same board.
import { afterEach, describe, expect, it } from 'vitest';
import { contractBackends, type ContractTeam } from './backends.js';

const backends = contractBackends();
let team: ContractTeam | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

describe.each(backends)('tasks on $name', (backend) => {
  async function make(names = ['amy', 'bob']): Promise<ContractTeam> {
    team = await backend.make(names);
    return team;
  }

  it('contract.tasks.ids-count-up-and-dependencies-stay-symmetric', async () => {
    const { store: s } = await make();
    expect(await s.tasks.everHadTask()).toBe(false);
    for (const subject of ['a', 'b']) expect((await s.tasks.create({ subject })).ok).toBe(true);
    const c = await s.tasks.create({ subject: 'c', blockedBy: ['2', '1', '1'] });
    expect(c.ok && c.value).toMatchObject({ id: '3', blockedBy: ['1', '2'], status: 'pending', owner: null, revision: 1 });
    expect(await s.tasks.everHadTask()).toBe(true);
    expect((await s.tasks.addDependency('2', '1')).ok).toBe(true);
    const { index, problems } = await s.tasks.snapshot();
    expect(problems).toEqual([]);
    expect(index.get('1')!.blocks).toEqual(['2', '3']);
    expect(index.get('2')!.blocks).toEqual(['3']);
    expect(index.get('2')!.blockedBy).toEqual(['1']);
    expect(await s.tasks.create({ subject: 'd', blockedBy: ['9'] })).toMatchObject({ ok: false, reason: 'not_found' });
  });

  it('contract.tasks.cycle-refused-and-nothing-changes', async () => {
    const { store: s } = await make();
    await s.tasks.create({ subject: 'a' });
    await s.tasks.create({ subject: 'b', blockedBy: ['1'] });
    const before = await s.tasks.snapshot();
    expect(await s.tasks.addDependency('1', '2')).toMatchObject({ ok: false, reason: 'cycle' });
    expect((await s.tasks.snapshot()).tasks).toEqual(before.tasks);
  });

  it('contract.tasks.claim-rules-readiness-and-completion', async () => {
    const { store: s } = await make();
    await s.tasks.create({ subject: 'a' });
    await s.tasks.create({ subject: 'b', blockedBy: ['1'] });
    expect(await s.claim('amy')).toMatchObject({ ok: true, value: { id: '1', owner: 'amy', status: 'in_progress' } });
    expect(await s.claim('bob')).toMatchObject({ ok: false, reason: 'no_ready_task' });
    expect(await s.claim('bob', '2')).toMatchObject({ ok: false, reason: 'blocked' });
    expect(await s.tasks.complete('1', 'bob', null)).toMatchObject({ ok: false, reason: 'not_owner' });
    expect(await s.complete('amy', '1', 'done')).toMatchObject({ ok: true, value: { task: { result: 'done', status: 'completed' }, nowReady: ['2'] } });
    expect(await s.claim('bob')).toMatchObject({ ok: true, value: { id: '2' } });
    expect(await s.claim('amy', '1')).toMatchObject({ ok: false, reason: 'already_completed' });
    expect(await s.claim('amy', '2')).toMatchObject({ ok: false, reason: 'already_claimed' });
    expect(await s.claim('amy', '7')).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await s.claim('zed')).toMatchObject({ ok: false, reason: 'unknown_member' });
  });

  it('contract.tasks.stale-revision-never-overwrites', async () => {
    const { store: s } = await make();
    await s.tasks.create({ subject: 'a' });
    expect((await s.tasks.update('1', 'amy', 1, { description: 'first' })).ok).toBe(true);
    expect(await s.tasks.update('1', 'bob', 1, { description: 'second' })).toMatchObject({ ok: false, reason: 'conflict' });
    expect(await s.tasks.get('1')).toMatchObject({ ok: true, value: { description: 'first', revision: 2 } });
    expect(await s.tasks.get('8')).toMatchObject({ ok: false, reason: 'not_found' });
  });

  it('contract.tasks.release-by-owner-or-anyone-and-claim-again', async () => {
    const { store: s } = await make();
    await s.tasks.create({ subject: 'a' });
    await s.claim('amy', '1');
    expect(await s.tasks.release('1', 'bob', 'no')).toMatchObject({ ok: false, reason: 'not_owner' });
    expect(await s.tasks.release('1', null, 'stale')).toMatchObject({ ok: true, value: { owner: null, status: 'pending' } });
    expect(await s.tasks.release('1', null, 'again')).toMatchObject({ ok: false, reason: 'illegal_transition' });
    expect(await s.claim('bob')).toMatchObject({ ok: true, value: { id: '1', owner: 'bob' } });
  });

  it('contract.tasks.two-handles-racing-never-claim-one-task-twice', async () => {
    const t = await make();
    for (let i = 0; i < 30; i++) await t.store.tasks.create({ subject: `job ${i}` });
    const other = await t.open('racer');
    const won: string[][] = [[], []];
    await Promise.all([t.store, other].map(async (s, i) => {
      for (;;) {
        const r = await s.tasks.claim(i === 0 ? 'amy' : 'bob');
        if (!r.ok) {
          expect(r.reason).toBe('no_ready_task');
          return;
        }
        won[i]!.push(r.value.id);
      }
    }));
    const all = [...won[0]!, ...won[1]!].sort((a, b) => Number(a) - Number(b));
    expect(all).toEqual(Array.from({ length: 30 }, (_, i) => String(i + 1)));
    const board = await other.tasks.snapshot();
    for (const id of won[1]!) expect(board.index.get(id)!.owner).toBe('bob');
  }, 180_000);

  it('contract.tasks.ids-are-unique-when-two-handles-create-at-once', async () => {
    const t = await make();
    const other = await t.open('creator');
    const made = (await Promise.all([t.store, other].flatMap((s) => Array.from({ length: 10 }, (_, i) => s.tasks.create({ subject: `n${i}` }))))).map((r) => (r.ok ? r.value.id : r.message));
    expect(new Set(made).size).toBe(20);
    expect((await t.store.tasks.snapshot()).tasks).toHaveLength(20);
  }, 180_000);

  it('contract.tasks.events-record-each-change', async () => {
    const { store: s } = await make();
    await s.tasks.create({ subject: 'a' });
    await s.claim('amy', '1');
    await s.complete('amy', '1', null);
    const { events } = await s.events.read();
    expect(events.filter((e) => e.type.startsWith('task_')).map((e) => [e.type, e.task])).toEqual([['task_created', '1'], ['task_claimed', '1'], ['task_completed', '1']]);
  });
});
