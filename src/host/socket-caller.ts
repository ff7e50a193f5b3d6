/**
 * Who is really calling the tmux stand-in: the process at the other end of an accepted unix-socket
 * connection. Node has no SO_PEERCRED, so the kernel is asked for the peer socket's inode (through
 * sock_diag: the Perl helper of sock-diag.ts, or the whole table from `ss -xpn`), the process that
 * holds it is checked against its own /proc/PID/fd (a pid the client names, or those `ss` lists),
 * then walked up its /proc ancestry to
 * the pane whose root process teamux started. That gives the caller's true pane and whether its
 * parent is that pane's own agent process (the Claude Code a pane runs) or something the agent
 * started (a Bash tool's shell). Nothing here trusts what the caller says about itself ($TMUX_PANE).
 * The /proc reads and the peer look-up go through a `ProcReader` and a `PeerSource` so the logic is
 * tested with fakes; `realProc`, `ssTable` and `diagPeers` are the Linux ones.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** What /proc says about one process. */
export interface ProcFacts {
  pid: number;
  /** The kernel's short name (`comm`, 15 bytes at most). */
  comm: string;
  ppid: number;
  pgid: number;
  sid: number;
  /** Start time in clock ticks after boot: with the pid, it names a process across pid reuse. */
  start: number;
}

/** The few /proc reads the caller check needs (fake in tests). */
export interface ProcReader {
  /** The text of /proc/PID/stat, or null when the process is gone. */
  stat(pid: number): string | null;
  /** /proc/PID/cmdline (NUL-separated), or null. */
  cmdline(pid: number): string | null;
  /** Where each of /proc/PID/fd/* points (`socket:[123]`, a path), or null when unreadable. */
  fds(pid: number): string[] | null;
  /** The inode of one of this process's own sockets, from /proc/self/fd/FD. */
  ownSocketInode(fd: number): number | null;
}

/** The kernel's table of unix sockets, as `ss -xpn` prints it (fake in tests). */
export interface SocketTable {
  /** The table's text, or why it could not be had. */
  read(): Promise<{ text: string } | { error: string; hint: string }>;
}

/** The peer of a connection, and the pane it runs in. */
export interface Caller {
  /** The process holding the other end (the stand-in itself). */
  pid: number;
  /** Its command line, for the log (truncated, control characters removed). */
  command: string;
  /** The teamux pane whose process tree it belongs to, or null when outside every pane. */
  pane: string | null;
  /** Its parent is that pane's agent process itself (not a shell or tool the agent started). */
  fromAgent: boolean;
  /** The names of it and its ancestors up to its pane's root (`tmux < claude`), for the log. */
  lineage: string;
}

/** A pane as the check sees it: its id and the pid of the process teamux started in it. */
export interface PaneRoot {
  id: string;
  pid: number;
}

/** Programs that only start the agent (a shell running `cd … && env … claude`, `env`): looked through. */
const LAUNCHERS = new Set(['sh', 'dash', 'bash', 'zsh', 'ksh', 'mksh', 'env']);
const MAX_DEPTH = 64;
const COMMAND_SHOWN = 160;

/** Parse /proc/PID/stat; `comm` may hold spaces and parentheses, so it is cut at the last `)`. */
export function parseStat(text: string): ProcFacts | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // After comm: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
  // cutime cstime priority nice num_threads itrealvalue starttime (field 22 of stat(5)).
  const rest = text.slice(close + 1).trim().split(/\s+/);
  const [ppid, pgid, sid, start] = [rest[1], rest[2], rest[3], rest[19]].map(Number);
  if (!Number.isInteger(pid) || ![ppid, pgid, sid, start].every((n) => Number.isInteger(n))) return null;
  return { pid, comm: text.slice(open + 1, close), ppid: ppid!, pgid: pgid!, sid: sid!, start: start! };
}

/** The process and its ancestors, nearest first, up to pid 1 (or where /proc stops answering). */
export function ancestry(pid: number, proc: ProcReader): ProcFacts[] {
  const chain: ProcFacts[] = [];
  let next = pid;
  while (next > 0 && chain.length < MAX_DEPTH) {
    const text = proc.stat(next);
    const facts = text === null ? null : parseStat(text);
    if (!facts || facts.pid !== next) break;
    chain.push(facts);
    next = facts.ppid;
  }
  return chain;
}

/**
 * Place a process in a pane: the first of its ancestors (itself included) that is a pane's root.
 * `fromAgent` holds when its parent is the pane's agent process: the root itself, or a process the
 * root started through launchers only (`sh -c 'cd … && env … claude'` forks claude under sh), and
 * every process from the caller up to the root is in the root's session.
 */
export function placeInPane(chain: readonly ProcFacts[], panes: readonly PaneRoot[]): { pane: string | null; fromAgent: boolean } {
  const rootAt = chain.findIndex((p) => panes.some((r) => r.pid === p.pid));
  if (rootAt < 0) return { pane: null, fromAgent: false };
  const pane = panes.find((r) => r.pid === chain[rootAt]!.pid)!.id;
  // chain[0] is the caller, chain[1] its parent; everything above the parent, up to the root, must be a launcher.
  // And all of them must be in the pane's own session. Claude Code runs each Bash tool call in a session of
  // its own (setsid; observed with 2.1.328), and no process can join another session: so `exec tmux …` in a
  // Bash call, which leaves the stand-in a direct child of Claude Code, is still told from Claude Code's own call.
  const session = chain[rootAt]!.sid;
  const fromAgent = rootAt >= 1 && chain.slice(2, rootAt + 1).every((p) => LAUNCHERS.has(p.comm)) && chain.slice(0, rootAt + 1).every((p) => p.sid === session);
  return { pane, fromAgent };
}

/**
 * The processes `ss -xpn` names as holding the other end of the socket whose inode is `inode`, and
 * that end's own inode. A row is `u_str [STATE] RECVQ SENDQ LOCAL LOCAL_INODE PEER PEER_INODE users:((…))`;
 * the client's row is unnamed (LOCAL `*`, as the stand-in never binds) and its last number (its
 * peer's inode) is ours. A row that reads otherwise is skipped: the holders are checked anyway.
 */
export function peersInTable(text: string, inode: number): { inode: number; pids: number[] } | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith('u_')) continue;
    const users = line.indexOf('users:(');
    const head = (users < 0 ? line : line.slice(0, users)).trimEnd();
    const m = /\s\*\s+(\d+)\s+\S.*?\s(\d+)$/.exec(head);
    if (!m || Number(m[2]) !== inode) continue;
    const pids = users < 0 ? [] : [...line.slice(users).matchAll(/pid=(\d+)/g)].map((x) => Number(x[1]));
    return { inode: Number(m[1]), pids: [...new Set(pids)] };
  }
  return null;
}

/** `tmux < bash < claude`: a chain's names up to the first pane root (or 6 names), control characters removed. */
export function lineageOf(chain: readonly ProcFacts[], panes: readonly PaneRoot[]): string {
  const rootAt = chain.findIndex((p) => panes.some((r) => r.pid === p.pid));
  const shown = chain.slice(0, rootAt < 0 ? 6 : rootAt + 1).map((p) => shownCommand(p.comm));
  return shown.join(' < ') + (rootAt < 0 && chain.length > 6 ? ' < …' : '');
}

/** A command line fit for one log line: NULs as spaces, control characters dropped, truncated. */
export function shownCommand(cmdline: string | null): string {
  if (cmdline === null) return '(gone)';
  // eslint-disable-next-line no-control-regex
  const text = cmdline.replace(/\0+$/, '').replace(/\0/g, ' ').replace(/[\x00-\x1f\x7f-\x9f]/g, '');
  return text.length > COMMAND_SHOWN ? `${text.slice(0, COMMAND_SHOWN)}…` : text;
}

/** Why the caller of a connection could not be told. */
export interface Unknown {
  error: string;
  hint: string;
}

/** Where the other end of one of our sockets is found: its inode, and the pids said to hold it (checked after). */
export interface PeerSource {
  peer(inode: number, claimedPid: number | null): Promise<{ inode: number; pids: number[] } | Unknown>;
}

/** The peer from the kernel's whole socket table (`ss -xpn`): slower, needs no claim. */
export function tablePeers(table: SocketTable): PeerSource {
  return {
    async peer(inode) {
      const read = await table.read();
      if ('error' in read) return read;
      return peersInTable(read.text, inode) ?? { error: `the socket table has no peer for socket ${inode} (the caller exited?)`, hint: 'run the command again' };
    },
  };
}

/**
 * The peer's inode from the kernel through the sock_diag helper (about a millisecond), held by the
 * pid the client names; a client that names none, or a helper that cannot answer, goes to `fallback`.
 */
export function diagPeers(diag: { peerOf(inode: number): Promise<{ peer: number } | { error: string }> }, fallback: PeerSource): PeerSource {
  return {
    async peer(inode, claimedPid) {
      if (claimedPid === null) return fallback.peer(inode, null);
      const asked = await diag.peerOf(inode);
      if ('error' in asked) return fallback.peer(inode, claimedPid);
      return { inode: asked.peer, pids: [claimedPid] };
    },
  };
}

/**
 * The caller at the other end of the accepted socket whose file descriptor is `fd`. Every process
 * named as holding that end (by the client itself, or by `ss`) must really hold it: its
 * /proc/PID/fd says so. When several do (a fork after connecting), they must all sit in the same
 * pane with the same standing, or the caller counts as outside every pane.
 */
export async function callerOf(fd: number, claimedPid: number | null, panes: () => readonly PaneRoot[], proc: ProcReader, peers: PeerSource): Promise<Caller | Unknown> {
  const own = proc.ownSocketInode(fd);
  if (own === null) return { error: 'cannot read the inode of the accepted socket from /proc/self/fd', hint: 'teamux needs a Linux /proc to tell which process calls the stand-in' };
  const peer = await peers.peer(own, claimedPid);
  if ('error' in peer) return peer;
  const want = `socket:[${peer.inode}]`;
  const holders = peer.pids.filter((pid) => proc.fds(pid)?.includes(want) ?? false);
  if (holders.length === 0) return { error: `no process named holds socket ${peer.inode} (named: ${peer.pids.join(', ') || 'none'})`, hint: 'the caller exited, or pretends to be another process' };
  const roots = panes();
  const chains = holders.map((pid) => ancestry(pid, proc));
  const placed = chains.map((chain) => placeInPane(chain, roots));
  const same = placed.every((p) => p.pane === placed[0]!.pane && p.fromAgent === placed[0]!.fromAgent);
  const where = same ? placed[0]! : { pane: null, fromAgent: false };
  return { pid: holders[0]!, command: shownCommand(proc.cmdline(holders[0]!)), ...where, lineage: lineageOf(chains[0]!, roots) };
}

/** /proc on Linux. */
export const realProc: ProcReader = {
  stat: (pid) => readOrNull(`/proc/${pid}/stat`),
  cmdline: (pid) => readOrNull(`/proc/${pid}/cmdline`),
  fds(pid) {
    try {
      const dir = `/proc/${pid}/fd`;
      return readdirSync(dir).map((n) => {
        try {
          return readlinkSync(`${dir}/${n}`);
        } catch {
          return '';
        }
      });
    } catch {
      return null;
    }
  },
  ownSocketInode(fd) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      return m ? Number(m[1]) : null;
    } catch {
      return null;
    }
  },
};

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** How long `ss` may take before the caller counts as unknown. */
export const SS_TIMEOUT_MS = 3_000;

/** The socket table from `ss -xpn` (iproute2), bounded in time; `ss` is looked up on `path`. */
export function ssTable(path = process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin'): SocketTable {
  return {
    read: () => new Promise((resolve) => {
      execFile('ss', ['-xpn'], { env: { PATH: `${path}:/usr/sbin:/sbin`, LC_ALL: 'C' }, timeout: SS_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 }, (err, out) => {
        if (!err) return resolve({ text: out });
        const e = err as NodeJS.ErrnoException & { killed?: boolean };
        if (e.code === 'ENOENT') resolve({ error: '`ss` is not installed', hint: 'install iproute2 (it provides `ss`), which teamux uses to tell which process calls the stand-in' });
        else if (e.killed) resolve({ error: `\`ss -xpn\` did not answer within ${SS_TIMEOUT_MS / 1000}s`, hint: 'the machine may be overloaded; run the command again' });
        else resolve({ error: `\`ss -xpn\` failed: ${e.message.split('\n')[0]}`, hint: 'check that `ss -xpn` works for this user (iproute2)' });
      });
    }),
  };
}
