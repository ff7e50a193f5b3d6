// End-to-end for the tmux backend: members outlive a SIGKILLed TUI, `teamux attach` brings their
// screens back, attach mode steers a member, a handshake closes one, and `teamux kill` leaves no
// session and no process. The team server uses its own private socket (TEAMUX_TMUX_SOCKET).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pidAlive } from '../../src/store/liveness.js';
import { TeamStore } from '../../src/store/team.js';
import { BIN, REPO, cliProcess, tempDir, waitFor } from '../helpers/team.js';
import { killServer, TmuxDriver, tmux } from '../helpers/tmux.js';

const teamSocket = `teamux-team-${randomBytes(4).toString('hex')}`;
const drivers: TmuxDriver[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  await killServer(teamSocket);
  for (const c of cleanups.splice(0)) c();
});

/** Alive and not a zombie (the store's own liveness check). */
function alive(pid: number): boolean {
  return pidAlive(pid, null);
}

/** pids of the TUI (`teamux start|attach`) running in a driver's session. */
function tuiPid(d: TmuxDriver): number {
  const shell = Number(execFileSync('tmux', ['-L', d.socket, 'display-message', '-p', '-t', 'main', '#{pane_pid}']).toString().trim());
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(shell)]).toString();
  const line = out.split('\n').find((l) => /bin\/teamux (start|attach)/.test(l));
  if (!line) throw new Error(`no teamux under ${shell}: ${out}`);
  return Number(line.trim().split(/\s+/)[0]);
}

describe('tmux backend (e2e)', () => {
  it('members outlive the TUI; attach, steer, handshake, kill', async () => {
    const tmp = tempDir('teamux-e2e-');
    cleanups.push(tmp.cleanup);
    cpSync(path.join(REPO, 'examples', 'scripted'), tmp.dir, { recursive: true, filter: (s) => !s.includes('.teamux') });
    const layout = path.join(tmp.dir, 'team.yaml');
    writeFileSync(layout, [
      'name: tmuxteam', 'backend: tmux', 'shutdown_timeout: 5',
      'lead: { name: lead, role: lead, command: [bash, lead.sh], speaks_protocol: true }',
      'teammates:',
      '  - { name: alice, role: worker, command: [bash, worker.sh], plan_required: true, speaks_protocol: true }',
      '  - { name: sh, role: a shell to steer, command: [bash, --norc, --noprofile] }',
      'tasks:', '  - { id: a, subject: First job }', '  - { id: b, subject: Second job, blockedBy: [a] }', '',
    ].join('\n'));
    const teamDir = path.join(tmp.dir, '.teamux', 'tmuxteam');
    const env = { TEAMUX_TMUX_SOCKET: teamSocket, WORK_SECONDS: '1' };
    const d = await TmuxDriver.start(`${process.execPath} ${BIN} start ${layout}; echo TEAMUX-EXIT=$?; sleep 600`, 160, 45, env);
    drivers.push(d);
    await d.waitFor((s) => s.includes('[alice] waiting for approval') && s.includes(' 3 sh · '), 'the team under tmux');
    expect(await tmux(teamSocket, ['list-sessions', '-F', '#{session_name}'])).toBe('tmuxteam\n');

    // The screen signs the human's approval; the command line cannot.
    const opened = await TeamStore.open(teamDir);
    if (!opened.ok) throw new Error(opened.error.message);
    const store = opened.store;
    const req = (await store.requests.list()).requests.find((r) => r.type === 'plan_approval')!;
    const unsigned = await cliProcess(['request', 'approve', req.id, '--team-dir', teamDir]);
    expect(unsigned.code).toBe(3);
    expect(unsigned.err).toMatch(/refused \(unsigned\)/);
    await d.keys('C-a', 'a');
    await d.waitFor(/\[alice\] plan approved/, 'alice to see the approval');

    // SIGKILL the TUI: the members keep running and keep writing to the team folder.
    const pids = Object.fromEntries((await store.roster()).map((m) => [m.name, m.pid!]));
    process.kill(tuiPid(d), 'SIGKILL');
    await d.waitFor(/TEAMUX-EXIT=137/, 'the TUI to die');
    for (const [name, pid] of Object.entries(pids)) expect(alive(pid), name).toBe(true);
    await waitFor(async () => (await store.tasks.snapshot()).tasks.every((t) => t.status === 'completed'), 'alice to finish both tasks with no TUI', 60_000);

    // Attach: the panes show their current screens, with the sidebar.
    const list = await cliProcess(['ls'], env);
    expect(list.out).toMatch(/tmuxteam\s+no\s+lead:\w+, alice:\w+, sh:\w+/);
    const a = await TmuxDriver.start(`${process.execPath} ${BIN} attach tmuxteam; echo TEAMUX-EXIT=$?; sleep 600`, 160, 45, env);
    drivers.push(a);
    await a.waitFor((s) => s.includes('[alice] completed task 2') && s.includes('TASKS 2') && s.includes(' 3 sh · '), 'the attached screens');

    // Steer the shell member through attach mode.
    const marker = path.join(tmp.dir, 'steered.txt');
    await a.keys('C-a', '3');
    await a.type(`echo steered-by-human > ${marker}`);
    await a.keys('Enter');
    await waitFor(() => existsSync(marker) && readFileSync(marker, 'utf8') === 'steered-by-human\n', 'the steered command to run');

    // Shut alice down by handshake (C-a s asks first): her process is gone, her pane kept, exited.
    await a.keys('C-a', '2', 'C-a', 's');
    await a.waitFor(/shut down alice\? \(y\/n\)/, 'the question');
    await a.keys('y');
    await a.waitFor((s) => /shut down alice/.test(s) && / 2 alice · .*(exited|ended|killed)/.test(s), 'alice\'s pane to show her exit');
    await waitFor(() => !alive(pids.alice!), 'alice\'s process to exit', 5_000);

    // teamux kill: a handshake with the rest, then no session and no process is left.
    const killed = await cliProcess(['kill', 'tmuxteam', '--timeout', '3'], env);
    expect(killed.code, killed.err).toBe(0);
    expect(killed.out).toMatch(/team tmuxteam stopped/);
    await a.waitFor(/TEAMUX-EXIT=0/, 'the attached TUI to let go');
    await expect(tmux(teamSocket, ['ls'])).rejects.toThrow();
    // Killed members can stay zombies for a moment until the dying tmux server's children are reaped.
    for (const [name, pid] of Object.entries(pids)) await waitFor(() => !alive(pid), `${name} (pid ${pid}) to be gone`, 5_000);
    const ps = execFileSync('ps', ['-eo', 'args']).toString().split('\n');
    expect(ps.filter((l) => l.includes(`-L ${teamSocket}`) && !l.includes('new-session -d -s main'))).toEqual([]);
    expect(ps.filter((l) => l.includes(tmp.dir) && !l.includes('new-session -d -s main'))).toEqual([]);
  }, 120_000);
});
