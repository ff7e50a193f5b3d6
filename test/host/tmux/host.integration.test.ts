/**
 * TmuxHost against a real tmux 3.3a. Every test gets its own private server (`-L teamux-test-*`,
 * `-f /dev/null`), killed in afterEach; the default tmux server is never touched. Every test runs
 * twice: with pane output from control mode's %output, and through pipe-pane FIFOs.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TmuxHost } from '../../../src/host/tmux/host.js';
import type { TmuxPane } from '../../../src/host/tmux/pane.js';
import type { PaneExit, PaneProcess, PaneSpec } from '../../../src/host/types.js';
import { alive, collect, killServer, privateSocket, tmuxSync, waitFor } from './helpers.js';

const TEAM_DIR = '/tmp/teamux-test-team';

function spec(id: string, command: string, args: string[], size = { cols: 80, rows: 24 }): PaneSpec {
  return {
    id,
    command,
    args,
    cwd: process.cwd(),
    env: { TEAMUX_TEAM_DIR: TEAM_DIR, TEAMUX_MEMBER: id },
    ...size,
  };
}

const exitOf = (pane: PaneProcess): Promise<PaneExit> => new Promise((resolve) => pane.onExit(resolve));
const paneId = (pane: PaneProcess): string => (pane as TmuxPane).paneId;
/** What a pane has shown so far: the replayed screen, then the live bytes. */
const shown = (pane: PaneProcess, out: { text: () => string }): string => (pane.initialScreen ?? '') + out.text();

/** Text with escape sequences removed and line ends as \n. */
const plain = (text: string): string => text.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]/g, '').replace(/\r/g, '');

describe.each(['control', 'pipe'] as const)('TmuxHost on a private tmux server (%s output)', { timeout: 30_000 }, (output) => {
  let socket: string;
  let hosts: TmuxHost[];

  const newHost = (env: Record<string, string> = {}): TmuxHost => {
    const host = new TmuxHost({ socket, session: 'team', cwd: process.cwd(), env, configFile: '/dev/null', output });
    hosts.push(host);
    return host;
  };

  beforeEach(() => {
    socket = privateSocket();
    hosts = [];
  });

  afterEach(async () => {
    for (const host of hosts) await host.dispose();
    killServer(socket);
  });

  it('streams each member’s exact output bytes and feeds it input (even when started inside tmux)', async () => {
    const host = newHost({ TMUX: '/tmp/tmux-0/default,1,0', TMUX_PANE: '%9' });
    const alice = await host.spawn(spec('alice', 'cat', []));
    // Pipe output: what a member prints before its pipe opens is in its snapshot, so bob waits for a line.
    const wait = output === 'pipe' ? 'read x; ' : '';
    const bob = await host.spawn(
      spec('bob', 'sh', ['-c', `${wait}printf 'héllo \\033[31mred\\033[0m\\n'; echo "$TEAMUX_MEMBER:$TEAMUX_TEAM_DIR"; exec sleep 60`]),
    );
    const bobOut = collect(bob);
    if (output === 'pipe') bob.write('\r');
    const expected = Buffer.from(`${output === 'pipe' ? '\r\n' : ''}héllo \x1b[31mred\x1b[0m\r\nbob:${TEAM_DIR}\r\n`, 'utf8');
    await waitFor('bob output', () => bobOut.bytes().length >= expected.length);
    expect(bobOut.bytes()).toEqual(expected);

    const aliceOut = collect(alice);
    alice.write('ping é\r');
    await waitFor('alice echo', () => aliceOut.text().includes('ping é\r\nping é\r\n'));

    // pid is the member's own process, not a shell around it
    expect(readFileSync(`/proc/${alice.pid}/comm`, 'utf8').trim()).toBe('cat');
    expect(tmuxSync(socket, ['list-panes', '-a', '-F', '#{@teamux_member} #{pane_pid}']).trim().split('\n')).toEqual([
      `alice ${alice.pid}`,
      `bob ${bob.pid}`,
    ]);
  });

  it('resizes the member’s window and the process sees the new size', async () => {
    const host = newHost();
    const pane = await host.spawn(spec('sizer', 'sh', ['-c', 'stty size; while read l; do stty size; done']));
    const out = collect(pane);
    await waitFor('initial size', () => shown(pane, out).includes('24 80'));
    pane.resize(100, 30);
    pane.write('\r');
    await waitFor('new size', () => out.text().includes('30 100'));
    expect(tmuxSync(socket, ['display-message', '-p', '-t', paneId(pane), '#{window_width}x#{window_height}']).trim()).toBe(
      '100x30',
    );
  });

  it('keeps members running after a detach and reattaches with their screens', async () => {
    const first = newHost();
    const alice = await first.spawn(spec('alice', 'sh', ['-c', `printf 'alice was here\\n'; exec cat`]));
    const bob = await first.spawn(spec('bob', 'sh', ['-c', `printf 'bob too\\n'; exec sleep 60`]));
    const aliceOut = collect(alice);
    const bobOut = collect(bob);
    await waitFor('first output', () => shown(alice, aliceOut).includes('alice was here') && shown(bob, bobOut).includes('bob too'));
    await first.dispose();

    expect(tmuxSync(socket, ['list-clients', '-F', '#{client_name}']).trim()).toBe('');
    const listing = tmuxSync(socket, ['list-panes', '-a', '-F', '#{pane_pid} #{pane_dead}']).trim().split('\n');
    expect(listing).toEqual([`${alice.pid} 0`, `${bob.pid} 0`]);
    expect(alive(alice.pid!) && alive(bob.pid!)).toBe(true);
    // A detached host leaves no pipe behind (its FIFOs are gone with it).
    const pipes = (): string[] => tmuxSync(socket, ['list-panes', '-a', '-F', '#{pane_pipe}']).trim().split('\n');
    expect(pipes()).toEqual(['0', '0']);

    const second = newHost();
    const panes = await second.attach();
    expect(panes.map((pane) => [pane.id, pane.pid])).toEqual([
      ['alice', alice.pid],
      ['bob', bob.pid],
    ]);
    expect(panes[0]!.initialScreen).toContain('alice was here');
    expect(panes[1]!.initialScreen).toContain('bob too');
    expect(pipes()).toEqual(output === 'pipe' ? ['1', '1'] : ['0', '0']);

    const again = collect(panes[0]!);
    panes[0]!.write('again\r');
    await waitFor('echo after reattach', () => again.text().includes('again\r\nagain\r\n'));

    const carol = await second.spawn(spec('carol', 'sh', ['-c', `printf 'carol joined\\n'; exec sleep 60`]));
    const carolOut = collect(carol);
    await waitFor('new member after reattach', () => shown(carol, carolOut).includes('carol joined'));
  });

  // Pipe output: the counter prints throughout the second attach, the case in which a no-output flag
  // set after the attach wedged tmux 3.3a's reply queue (see attachArgs).
  it('hands over from the snapshot to the stream on attach without losing or repeating a line', async () => {
    const first = newHost();
    // Counts until the server is killed, so it is still counting whenever the second host attaches.
    const counter = await first.spawn(spec('counter', 'perl', ['-e', '$|=1; for $i (1..1000000) { print "$i\\n"; select(undef,undef,undef,0.002) }']));
    // Detach while it counts, then attach again mid-stream.
    await waitFor('the count under way', () => /^(4\d\d|[5-9]\d\d|\d{4,})$/m.test(tmuxSync(socket, ['capture-pane', '-p', '-t', paneId(counter)])), 30_000);
    await first.dispose();
    const second = newHost();
    const [pane] = await second.attach();
    const live = collect(pane!);
    await waitFor('300 lines after the attach', () => live.text().split('\r\n').length > 300, 45_000);
    const text = plain((pane!.initialScreen ?? '') + live.text());
    // Complete lines only: the last one may still be arriving.
    const numbers = text.slice(0, text.lastIndexOf('\n')).split('\n').filter((l) => l.trim() !== '').map(Number);
    // From the oldest line of the snapshot's history to the newest line streamed: every number once, in order.
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => numbers[0]! + i));
    expect(numbers.length).toBeGreaterThan(300 + 24);
  }, 90_000);

  it('reports a member’s exit status and keeps its pane (remain-on-exit)', async () => {
    const host = newHost();
    await host.spawn(spec('idle', 'sleep', ['60']));
    const quitter = await host.spawn(spec('quitter', 'sh', ['-c', 'read x; exit 7']));
    const quit = exitOf(quitter);
    quitter.write('\r');
    await expect(quit).resolves.toEqual({ exitCode: 7, signal: null });
    expect(tmuxSync(socket, ['display-message', '-p', '-t', paneId(quitter), '#{pane_dead} #{pane_dead_status}']).trim()).toBe(
      '1 7',
    );

    const victim = await host.spawn(spec('victim', 'sleep', ['60']));
    const killed = exitOf(victim);
    victim.kill();
    await expect(killed).resolves.toEqual({ exitCode: null, signal: 'SIGTERM' });
    await expect(exitOf(victim)).resolves.toEqual({ exitCode: null, signal: 'SIGTERM' }); // sticky
  });

  it('holds output while paused and loses none of it on resume', async () => {
    const host = newHost();
    await host.spawn(spec('idle', 'sleep', ['60']));
    const counter = await host.spawn(spec('counter', 'sh', ['-c', 'read x; seq 1 20000; exec sleep 60']));
    const out = collect(counter);
    counter.pause();
    counter.write('\r');
    await waitFor('tmux to see the whole count', () =>
      tmuxSync(socket, ['capture-pane', '-p', '-t', paneId(counter)]).includes('20000'),
    );
    expect(out.bytes().length).toBe(0);
    counter.resume();
    await waitFor('the held count', () => out.text().includes('20000\r\n'));
    const numbers = out.text().split('\r\n').filter((line) => line !== '');
    expect(numbers).toEqual(Array.from({ length: 20000 }, (_, i) => String(i + 1)));
  });

  it('ends the session, the server and the members on dispose with kill', async () => {
    const host = newHost();
    const a = await host.spawn(spec('alice', 'sleep', ['60']));
    const b = await host.spawn(spec('bob', 'cat', []));
    expect(await TmuxHost.listSessions(socket)).toEqual(['team']);
    expect(await TmuxHost.hasSession(socket, 'team')).toBe(true);
    expect(await TmuxHost.hasSession(socket, 'tea')).toBe(false);
    await host.dispose({ kill: true });
    expect(() => tmuxSync(socket, ['ls'])).toThrow();
    await waitFor('members to end', () => !alive(a.pid!) && !alive(b.pid!));
    expect(await TmuxHost.listSessions(socket)).toEqual([]);
  });
});
