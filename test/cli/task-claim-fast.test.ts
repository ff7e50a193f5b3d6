// The short path of `task claim` (cli/task-claim-fast.ts, store/quick-claim.ts) prints what the full
// verb prints, exits with its codes and leaves the same files behind; every case it does not handle
// gets the full verb's message; processes racing on one board, some on each path, never take a task
// twice; hand edits of task files are seen; and the ready list it reads instead of the index is what
// the index says. Real child processes of bin/teamux, with a module hook that tells which path ran
// (the full verb loads store/team.js, the short path does not; dist/cli/, not the bundle, so modules
// have their names); TEAMUX_STORE=folder forces the full verb. test/cli/bundle.test.ts runs claim bundled.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { trustedReadyList } from '../../src/store/ready-list.js';
import { SCAN_EVERY_MS } from '../../src/store/task-index.js';
import { TeamStore } from '../../src/store/team.js';
import { BIN, makeTeam, REPO, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

const HOOK = path.join(REPO, 'test', 'fixtures', 'cli', 'trace-imports.mjs');

async function team(names = ['amy', 'bob']) {
  const t = await makeTeam(names);
  cleanup.push(t.cleanup);
  return t;
}

/** `teamux task claim ARGV` as a child process; `full` forces the full verb. Which path ran is checked. */
function claim(argv: string[], dir: string, opts: { full?: boolean; env?: Record<string, string>; expectPath?: 'short' | 'full' } = {}): Promise<{ code: number; out: string; err: string }> {
  // dist/cli/'s module graph (TEAMUX_BUNDLE=0), where the full verb's store/team.js shows which path ran.
  const env = { ...process.env, TEAMUX_MEMBER: '', TEAMUX_TEAM_DIR: '', TEAMUX_STORE: opts.full ? 'folder' : '', TEAMUX_BUNDLE: '0', ...opts.env };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', HOOK, BIN, 'task', 'claim', ...argv, ...(argv.includes('--team-dir') ? [] : ['--team-dir', dir])], { env, cwd: REPO }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      const full = stderr.split('\n').some((l) => l.startsWith('LOADED ') && l.endsWith('/dist/store/team.js'));
      const want = opts.expectPath ?? (opts.full ? 'full' : 'short');
      if (full !== (want === 'full')) reject(new Error(`task claim ${argv.join(' ')} ran the ${full ? 'full verb' : 'short path'}, expected the ${want === 'full' ? 'full verb' : 'short path'}: ${stdout}${stderr.replace(/^LOADED .*\n/gm, '')}`));
      resolve({ code, out: stdout, err: stderr.replace(/^LOADED .*\n/gm, '') });
    });
  });
}

/** Times, pids and process start times taken out, so two runs compare. */
function normal(text: string): string {
  return text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T').replace(/"(pid|start)":\d+/g, '"$1":N').replace(/\/tmp\/teamux-test-\w+/g, 'TMP');
}

describe('task claim short path', () => {
  it('claim-fast.prints-exits-and-writes-as-the-full-verb-does', async () => {
    const results: Record<string, string[]> = { short: [], full: [] };
    for (const mode of ['short', 'full'] as const) {
      const t = await team();
      const s = t.store;
      await s.updateMember('amy', { status: 'idle' });
      await s.tasks.create({ subject: 'one \u001b[31mred' });
      await s.tasks.create({ subject: 'two', blockedBy: ['1'] });
      await s.tasks.create({ subject: 'three' });
      const run = async (...argv: string[]) => {
        const r = await claim(argv, t.dir, { full: mode === 'full' });
        results[mode]!.push(normal(`${argv.join(' ')} → ${r.code}|${r.out}|${r.err}`));
      };
      await run('1', '--as', 'amy');
      await run('2', '--as', 'bob', '--json');
      await run('1', '--as', 'bob');
      await run('9', '--as', 'bob', '--json');
      await run('--as', 'bob', '--json');
      await run('--as', 'bob');
      expect((await s.complete('amy', '1', 'done')).ok).toBe(true);
      await run('1', '--as=bob', '--json');
      await run('--as', 'amy', '--json');
      // What the claims left: the task files, team.json (amy marked working), heartbeats and events.
      const files = ['1', '2', '3'].map((id) => readFileSync(s.paths.task(id), 'utf8'));
      results[mode]!.push(normal([...files, readFileSync(s.paths.config, 'utf8')].join('\n')));
      results[mode]!.push((await s.events.read()).events.map((e) => `${e.type} ${String(e.task ?? e.member ?? '')}`).join(', '));
      results[mode]!.push(Object.keys(JSON.parse(readFileSync(s.paths.heartbeat('amy'), 'utf8')) as object).join(','));
    }
    expect(results.short).toEqual(results.full);
    const short = results.short!;
    expect(short[0]).toBe('1 --as amy → 0|amy claimed task 1: one \\e[31mred (revision 3)\n|');
    expect(short[1]).toMatch(/^2 --as bob --json → 3\|\{"ok":false,"reason":"blocked","message":"task 2 is blocked by 1"\}\n\|$/);
    expect(short[2]).toBe('1 --as bob → 3||teamux: refused (already_claimed): task 1 is already claimed by amy\n');
    expect(short[3]).toMatch(/"reason":"not_found"/);
    expect(short[4]).toMatch(/^--as bob --json → 0\|\{"ok":true,"version":2,"id":"3",/);
    expect(short[5]).toBe('--as bob → 3||teamux: refused (no_ready_task): no task is ready to claim\n');
    expect(short[6]).toMatch(/"reason":"already_completed"/);
    expect(short[7]).toMatch(/"ok":true,.*"id":"2",.*"owner":"amy"/);
    expect(short[9]).toBe('member_idle amy, task_created 1, task_created 2, task_created 3, task_claimed 1, member_working amy, task_claimed 3, member_working bob, task_completed 1, task_claimed 2');
  }, 240_000);

  it('claim-fast.every-case-it-does-not-handle-gets-the-full-verbs-message', async () => {
    const t = await team();
    await t.store.tasks.create({ subject: 'one' });
    const full = { expectPath: 'full' as const };
    // Another member's claim from inside amy's pane; a name not on the roster; the operator's name.
    let r = await claim(['--as', 'bob'], t.dir, { ...full, env: { TEAMUX_MEMBER: 'amy' } });
    expect([r.code, r.err]).toEqual([1, expect.stringMatching(/belongs to member amy/)]);
    r = await claim(['--as', 'zed'], t.dir, full);
    expect([r.code, r.err]).toEqual([1, expect.stringMatching(/"zed" is not a member/)]);
    r = await claim(['--as', 'human'], t.dir, full);
    expect([r.code, r.err]).toEqual([1, expect.stringMatching(/operator/)]);
    // A flag the verb does not know; an id that is not one; two ids.
    r = await claim(['--as', 'amy', '--bogus'], t.dir, full);
    expect([r.code, r.err]).toEqual([1, expect.stringMatching(/bogus/)]);
    r = await claim(['abc', '--as', 'amy'], t.dir, full);
    expect([r.code, r.err]).toEqual([1, expect.stringMatching(/"abc" is not a task id/)]);
    // A task file the hand check does not take: the full verb names the file and the field.
    writeFileSync(t.store.paths.task('1'), JSON.stringify({ ...JSON.parse(readFileSync(t.store.paths.task('1'), 'utf8')) as object, revision: 'two' }));
    r = await claim(['1', '--as', 'amy', '--json'], t.dir, full);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, reason: 'not_found', message: expect.stringMatching(/revision/) });
    // team.json broken by hand.
    writeFileSync(t.store.paths.config, '{"version": 1, "members": [');
    r = await claim(['--as', 'amy'], t.dir, full);
    expect([r.code, r.err]).toEqual([1, expect.stringContaining('team.json')]);
    // A staged pipeline's rules run in the full verb.
    const p = await team(['alice']);
    mkdirSync(path.join(p.dir, 'pipeline'));
    writeFileSync(path.join(p.dir, 'pipeline', 'settings.json'), '{}');
    r = await claim(['--as', 'alice'], p.dir, full);
    expect(r.code).not.toBe(0);
    // TEAMUX_MEMBER and TEAMUX_TEAM_DIR alone, as in a pane: the short path.
    const q = await team(['amy']);
    await q.store.tasks.create({ subject: 'one' });
    r = await claim([], q.dir, { env: { TEAMUX_MEMBER: 'amy' } });
    expect([r.code, r.out]).toEqual([0, 'amy claimed task 1: one (revision 2)\n']);
  }, 240_000);

  it('claim-fast.processes-racing-on-both-paths-never-take-a-task-twice', async () => {
    const t = await team(['amy', 'bob', 'cat']);
    for (let i = 0; i < 24; i++) await t.store.tasks.create({ subject: `job ${i}`, blockedBy: i % 6 === 5 ? [String(i)] : [] });
    const won = new Map<string, string[]>();
    const worker = async (who: string, full: boolean): Promise<void> => {
      for (;;) {
        const r = await claim(['--as', who, '--json'], t.dir, { full });
        const v = JSON.parse(r.out) as { ok: boolean; id?: string; reason?: string };
        if (!v.ok) {
          expect(v.reason).toBe('no_ready_task');
          return;
        }
        won.set(v.id!, [...(won.get(v.id!) ?? []), `${who}${full ? '/full' : ''}`]);
      }
    };
    await Promise.all([worker('amy', false), worker('bob', false), worker('cat', true), worker('amy', true)]);
    // Every task that was ready (all but the four blocked by an unfinished one), each exactly once.
    const expected = Array.from({ length: 24 }, (_, i) => String(i + 1)).filter((id) => Number(id) % 6 !== 0);
    expect([...won.keys()].sort((a, b) => Number(a) - Number(b))).toEqual(expected);
    for (const [id, by] of won) expect(by, `task ${id}`).toHaveLength(1);
    const board = await t.store.tasks.snapshot();
    for (const [id, [by]] of won) expect(board.index.get(id)!.owner).toBe(by!.replace('/full', ''));
  }, 300_000);

  it('claim-fast.hand-edits-are-seen-and-the-ready-list-is-what-the-index-says', async () => {
    const t = await team();
    const s = t.store;
    for (let i = 0; i < 5; i++) await s.tasks.create({ subject: `job ${i + 1}` });
    const readyNow = async () => {
      // A fresh handle, as another process has: it reads the index from the file.
      const o = await TeamStore.open(t.dir);
      if (!o.ok) throw new Error(o.error.message);
      return (await o.store.tasks.list({ ready: true })).tasks.map((x) => x.id);
    };
    /** The ready list, when trusted, holds exactly the lowest ready ids the index gives. */
    const listAgrees = async () => {
      const list = trustedReadyList(s.paths, SCAN_EVERY_MS);
      if (list) expect([list.total, list.first]).toEqual([(await readyNow()).length, (await readyNow()).slice(0, list.first.length)]);
      return list;
    };
    expect((await claim(['--as', 'amy'], t.dir)).out).toMatch(/claimed task [1-5]/);
    expect(await listAgrees()).not.toBeNull();
    expect((await claim(['--as', 'bob'], t.dir)).code).toBe(0);
    // The short path kept the list current itself (nobody read the index in between).
    expect(await listAgrees()).not.toBeNull();
    // A task completed by hand in place (the folder's mtime does not move): the list still names it,
    // and the claim checks the file under its lock and takes another.
    const ready = await readyNow();
    const edited = ready[0]!;
    const file = s.paths.task(edited);
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')) as object, status: 'completed', owner: 'amy' }));
    for (let i = 0; i < ready.length - 1; i++) expect((await claim(['--as', 'amy', '--json'], t.dir)).out).not.toContain(`"id":"${edited}"`);
    // Now nothing is ready: that answer rests on a fresh check of every file, which sees the edit.
    expect((await claim(['--as', 'amy'], t.dir)).err).toMatch(/no_ready_task/);
    // Reopened by hand in place: "no ready task" is checked against the files at most a second old.
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')) as object, status: 'pending', owner: null }));
    const r = await waitFor(async () => { const c = await claim(['--as', 'bob', '--json'], t.dir); return c.code === 0 ? c : null; }, 'the hand-reopened task to be claimed', 30_000, 200);
    expect(JSON.parse(r.out)).toMatchObject({ id: edited, owner: 'bob' });
    // A task file made by hand (the folder's mtime moves): the list is not trusted, the new task is seen at once.
    const six = { ...JSON.parse(readFileSync(s.paths.task('1'), 'utf8')) as object, id: '6', subject: 'by hand', status: 'pending', owner: null, holder: null, attempts: [], revision: 1 };
    writeFileSync(s.paths.task('6'), JSON.stringify(six));
    expect((await claim(['--as', 'amy'], t.dir)).out).toBe('amy claimed task 6: by hand (revision 2)\n');
    await listAgrees();
    // Writes of the full store (a new task, a completion) keep the list right too.
    await s.tasks.create({ subject: 'seven' });
    await s.tasks.create({ subject: 'eight', blockedBy: ['6'] });
    expect(await listAgrees()).not.toBeNull();
    expect((await s.complete('amy', '6', null)).ok).toBe(true);
    expect((await listAgrees())?.first).toEqual(['7', '8']);
  }, 300_000);
});
