// The stand-in's caller check as logic, over a fake /proc and a fake socket table: the peer of a
// connection is read from `ss -xpn` rows and believed only where /proc/PID/fd shows the process
// holding that socket; its ancestry puts it in a pane; and the policy lets the lead's own Claude
// Code do everything, a teammate's own Claude Code title and style only its own pane, and nobody
// else change anything, whatever $TMUX_PANE it claims. The same, against real processes and a real
// bridge socket, is in caller-gate.test.ts.
import { existsSync, mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ancestry, callerOf, diagPeers, parseStat, peersInTable, placeInPane, shownCommand, ssTable, tablePeers, type Caller, type PeerSource, type ProcReader } from '../../../src/host/socket-caller.js';
import { changeOf, permit } from '../../../src/agents/claude/tmux-shim/caller-policy.js';
import { SockDiag } from '../../../src/host/sock-diag.js';
import type { TmuxCommand } from '../../../src/agents/claude/tmux-shim/argv.js';

/** A process table: pid → [comm, ppid, socket inodes it holds, cmdline, session id (default: its own pid)]. */
type Table = Record<number, [string, number, number[]?, string?, number?]>;

function fakeProc(table: Table, ownInode = 5000): ProcReader {
  return {
    stat: (pid) => {
      const p = table[pid];
      return p ? `${pid} (${p[0]}) S ${p[1]} ${pid} ${p[4] ?? pid} 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 ${1000 + pid} 1 1` : null;
    },
    cmdline: (pid) => table[pid]?.[3] ?? (table[pid] ? `${table[pid]![0]}\0` : null),
    fds: (pid) => (table[pid] ? ['/dev/pts/3', ...(table[pid]![2] ?? []).map((i) => `socket:[${i}]`)] : null),
    ownSocketInode: (fd) => (fd === 7 ? ownInode : null),
  };
}

const row = (client: number, server: number, users: string): string => `u_str ESTAB 0      0                                   * ${client}            * ${server} users:(${users})`;
const SS_HEAD = 'Netid State Recv-Q Send-Q                  Local Address:Port    Peer Address:Port   Process';

/**
 * teamux (10) runs the lead's claude (20, pane %0) and a teammate pane %1 whose root is
 * `sh -c 'cd … && env … claude'` (30), with claude under it (31). Bash tool shells: 21 under the lead,
 * 32 under the teammate. Stand-ins: 100 (lead's claude), 101 (lead's Bash), 102 (teammate's claude),
 * 103 (teammate's Bash), 104 (outside every pane), 107 (`exec tmux` in the lead's Bash: the tool's session).
 * Each pane root leads its session; each Bash tool shell leads one of its own (Claude Code setsids it).
 */
const WORLD: Table = {
  1: ['systemd', 0], 10: ['node', 1], 20: ['claude', 10], 21: ['bash', 20], 30: ['sh', 10], 31: ['claude', 30, [], undefined, 30], 32: ['bash', 31], 40: ['zsh', 1],
  100: ['tmux', 20, [900], 'perl\0/t/claude/bin/tmux\0respawn-pane\0', 20], 101: ['tmux', 21, [901], undefined, 21], 102: ['tmux', 31, [902], undefined, 30], 103: ['tmux', 32, [903], 'perl\0tmux\0respawn-pane\0-t\0%2\0\x1b]0;evil\x07', 32], 104: ['tmux', 40, [904], undefined, 40],
  // `exec tmux …` in the lead's Bash call (session 21): a direct child of the lead's claude, in the tool's session.
  107: ['tmux', 20, [905], undefined, 21],
};
const PANES = [{ id: '%0', pid: 20 }, { id: '%1', pid: 30 }, { id: '%2', pid: 50 }];

describe('the caller of a connection, from /proc', () => {
  it('caller.parse-stat-takes-comm-up-to-the-last-parenthesis', () => {
    expect(parseStat('4321 (a) b (c)) S 77 4321 4000 34816 4321 4194560 1 2 0 0 0 0 0 0 20 0 1 0 99123 1 1')).toEqual({ pid: 4321, comm: 'a) b (c)', ppid: 77, pgid: 4321, sid: 4000, start: 99123 });
    expect(parseStat('garbage')).toBeNull();
    expect(parseStat('12 (x) S')).toBeNull();
  });

  it('caller.ancestry-walks-up-to-init-and-stops-where-proc-stops', () => {
    expect(ancestry(102, fakeProc(WORLD)).map((p) => p.pid)).toEqual([102, 31, 30, 10, 1]);
    expect(ancestry(7, fakeProc(WORLD))).toEqual([]);
    // A loop in a (forged or racing) table ends at the depth limit instead of spinning.
    expect(ancestry(1, fakeProc({ 1: ['a', 2], 2: ['b', 1] })).length).toBe(64);
  });

  it('caller.place-in-pane-tells-the-agent-from-what-it-started', () => {
    const at = (pid: number) => placeInPane(ancestry(pid, fakeProc(WORLD)), PANES);
    expect(at(100)).toEqual({ pane: '%0', fromAgent: true });
    expect(at(101)).toEqual({ pane: '%0', fromAgent: false });
    // The teammate's claude sits under the launching sh: looked through.
    expect(at(102)).toEqual({ pane: '%1', fromAgent: true });
    expect(at(103)).toEqual({ pane: '%1', fromAgent: false });
    expect(at(104)).toEqual({ pane: null, fromAgent: false });
    // Parent is the lead's claude, but the session is the Bash tool's: not the agent's own call.
    expect(at(107)).toEqual({ pane: '%0', fromAgent: false });
    // The pane's root process itself calling is not its agent's call.
    expect(placeInPane(ancestry(20, fakeProc(WORLD)), PANES)).toEqual({ pane: '%0', fromAgent: false });
  });

  it('caller.peers-in-table-reads-the-client-row-of-our-socket', () => {
    const text = [
      SS_HEAD,
      'u_str ESTAB 0      0      /work/t/.teamux/x/tmux.sock 5000            * 900 users:(("node",pid=10,fd=7))',
      row(900, 5000, '("tmux",pid=100,fd=3)'),
      row(901, 5001, '("tmux",pid=101,fd=3),("tmux",pid=105,fd=3)'),
    ].join('\n');
    expect(peersInTable(text, 5000)).toEqual({ inode: 900, pids: [100] });
    expect(peersInTable(text, 5001)).toEqual({ inode: 901, pids: [101, 105] });
    expect(peersInTable(text, 4999)).toBeNull();
    // With a state filter ss drops the State column; a process name cannot hide its real pid.
    expect(peersInTable('u_str 0 0 * 902 * 5002 users:(("x",pid=20,fd=1),(",pid=102,fd=4))', 5002)).toEqual({ inode: 902, pids: [20, 102] });
    expect(peersInTable('u_str ESTAB 0 0 * 903 * 5003', 5003)).toEqual({ inode: 903, pids: [] });
  });

  it('caller.caller-of-believes-only-processes-that-hold-the-socket', async () => {
    const table = (text: string) => tablePeers({ read: async () => ({ text }) });
    const of = (text: string, world: Table = WORLD) => callerOf(7, null, () => PANES, fakeProc(world), table(text));
    expect(await of(row(900, 5000, '("tmux",pid=100,fd=3)'))).toEqual({ pid: 100, command: 'perl /t/claude/bin/tmux respawn-pane', pane: '%0', fromAgent: true, lineage: 'tmux < claude' });
    // A name forged to list the lead's claude (20): 20 does not hold socket 903, so only 103 counts.
    expect(await of(row(903, 5000, '("tmux",pid=20,fd=3),("tmux",pid=103,fd=3)'))).toMatchObject({ pid: 103, pane: '%1', fromAgent: false, command: 'perl tmux respawn-pane -t %2 ]0;evil', lineage: 'tmux < bash < claude < sh' });
    // Nobody listed holds it: unknown, with the listed pids named.
    expect(await of(row(903, 5000, '("tmux",pid=20,fd=3)'))).toMatchObject({ error: expect.stringMatching(/no process named holds socket 903 \(named: 20\)/) });
    // Held by two processes in different places (a fork after connecting): outside every pane.
    const forked = { ...WORLD, 106: ['tmux', 20, [904]] as Table[number] };
    expect(await of(row(904, 5000, '("tmux",pid=106,fd=3),("tmux",pid=104,fd=3)'), forked)).toMatchObject({ pid: 106, pane: null, fromAgent: false });
    // Outside every pane, the lineage is cut after six names.
    const deep: Table = { 1: ['init', 0] };
    for (let pid = 2; pid <= 9; pid++) deep[pid] = [`p${pid}`, pid - 1];
    deep[9] = ['tmux', 8, [905]];
    expect(await of(row(905, 5000, '("tmux",pid=9,fd=3)'), deep)).toMatchObject({ pane: null, lineage: 'tmux < p8 < p7 < p6 < p5 < p4 < …' });
    expect(await of(SS_HEAD)).toMatchObject({ error: expect.stringMatching(/no peer for socket 5000/) });
    expect(await callerOf(8, null, () => PANES, fakeProc(WORLD), table(''))).toMatchObject({ error: expect.stringMatching(/inode of the accepted socket/) });
    expect(await callerOf(7, null, () => PANES, fakeProc(WORLD), tablePeers({ read: async () => ({ error: '`ss` is not installed', hint: 'install iproute2' }) }))).toEqual({ error: '`ss` is not installed', hint: 'install iproute2' });
  });

  it('caller.a-claimed-pid-is-believed-only-if-it-holds-the-peer-socket', async () => {
    const asked: number[] = [];
    const diag = { peerOf: async (inode: number) => (asked.push(inode), inode === 5000 ? { peer: 903 } : { error: 'sock_diag: ERR errno 2' }) };
    const fallback: PeerSource = { peer: async () => ({ inode: 903, pids: [103] }) };
    const of = (pid: number | null, own = 5000) => callerOf(7, pid, () => PANES, fakeProc(WORLD, own), diagPeers(diag, fallback));
    expect(await of(103)).toMatchObject({ pid: 103, pane: '%1', fromAgent: false });
    expect(asked).toEqual([5000]);
    // Claiming to be the lead's claude (or its stand-in 100) does not make it so: they do not hold socket 903.
    expect(await of(20)).toMatchObject({ error: expect.stringMatching(/no process named holds socket 903 \(named: 20\)/) });
    expect(await of(100)).toMatchObject({ error: expect.stringMatching(/named: 100/) });
    // No claim, or a helper that cannot answer: the whole table decides.
    expect(await of(null)).toMatchObject({ pid: 103 });
    expect(await of(20, 5001)).toMatchObject({ pid: 103 });
  });

  it('caller.shown-command-strips-control-characters-and-truncates', () => {
    expect(shownCommand('a\0b\x1b[31m\0c\0')).toBe('a b[31m c');
    expect(shownCommand('x'.repeat(500))).toBe(`${'x'.repeat(160)}…`);
    expect(shownCommand(null)).toBe('(gone)');
  });

  it('caller.ss-table-without-ss-says-to-install-iproute2', async () => {
    expect(await ssTable('/nonexistent').read()).toMatchObject({ error: '`ss` is not installed', hint: expect.stringMatching(/install iproute2/) });
  });
});

describe('what a caller may change', () => {
  const cmd = (...argv: string[]): TmuxCommand => {
    const c = changeOf(argv);
    if (!c) throw new Error(`${argv.join(' ')} is a query`);
    return c;
  };
  const lead: Caller = { pid: 100, command: 'tmux', pane: '%0', fromAgent: true, lineage: 'tmux < claude' };
  const leadBash: Caller = { pid: 101, command: 'tmux', pane: '%0', fromAgent: false, lineage: 'tmux < bash < claude' };
  const mate: Caller = { pid: 102, command: 'tmux', pane: '%1', fromAgent: true, lineage: 'tmux < claude < sh' };
  const mateBash: Caller = { pid: 103, command: 'tmux', pane: '%1', fromAgent: false, lineage: 'tmux < bash < claude < sh' };
  const outside: Caller = { pid: 104, command: 'tmux', pane: null, fromAgent: false, lineage: 'tmux < zsh < systemd' };

  it('caller.queries-pass-for-anyone-and-changes-are-checked', () => {
    for (const q of [['-V'], ['display-message', '-p', '#{pane_id}'], ['-S', '/s', 'list-panes', '-F', '#{pane_id}'], ['show', '-gv', 'focus-events'], ['has-session'], ['ls'], ['bogus'], ['kill-pane', '-X']]) expect(changeOf(q)).toBeNull();
    for (const c of [['splitw', '-d'], ['respawn-pane', '-k', '-t', '%1', '--', 'x'], ['kill-pane'], ['set', '-p', 'remain-on-exit', 'failed'], ['selectp', '-T', 'x']]) expect(changeOf(c)).not.toBeNull();
  });

  it('caller.policy-table', () => {
    const ok = (c: TmuxCommand, who: Caller) => permit(c, who, '%0').ok;
    // The lead's own Claude Code: everything, as its true pane.
    for (const c of [cmd('split-window', '-d', '--', 'cat'), cmd('respawn-pane', '-k', '-t', '%1', '--', 'x'), cmd('kill-pane', '-t', '%1'), cmd('select-pane', '-t', '%1'), cmd('set-option', '-w', '-t', '@0', 'pane-border-status', 'top')]) {
      expect(permit(c, lead, '%0')).toEqual({ ok: true, pane: '%0' });
      for (const who of [leadBash, mate, mateBash, outside]) expect(ok(c, who)).toBe(false);
    }
    // A teammate's own Claude Code: titles and pane options on its own pane (its true pane, whatever it claimed).
    expect(permit(cmd('select-pane', '-T', 'amy'), mate, '%0')).toEqual({ ok: true, pane: '%1' });
    expect(ok(cmd('select-pane', '-t', '%1', '-T', 'amy'), mate)).toBe(true);
    expect(ok(cmd('set-option', '-p', '-t', '%1', 'pane-border-style', 'fg=blue'), mate)).toBe(true);
    expect(ok(cmd('set-option', '-p', '-u', 'remain-on-exit'), mate)).toBe(true);
    expect(ok(cmd('select-pane', '-t', '%2', '-T', 'amy'), mate)).toBe(false);
    expect(ok(cmd('select-pane', '-t', '%1'), mate)).toBe(false);
    expect(ok(cmd('select-pane', '-t', '%1', '-T', 'x', '-P', 'bg=red'), mate)).toBe(false);
    expect(ok(cmd('set-option', '-p', '-t', '%0', 'window-style', 'bg=red'), mate)).toBe(false);
    expect(ok(cmd('set-option', '-w', 'pane-border-status', 'top'), mate)).toBe(false);
    expect(ok(cmd('set-option', '-g', 'status', 'off'), mate)).toBe(false);
    expect(ok(cmd('set-option', '-p', '-t', '@0', 'window-style', 'bg=red'), mate)).toBe(false);
    // A Bash tool of the teammate may not even title its own pane.
    expect(ok(cmd('select-pane', '-T', 'amy'), mateBash)).toBe(false);
  });

  it('caller.refusals-say-who-and-why', () => {
    const r = permit(cmd('respawn-pane', '-k', '-t', '%2', '--', 'evil'), mate, '%0');
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/^respawn-pane: access not allowed for pid 102 in pane %1: only the lead's own Claude Code .*may only title and style its own pane/), why: expect.stringMatching(/pid 102 in pane %1/) });
    expect(permit(cmd('kill-pane'), leadBash, '%0')).toMatchObject({ ok: false, error: expect.stringMatching(/started by a command in %0, not by that pane's Claude Code itself/) });
    expect(permit(cmd('kill-pane'), outside, '%0')).toMatchObject({ ok: false, error: expect.stringMatching(/pid 104 outside every teamux pane/) });
    expect(permit(cmd('kill-pane'), { error: '`ss` is not installed', hint: 'install iproute2' }, '%0')).toEqual({ ok: false, error: 'kill-pane: access not allowed: teamux cannot tell which process is calling (`ss` is not installed); install iproute2', why: '`ss` is not installed' });
  });
});

describe('the sock_diag helper, against the kernel', () => {
  it.skipIf(!existsSync('/usr/bin/perl'))('caller.sock-diag-names-the-peer-of-a-real-socket', async () => {
    const diag = new SockDiag('/usr/bin/perl');
    const dir = mkdtempSync(path.join(tmpdir(), 'teamux-diag-'));
    const server = createServer();
    try {
      const file = path.join(dir, 's.sock');
      const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
      await new Promise<void>((resolve) => server.listen(file, resolve));
      const client = createConnection(file);
      await new Promise((resolve) => client.once('connect', resolve));
      const inodeOf = (s: Socket) => Number(/\[(\d+)\]/.exec(readlinkSync(`/proc/self/fd/${(s as unknown as { _handle: { fd: number } })._handle.fd}`))![1]);
      const ours = await accepted;
      expect(await diag.peerOf(inodeOf(ours))).toEqual({ peer: inodeOf(client) });
      expect(await diag.peerOf(inodeOf(client))).toEqual({ peer: inodeOf(ours) });
      expect(await diag.peerOf(4_000_000_000)).toEqual({ error: 'sock_diag: errno 2' });
      client.destroy();
      ours.destroy();
    } finally {
      diag.dispose();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await diag.peerOf(1)).toEqual({ error: 'disposed' });
  });

  it('caller.sock-diag-without-perl-says-so', async () => {
    const diag = new SockDiag('/nonexistent/perl');
    expect(await diag.peerOf(1)).toMatchObject({ error: expect.stringMatching(/could not run/) });
    expect(await diag.peerOf(1)).toMatchObject({ error: expect.stringMatching(/`\/nonexistent\/perl` is not installed/) });
    diag.dispose();
  });
});
