// End-to-end: a team whose screen is killed with kill -9 mid-run is resumed by the next `teamux start`
// (same folder, board, run and pending plan; the dead asker's permission withdrawn; the stale claim
// released and claimable again; the status line says so), `--fresh` archives it and begins anew, and
// `--resume` with nothing to resume is refused (exit 3, hint). Real teamux, real shells, real tmux.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pidAlive } from '../../src/store/liveness.js';
import { TeamStore } from '../../src/store/team.js';
import { BIN, cliProcess, tempDir, waitFor } from '../helpers/team.js';
import { killServer, TmuxDriver } from '../helpers/tmux.js';
import { randomBytes } from 'node:crypto';

const teamSocket = `teamux-team-${randomBytes(4).toString('hex')}`;

const drivers: TmuxDriver[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  await killServer(teamSocket);
  for (const c of cleanups.splice(0)) c();
});

const LAYOUT = [
  'name: again', 'shutdown_timeout: 1',
  'lead: { name: lead, role: shell, command: [bash, --norc, --noprofile] }',
  'teammates:',
  '  - { name: amy, role: shell, command: [bash, --norc, --noprofile] }', '',
].join('\n');

/** The screen's pid, from mux.json, once it has started every member. */
async function screenUp(store: TeamStore, dir: string): Promise<number> {
  await waitFor(async () => (await store.roster()).every((m) => m.pid !== null && m.reportedStatus !== 'exited'), 'every member running', 30_000);
  return (JSON.parse(readFileSync(path.join(dir, 'mux.json'), 'utf8')) as { pid: number }).pid;
}

describe('resume (e2e in tmux)', () => {
  it('resume.kill-9-of-the-screen-then-start-resumes-fresh-archives-resume-refuses', async () => {
    const tmp = tempDir('teamux-resume-');
    cleanups.push(tmp.cleanup);
    const file = path.join(tmp.dir, 'team.yaml');
    writeFileSync(file, LAYOUT);
    const start = (flags = ''): string => `${process.execPath} ${BIN} start ${file} ${flags}`;
    // The terminal runs start, and again after it ends (a crash), then --fresh.
    const d = await TmuxDriver.start(`cd ${tmp.dir} && ${start()}; echo TEAMUX-EXIT1=$?; ${start()}; echo TEAMUX-EXIT2=$?; ${start('--fresh')}; echo TEAMUX-EXIT3=$?; sleep 600`, 160, 45);
    drivers.push(d);
    const dir = path.join(tmp.dir, '.teamux', 'again');
    await waitFor(() => existsSync(path.join(dir, 'mux.json')), 'the first screen', 30_000);
    const opened = await TeamStore.open(dir);
    if (!opened.ok) throw new Error(opened.error.message);
    const store = opened.store;
    const first = await screenUp(store, dir);
    const run = (await store.config()).run!;
    for (const s of ['one', 'two', 'three']) await store.tasks.create({ subject: s });
    expect((await store.claim('amy', '1')).ok).toBe(true);
    const plan = await store.openRequest('plan_approval', 'amy', 'lead', '1. the plan');
    const perm = await store.openPermission('amy', 'human', 'Bash', { command: 'rm -rf build' });
    if (!plan.ok || !perm.ok) throw new Error('requests');
    await store.send({ from: 'amy', to: 'lead', type: 'message', text: 'one for you' });
    await store.send({ from: 'lead', to: 'amy', type: 'message', text: 'one for amy' });
    // Unread: the two messages and the plan request's message to the lead.
    const pids = (await store.roster()).map((m) => m.pid!);

    // The screen dies (kill -9): its shells are hung up on; the next start resumes.
    process.kill(first, 'SIGKILL');
    await d.waitFor(/TEAMUX-EXIT1=137/, 'the first screen killed');
    for (const pid of pids) await waitFor(() => !pidAlive(pid, null), `member ${pid} gone`, 10_000);
    const screen = await d.waitFor(/resumed run/, 'the resumed status line', 30_000);
    expect(screen).toContain(`resumed run ${run} (3 tasks open, 3 unread, 1 permission request withdrawn)`);
    await screenUp(store, dir);
    expect((await store.config()).run).toBe(run);
    expect(readdirSync(path.join(tmp.dir, '.teamux'))).toEqual(['again']);
    const p = await store.requests.get(plan.value.id);
    expect(p.ok && p.value.status).toBe('pending');
    const q = await store.requests.get(perm.value.id);
    expect(q.ok && q.value).toMatchObject({ status: 'withdrawn', response: { text: expect.stringContaining("amy's process that asked is gone") } });
    const one = await store.tasks.get('1');
    expect(one.ok && one.value).toMatchObject({ status: 'pending', owner: null });
    expect(one.ok && one.value.attempts.at(-1)?.outcome).toBe('abandoned');
    expect((await store.claim('amy', '1')).ok).toBe(true);
    expect(readFileSync(store.paths.log, 'utf8')).toMatch(/task 1 released at start/);

    // Quit by handshake: tasks are still open, so the run stays unfinished; --fresh archives it anyway.
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT2=0/, 'the resumed screen to quit', 30_000);
    await d.waitFor(/started run run-\S+ afresh; the earlier run was archived to/, 'the fresh start', 30_000);
    const archive = path.join(tmp.dir, '.teamux', 'archive');
    const [old] = readdirSync(archive);
    expect(old).toMatch(/^again-\d{8}-\d{6}$/);
    expect(existsSync(path.join(archive, old!, 'tasks', '3.json'))).toBe(true);
    const fresh = await TeamStore.open(dir);
    if (!fresh.ok) throw new Error(fresh.error.message);
    expect((await fresh.store.config()).run).not.toBe(run);
    expect((await fresh.store.tasks.list()).tasks).toEqual([]);
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT3=0/, 'the fresh screen to quit', 30_000);

    // A finished run (no open task, every member ended): --resume has nothing to take up.
    const r = await cliProcess(['start', file, '--resume']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/^teamux: refused: the earlier run run-\S+ is finished \(every task completed, every member ended\): there is nothing to resume\n {2}hint: leave out --resume/);
    const both = await cliProcess(['start', file, '--resume', '--fresh']);
    expect(both.code).toBe(1);
    expect(both.err).toMatch(/--fresh and --resume contradict each other/);
  }, 120_000);

  it('resume.start-on-a-tmux-team-whose-members-run-attaches-instead-of-a-second-copy', async () => {
    const tmp = tempDir('teamux-resume-');
    cleanups.push(tmp.cleanup);
    const file = path.join(tmp.dir, 'team.yaml');
    writeFileSync(file, LAYOUT.replace('name: again', 'name: kept\nbackend: tmux'));
    const env = { TEAMUX_TMUX_SOCKET: teamSocket };
    const start = `${process.execPath} ${BIN} start ${file}`;
    const d = await TmuxDriver.start(`cd ${tmp.dir} && ${start}; echo TEAMUX-EXIT1=$?; ${start}; echo TEAMUX-EXIT2=$?; ${start} --fresh; echo TEAMUX-EXIT3=$?; sleep 600`, 160, 45, env);
    drivers.push(d);
    const dir = path.join(tmp.dir, '.teamux', 'kept');
    await waitFor(() => existsSync(path.join(dir, 'mux.json')), 'the first screen', 30_000);
    const opened = await TeamStore.open(dir);
    if (!opened.ok) throw new Error(opened.error.message);
    await screenUp(opened.store, dir);
    const pids = (await opened.store.roster()).map((m) => m.pid);
    const run = (await opened.store.config()).run;
    await d.keys('C-a', 'd');
    await d.waitFor(/TEAMUX-EXIT1=0/, 'the detach', 30_000);
    // The second start finds the members running and attaches to them: same processes, same run.
    const second = await waitFor(async () => {
      const text = existsSync(path.join(dir, 'mux.json')) ? readFileSync(path.join(dir, 'mux.json'), 'utf8') : '';
      return text.includes('"backend": "tmux"') ? text : null;
    }, 'the second screen', 30_000);
    expect(second).toMatch(/"pid": \d+/);
    await d.waitFor(/ 2 amy · /, 'the attached panes', 30_000);
    expect((await opened.store.roster()).map((m) => m.pid)).toEqual(pids);
    expect((await opened.store.config()).run).toBe(run);
    expect(readFileSync(opened.store.paths.log, 'utf8')).toMatch(/attached with a new trust key/);
    // --fresh on a team still running is refused, with what to do.
    await d.keys('C-a', 'd');
    await d.waitFor(/TEAMUX-EXIT2=0/, 'the second detach', 30_000);
    const refused = await d.waitFor(/TEAMUX-EXIT3=3/, 'start --fresh refused', 30_000);
    expect(refused).toMatch(/teamux: refused: team kept is still running under tmux\n {2}hint: stop it with `teamux kill kept` first/);
  }, 120_000);
});
