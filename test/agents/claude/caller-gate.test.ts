// The caller check end to end, with real processes: a TmuxBridge on a real socket over panes that are
// real ptys (pty-panes.ts), each running a shell relay; the generated `tmux` stand-in is run from
// inside those panes. The lead pane's own process may split and kill; a process in a teammate pane
// that claims TMUX_PANE=%0 cannot respawn or kill another pane (which keeps running, untouched), may
// only title its own pane; and a process the lead started (a Bash tool's `sh -c 'tmux …'`) cannot
// change panes either. Each refusal is on the caller's stderr, in teamux.log and on the status line.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TmuxBridge } from '../../../src/agents/claude/tmux-bridge.js';
import type { MemberLaunch } from '../../../src/app/multiplexer.js';
import { tmuxShimScript } from '../../../src/agents/claude/launch.js';
import { writeTmuxShim } from '../../../src/store/claude-teams.js';
import { makeTeam, REPO } from '../../helpers/team.js';
import { PtyPanes, writeRelay } from './pty-panes.js';
import { PERL } from '../../helpers/hook-shell.js';

const NODE_CLIENT = path.join(REPO, 'dist', 'agents', 'claude', 'tmux-shim', 'client.js');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(perl: boolean) {
  const team = await makeTeam([]);
  cleanups.push(team.cleanup);
  const socket = team.store.paths.tmuxSocket;
  const shim = await writeTmuxShim(team.store.paths, tmuxShimScript(process.execPath, NODE_CLIENT, perl ? PERL : null));
  const relay = writeRelay(team.dir);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: team.dir, TMUX: `${socket},${process.pid},0`, TMUX_PANE: '%0', TEAMUX_TEAM_DIR: team.dir };
  // The lead's pane runs the relay itself, as it would run Claude Code.
  const lead: MemberLaunch = { name: 'lead', role: 'lead', isLead: true, speaksProtocol: true, command: process.execPath, args: [relay], cwd: team.dir, env };
  const control = new PtyPanes();
  cleanups.push(() => control.dispose());
  await control.open(lead);
  const bridge = new TmuxBridge({ socket, store: team.store, control, lead, planRequired: false, session: 'test' });
  await bridge.listen();
  cleanups.push(() => bridge.dispose());
  const log = () => (existsSync(team.store.paths.log) ? readFileSync(team.store.paths.log, 'utf8') : '');
  /** The stand-in run by the relay in pane `name` (claiming `claim` as $TMUX_PANE when given), or by a shell it starts. */
  const tmux = (name: string, argv: string[], how: { claim?: string; shell?: boolean } = {}) =>
    control.run(name, { argv: [shim, ...argv], ...(how.claim ? { env: { TMUX_PANE: how.claim } } : {}), ...(how.shell ? { shell: true } : {}) });
  return { team, control, bridge, shim, relay, log, tmux };
}

describe('a rewritten stand-in (issue 26, attack 3)', () => {
  it.skipIf(!existsSync(PERL))('caller-gate.a-rewritten-stand-in-is-refused-even-for-the-leads-own-process-and-stays-refused', async () => {
    const { log, tmux, shim, team } = await setup(true);
    expect(shim.startsWith(team.dir)).toBe(false);
    expect(await tmux('lead', ['split-window', '-d', '-P', '-F', '#{pane_id}', '--', 'exec sleep 600'])).toEqual({ out: '%1\n', code: 0 });
    // Rewritten by a teammate (here: the same client with a line added, as a wrapper that changes argv would be).
    const original = readFileSync(shim, 'utf8');
    chmodSync(path.dirname(shim), 0o700);
    writeFileSync(shim, original.replace('\n', '\n# rewritten\n'));
    const refused = await tmux('lead', ['kill-pane', '-t', '%1']);
    expect(refused).toMatchObject({ code: 1, out: expect.stringMatching(/^kill-pane: access not allowed: .* is not the stand-in teamux wrote \(it was rewritten/) });
    // Putting the original back does not make it trusted again; queries still answer.
    writeFileSync(shim, original);
    expect(await tmux('lead', ['kill-pane', '-t', '%1'])).toMatchObject({ code: 1, out: expect.stringMatching(/is not the stand-in teamux wrote/) });
    expect(await tmux('lead', ['display-message', '-p', '#{pane_id}'])).toEqual({ out: '%0\n', code: 0 });
    expect(log()).toMatch(/warn .*tmux stand-in: .* is not the stand-in teamux wrote/);
  });
});

describe.each([['perl', true], ['node', false]] as const)('the stand-in checks who calls it (%s client)', (_name, perl) => {
  it.skipIf(perl && !PERL)('caller-gate.a-teammate-pane-cannot-act-as-the-lead-and-the-lead-can', async () => {
    const { control, log, tmux, relay, team } = await setup(perl);
    // The lead's own process opens a "teammate" pane (sh -c 'cd … && node relay', like Claude Code's
    // teammate command) and a victim pane.
    const mate = `cd ${team.dir} && ${process.execPath} ${relay}`;
    expect(await tmux('lead', ['-S', team.store.paths.tmuxSocket, 'split-window', '-d', '-t', '%0', '-h', '-l', '70%', '-P', '-F', '#{pane_id}', '--', mate])).toEqual({ out: '%1\n', code: 0 });
    expect(await tmux('lead', ['split-window', '-d', '-P', '-F', '#{pane_id}', '--', 'exec sleep 600'])).toEqual({ out: '%2\n', code: 0 });
    const victim = control.pane('%2');
    const victimPid = victim.proc.pid;

    // In the teammate's pane, its agent claiming to be the lead's pane: respawn, kill and split are refused.
    const respawn = await tmux('%1', ['respawn-pane', '-k', '-t', '%2', '--', 'echo EVIL; sleep 600'], { claim: '%0' });
    expect(respawn.code).toBe(1);
    expect(respawn.out).toMatch(/^respawn-pane: access not allowed for pid \d+ in pane %1: only the lead's own Claude Code opens, respawns, closes and focuses panes \(it is the Claude Code of %1, which may only title and style its own pane\)\n$/);
    expect(await tmux('%1', ['kill-pane', '-t', '%2'], { claim: '%0' })).toMatchObject({ code: 1, out: expect.stringMatching(/^kill-pane: access not allowed for pid \d+ in pane %1/) });
    // No target: the current pane is the caller's true one, not the claimed %0 (and still refused).
    expect(await tmux('%1', ['kill-pane'], { claim: '%0' })).toMatchObject({ code: 1, out: expect.stringMatching(/in pane %1/) });
    expect(await tmux('%1', ['split-window', '-d', '--', 'echo EVIL'], { claim: '%0' })).toMatchObject({ code: 1 });
    expect(control.panes.map((p) => p.name)).toEqual(['lead', '%1', '%2']);
    expect(control.pane('%2')).toBe(victim);
    expect(victim.proc.pid).toBe(victimPid);
    expect(victim.exited).toBe(false);
    expect(victim.out).not.toContain('EVIL');

    // Its own pane's title is its to set, as its true pane, whatever it claims; another pane's is not,
    // and a shell it started may not set even its own.
    expect(await tmux('%1', ['select-pane', '-T', 'amy'], { claim: '%0' })).toEqual({ out: '', code: 0 });
    expect(await tmux('%1', ['select-pane', '-t', '%2', '-T', 'evil'])).toMatchObject({ code: 1 });
    expect(await tmux('%1', ['select-pane', '-T', 'evil'], { shell: true })).toMatchObject({ code: 1, out: expect.stringMatching(/started by a command in %1/) });
    expect(control.pane('%1').title).toBe('amy');
    expect(control.pane('%2').title).toBe('');
    // Queries are answered for anyone.
    expect(await tmux('%1', ['list-panes', '-F', '#{pane_id}:#{pane_title}'], { shell: true })).toEqual({ out: '%0:lead\n%1:amy\n%2:\n', code: 0 });

    // A process the lead's own process started (a Bash tool's `sh -c 'tmux …'`) is refused too.
    const grandchild = await tmux('lead', ['kill-pane', '-t', '%2'], { shell: true });
    expect(grandchild.code).toBe(1);
    expect(grandchild.out).toMatch(/in pane %0: .*\(it was started by a command in %0, not by that pane's Claude Code itself\)/);
    expect(victim.exited).toBe(false);

    // The lead's own process: accepted.
    expect(await tmux('lead', ['kill-pane', '-t', '%2'])).toEqual({ out: '', code: 0 });
    expect(control.panes.map((p) => p.name)).toEqual(['lead', '%1']);

    // Each refusal is logged with the pid, its command line and its true pane, and said on the status line.
    const refusals = log().split('\n').filter((l) => l.includes('tmux stand-in: refused'));
    expect(refusals.length).toBe(7);
    expect(refusals[0]).toMatch(/ warn .*refused `tmux respawn-pane -k -t %2 -- echo EVIL; sleep 600` from pid \d+ \(.*respawn-pane -k -t %2 -- echo EVIL; sleep 600; (tmux|node) < node < sh\) in %1, claiming %0: pid \d+ in pane %1: it is the Claude Code of %1/);
    expect(log()).toMatch(/tmux stand-in: kill-pane from pid \d+ \((tmux|node) < node\) in %0 \(claimed %0; caller checked in \d+ ms\)/);
    expect(control.said.filter((s) => /^tmux stand-in: refused (respawn-pane|kill-pane|split-window|select-pane) from pid \d+ in %[01] \(see teamux.log\)$/.test(s)).length).toBe(7);
  }, 180_000);
});

describe('a caller outside every pane', () => {
  it.skipIf(!PERL)('caller-gate.a-process-outside-the-panes-may-query-but-not-change', async () => {
    const { shim, team, control } = await setup(true);
    const { execFile } = await import('node:child_process');
    const run = (argv: string[]) => new Promise<{ code: number; out: string; err: string }>((resolve) => {
      execFile(shim, argv, { env: { PATH: process.env.PATH ?? '', TMUX: `${team.store.paths.tmuxSocket},1,0`, TMUX_PANE: '%0' }, timeout: 30_000 }, (err, out, errText) => resolve({ code: err ? Number(err.code ?? 1) : 0, out, err: errText }));
    });
    // This test's own process is in no pane (the lead pane runs the relay).
    expect(await run(['display-message', '-p', '#{pane_id}'])).toEqual({ code: 0, out: '%0\n', err: '' });
    expect(await run(['kill-pane', '-t', '%0'])).toMatchObject({ code: 1, out: '', err: expect.stringMatching(/^kill-pane: access not allowed for pid \d+ outside every teamux pane/) });
    // A hand-made request: naming the lead pane's pid does not make it the lead (that process does not
    // hold this connection); naming no pid sends the check to `ss -xpn`, which finds this process.
    const raw = (req: object) => new Promise<string>((resolve) => {
      const c = createConnection(team.store.paths.tmuxSocket, () => c.write(`${JSON.stringify(req)}\n`));
      let got = '';
      c.setEncoding('utf8').on('data', (d: string) => (got += d)).on('close', () => resolve(got));
    });
    const leadPid = control.pane('lead').proc.pid!;
    expect(JSON.parse(await raw({ argv: ['kill-pane', '-t', '%0'], pane: '%0', pid: leadPid }))).toMatchObject({ code: 1, err: expect.stringMatching(new RegExp(`^kill-pane: access not allowed: teamux cannot tell which process is calling \\(no process named holds socket \\d+ \\(named: ${leadPid}\\)\\)`)) });
    expect(JSON.parse(await raw({ argv: ['kill-pane', '-t', '%0'], pane: '%0' }))).toMatchObject({ code: 1, err: expect.stringMatching(new RegExp(`^kill-pane: access not allowed for pid ${process.pid} outside every teamux pane`)) });
    expect(control.panes.map((p) => p.name)).toEqual(['lead']);
  }, 120_000);
});
