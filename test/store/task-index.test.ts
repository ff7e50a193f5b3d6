// The task index is derived: claims and lists read it, but the task files stay the truth. A file
// replaced or created by hand is seen at once, an in-place edit within the index's check interval,
// a deleted or mangled index is rebuilt, and a child process writing through the store keeps it current.
import { promises as fsp, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TeamStore } from '../../src/store/team.js';
import { cliProcess, makeTeam, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function team() {
  const t = await makeTeam(['amy', 'bob']);
  cleanup.push(t.cleanup);
  return t;
}

/** A second handle on the folder, as another process would have: nothing cached. */
async function fresh(dir: string): Promise<TeamStore> {
  const r = await TeamStore.open(dir, 'test');
  if (!r.ok) throw new Error(r.error.message);
  return r.store;
}

const ids = (tasks: Array<{ id: string }>) => tasks.map((t) => t.id);

describe('task index', () => {
  it('index.lists-and-claims-follow-the-writes-of-the-store', async () => {
    const t = await team();
    for (let i = 1; i <= 6; i++) expect((await t.store.tasks.create({ subject: `job ${i}`, blockedBy: i > 3 ? ['1'] : [] })).ok).toBe(true);
    const s = await fresh(t.dir);
    expect(ids((await s.tasks.list({ ready: true })).tasks)).toEqual(['1', '2', '3']);
    expect(ids((await s.tasks.list({ status: 'pending' })).tasks)).toEqual(['1', '2', '3', '4', '5', '6']);
    expect((await t.store.claim('amy', '1')).ok).toBe(true);
    expect((await t.store.complete('amy', '1', null)).ok).toBe(true);
    expect(ids((await s.tasks.list({ ready: true })).tasks)).toEqual(['2', '3', '4', '5', '6']);
    expect(ids((await s.tasks.list({ status: 'completed' })).tasks)).toEqual(['1']);
    const claimed = await s.claim('bob');
    expect(claimed.ok && ['2', '3', '4', '5', '6'].includes(claimed.value.id)).toBe(true);
    expect((await t.store.tasks.list({ status: 'in_progress' })).tasks.map((x) => x.owner)).toEqual(['bob']);
  });

  it('index.a-task-file-replaced-or-created-by-hand-is-seen-at-once', async () => {
    const t = await team();
    for (let i = 1; i <= 3; i++) await t.store.tasks.create({ subject: `job ${i}`, blockedBy: i === 3 ? ['2'] : [] });
    expect(ids((await t.store.tasks.list({ ready: true })).tasks)).toEqual(['1', '2']);
    // An editor's save: a new file renamed over task 2, marking it completed.
    const two = JSON.parse(readFileSync(t.store.paths.task('2'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(t.store.paths.tasks, '.edit'), JSON.stringify({ ...two, status: 'completed', owner: 'amy', revision: 9 }));
    await fsp.rename(path.join(t.store.paths.tasks, '.edit'), t.store.paths.task('2'));
    expect(ids((await t.store.tasks.list({ ready: true })).tasks)).toEqual(['1', '3']);
    // A third-party writer adds task 4 without teamux.
    writeFileSync(t.store.paths.task('4'), JSON.stringify({ ...two, id: '4', subject: 'by hand', blocks: [], blockedBy: [] }));
    expect(ids((await t.store.tasks.list({ ready: true })).tasks)).toEqual(['1', '3', '4']);
    // Deleted by hand: gone from the list.
    await fsp.rm(t.store.paths.task('1'));
    expect(ids((await t.store.tasks.list({})).tasks)).toEqual(['2', '3', '4']);
  });

  it('index.an-in-place-edit-is-seen-by-the-next-full-check-and-a-claim-never-takes-a-task-that-is-not-ready', async () => {
    const t = await team();
    await t.store.tasks.create({ subject: 'one' });
    expect((await t.store.claim('amy', '1')).ok).toBe(true);
    expect((await t.store.complete('amy', '1', null)).ok).toBe(true);
    expect(await t.store.claim('bob')).toMatchObject({ ok: false, reason: 'no_ready_task' });
    // Rewritten in place (the folder's mtime does not move): back to pending.
    const file = t.store.paths.task('1');
    const one = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...one, status: 'pending', owner: null, completedAt: null, revision: 7 }));
    // "No ready task" rests on a check at most a second old, so the claim finds it soon.
    const r = await waitFor(async () => { const c = await t.store.claim('bob'); return c.ok ? c : null; }, 'the hand-reopened task to be claimable', 10_000, 100);
    expect(r.value.id).toBe('1');
    // The other way round: marked completed in place; a claim verifies the file under its lock.
    await t.store.tasks.create({ subject: 'two' });
    const two = JSON.parse(readFileSync(t.store.paths.task('2'), 'utf8')) as Record<string, unknown>;
    writeFileSync(t.store.paths.task('2'), JSON.stringify({ ...two, status: 'completed', owner: 'amy' }));
    expect(await t.store.claim('bob')).toMatchObject({ ok: false, reason: 'no_ready_task' });
    // And a list is right again within the check interval (shortened here from a minute).
    t.store.tasks.index.checkEveryMs = 1_000;
    const listed = await waitFor(async () => { const l = await t.store.tasks.list({ status: 'pending' }); return l.tasks.length === 0 ? l : null; }, 'the list to drop the completed task', 15_000, 200);
    expect(listed.tasks).toEqual([]);
  }, 40_000);

  it('index.a-missing-or-mangled-index-is-rebuilt-from-the-task-files', async () => {
    const t = await team();
    for (let i = 1; i <= 4; i++) await t.store.tasks.create({ subject: `job ${i}` });
    const indexFile = path.join(t.dir, 'task-index.jsonl');
    writeFileSync(indexFile, '{"kind":"teamux-task-index","v":1}\n{not json\n{"id":"2","gone":true}\n');
    expect(ids((await (await fresh(t.dir)).tasks.list({ ready: true })).tasks)).toEqual(['1', '2', '3', '4']);
    await fsp.rm(indexFile);
    expect(ids((await (await fresh(t.dir)).tasks.list({ status: 'pending' })).tasks)).toEqual(['1', '2', '3', '4']);
    // A bad task file is reported, not fatal.
    writeFileSync(t.store.paths.task('3'), '{ nope');
    const l = await (await fresh(t.dir)).tasks.list({});
    expect(ids(l.tasks)).toEqual(['1', '2', '4']);
    expect(l.problems.map((p) => path.basename(p.path))).toEqual(['3.json']);
  });

  it('index.cli-processes-claiming-and-completing-keep-it-current', async () => {
    const t = await team();
    for (let i = 1; i <= 4; i++) await t.store.tasks.create({ subject: `job ${i}`, blockedBy: i === 4 ? ['1', '2'] : [] });
    const dir = ['--team-dir', t.dir];
    expect((await cliProcess(['task', 'claim', '1', '--as', 'amy', ...dir])).code).toBe(0);
    expect((await cliProcess(['task', 'claim', '2', '--as', 'bob', ...dir])).code).toBe(0);
    expect((await cliProcess(['task', 'complete', '1', '--as', 'amy', '--result', 'ok', ...dir])).code).toBe(0);
    expect(ids((await t.store.tasks.list({ ready: true })).tasks)).toEqual(['3']);
    expect((await cliProcess(['task', 'complete', '2', '--as', 'bob', '--result', 'ok', ...dir])).code).toBe(0);
    expect(ids((await t.store.tasks.list({ ready: true })).tasks)).toEqual(['3', '4']);
    const listed = await cliProcess(['task', 'list', '--ready', '--json', ...dir]);
    expect((JSON.parse(listed.out) as { tasks: Array<{ id: string }> }).tasks.map((x) => x.id)).toEqual(['3', '4']);
  }, 60_000);
});
