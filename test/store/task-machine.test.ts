// The state machine in the store, with real child processes: reassign is one write under the task's
// lock (a watcher process never sees the task ownerless, a claimer never wins it, racing reassigners
// lose no hand-over), cold recovery ends a killed owner's attempt `abandoned` and the task is
// claimable again, and delete/reopen/fail keep the board consistent.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliProcess, makeTeam, REPO, waitFor } from '../helpers/team.js';

let cleanup: (() => Promise<void>) | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await cleanup?.();
  cleanup = undefined;
});

function worker(name: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [path.join(REPO, 'test', 'workers', name), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  return { child, out: () => out, exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
}

const lastJson = <T>(out: string): T => JSON.parse(out.trim().split('\n').pop()!) as T;

describe('reassign is atomic', () => {
  it('reassign.never-ownerless-never-claimable-no-hand-over-lost-across-processes', async () => {
    const t = await makeTeam(['amy', 'bob', 'carol', 'dan']);
    cleanup = t.cleanup;
    expect((await t.store.tasks.create({ subject: 'the parser' })).ok).toBe(true);
    expect((await t.store.claim('amy', '1')).ok).toBe(true);
    const stop = path.join(t.dir, '..', 'stop');
    // The reassigners go on until the watcher has seen the task change hands (a loaded machine may
    // starve the watcher through thirty quick hand-overs).
    const seenHands = path.join(t.dir, '..', 'seen-hands');
    const watcher = worker('reassign-watch.mjs', [t.dir, '1', 'dan', stop], { WATCH_SEEN: seenHands });
    await waitFor(() => watcher.out().includes('ready'), 'the watcher to start', 20_000);
    // Two processes hand the task around at once, each to its own pair of members.
    const a = worker('reassigner.mjs', [t.dir, '1', '30', 'bob', 'amy'], { REASSIGN_UNTIL: seenHands });
    const b = worker('reassigner.mjs', [t.dir, '1', '30', 'carol', 'amy'], { REASSIGN_UNTIL: seenHands });
    expect(await a.exit, a.out()).toBe(0);
    expect(await b.exit, b.out()).toBe(0);
    writeFileSync(stop, '');
    expect(await watcher.exit, watcher.out()).toBe(0);

    const seen = lastJson<{ reads: number; ownerless: number; claims: number; won: number; reasons: Record<string, number>; owners: Record<string, number> }>(watcher.out());
    expect(seen.reads).toBeGreaterThan(100);
    expect(seen.ownerless).toBe(0);
    expect(seen.won).toBe(0);
    expect(Object.keys(seen.reasons)).toEqual(['already_claimed']);
    expect(Object.keys(seen.owners).length).toBeGreaterThan(1);

    const made = lastJson<{ done: number }>(a.out()).done + lastJson<{ done: number }>(b.out()).done;
    const task = await t.store.tasks.get('1');
    if (!task.ok) throw new Error(task.message);
    expect(task.value.status).toBe('in_progress');
    expect(task.value.attempts.length).toBe(made + 1);
    expect(task.value.attempts.slice(0, -1).every((x) => x.outcome === 'reassigned' && x.endedAt !== null)).toBe(true);
    expect(task.value.attempts.at(-1)).toMatchObject({ owner: task.value.owner, endedAt: null, outcome: null });
    // Each attempt starts when the one before it ended: no gap, no overlap.
    for (let i = 1; i < task.value.attempts.length; i++) expect(task.value.attempts[i]!.startedAt).toBe(task.value.attempts[i - 1]!.endedAt);
    const { events } = await t.store.events.read();
    expect(events.filter((e) => e.type === 'task_reassigned')).toHaveLength(made);
  }, 120_000);

  it('reassign.refuses-illegal-sources-and-unknown-members', async () => {
    const t = await makeTeam(['amy', 'bob']);
    cleanup = t.cleanup;
    await t.store.tasks.create({ subject: 'x' });
    expect(await t.store.reassign('lead', '1', 'bob', null)).toMatchObject({ ok: false, reason: 'illegal_transition', message: expect.stringContaining('it is pending') });
    await t.store.claim('amy', '1');
    expect(await t.store.reassign('lead', '1', 'zed', null)).toMatchObject({ ok: false, reason: 'unknown_member' });
    expect(await t.store.reassign('lead', '1', 'amy', null)).toMatchObject({ ok: false, reason: 'invalid_input' });
    expect(await t.store.reassign('lead', '9', 'bob', null)).toMatchObject({ ok: false, reason: 'not_found' });
  });
});

describe('cold recovery', () => {
  it('recovery.a-killed-owners-attempt-ends-abandoned-and-another-member-claims-the-task', async () => {
    const t = await makeTeam(['amy', 'bob']);
    cleanup = t.cleanup;
    for (let i = 0; i < 2; i++) await t.store.tasks.create({ subject: `job ${i}` });
    const holder = worker('holder.mjs', [t.dir, 'amy', '2']);
    const held = await waitFor(() => (holder.out().includes('\n') ? JSON.parse(holder.out().split('\n')[0]!) as { pid: number; held: string[] } : null), 'amy to claim', 20_000);
    holder.child.kill('SIGKILL');
    await holder.exit;

    const r = await cliProcess(['task', 'release', '--stale', '--json', '--team-dir', t.dir]);
    expect(r.code, r.err).toBe(0);
    const released = (JSON.parse(r.out) as { released: Array<{ id: string; status: string; attempts: Array<{ outcome: string; note: string }> }> }).released;
    expect(released.map((x) => x.id).sort()).toEqual([...held.held].sort());
    for (const x of released) {
      expect(x.status).toBe('pending');
      expect(x.attempts).toEqual([expect.objectContaining({ owner: 'amy', outcome: 'abandoned', note: `the process that claimed it (pid ${held.pid}) is gone` })]);
    }
    expect((await t.store.claim('bob', held.held[0])).ok).toBe(true);
    const show = await cliProcess(['task', 'show', held.held[0]!, '--team-dir', t.dir]);
    expect(show.code, show.err).toBe(0);
    expect(show.out).toMatch(/attempts:\n {4}1\. amy {2}\S+ {2}abandoned for \d+s: the process that claimed it \(pid \d+\) is gone\n {4}2\. bob {2}\S+ {2}in progress/);
    const { events } = await t.store.events.read();
    expect(events.filter((e) => e.type === 'task_released' && e.outcome === 'abandoned')).toHaveLength(2);
  }, 60_000);
});

describe('delete, reopen and fail in the store', () => {
  it('delete.removes-the-edges-and-frees-dependents', async () => {
    const t = await makeTeam(['amy']);
    cleanup = t.cleanup;
    await t.store.tasks.create({ subject: 'a' });
    await t.store.tasks.create({ subject: 'b', blockedBy: ['1'] });
    await t.store.tasks.create({ subject: 'c', blockedBy: ['2'] });
    const r = await t.store.tasks.remove('2', 'lead');
    expect(r.ok && r.value.nowReady).toEqual(['3']);
    const board = await t.store.tasks.snapshot();
    expect(board.index.get('1')).toMatchObject({ blocks: [] });
    expect(board.index.get('2')).toMatchObject({ status: 'deleted', blocks: [], blockedBy: [] });
    expect(board.index.get('3')).toMatchObject({ blockedBy: [] });
    expect(await t.store.tasks.remove('2', 'lead')).toMatchObject({ ok: false, reason: 'illegal_transition' });
    await t.store.claim('amy', '1');
    expect(await t.store.tasks.remove('1', 'lead')).toMatchObject({ ok: false, reason: 'illegal_transition', message: expect.stringContaining('release it first') });
  });

  it('fail.three-times-blocks-and-reopen-frees', async () => {
    const t = await makeTeam(['amy']);
    cleanup = t.cleanup;
    await t.store.tasks.create({ subject: 'flaky' });
    for (let i = 1; i <= 3; i++) {
      expect((await t.store.claim('amy', '1')).ok).toBe(true);
      const f = await t.store.tasks.fail('1', 'amy', `try ${i}`);
      expect(f.ok && f.value.status).toBe(i < 3 ? 'pending' : 'blocked');
    }
    expect(await t.store.claim('amy', '1')).toMatchObject({ ok: false, reason: 'illegal_transition' });
    expect((await t.store.tasks.reopen('1', 'lead', 'try again with the fix')).ok).toBe(true);
    expect((await t.store.claim('amy', '1')).ok).toBe(true);
  });
});
