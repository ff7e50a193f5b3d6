/**
 * The screen's enrolment socket: the one way a lead gets its one-time enrolment token, so the token is
 * never in any process's environment (a teammate could read it from /proc/PID/environ). A process
 * connects, sends `{member, pid}` as one JSON line and gets back `{token}` or `{refused}`. The screen
 * believes nothing the line says about who is asking: it finds the process at the other end of the
 * connection from the kernel (the tmux stand-in's caller check, host/socket-caller.ts) and hands
 * the token only to a process in the lead's own pane, once per start of the lead (TrustAuthority.handOut).
 * Socket files cannot be opened through /proc/PID/fd, so no other process can take over the connection.
 * This file owns the listening socket, its connections and the caller check's helper.
 */
import { rmSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { listenUnix } from '../host/unix-server.js';
import { callerOf, diagPeers, realProc, ssTable, tablePeers, type Caller, type PaneRoot, type PeerSource, type Unknown } from '../host/socket-caller.js';
import { SockDiag } from '../host/sock-diag.js';
import type { Log } from '../store/log.js';
import type { TrustAuthority } from '../store/trust.js';

/** A request line longer than this is not a request. */
const REQUEST_LIMIT = 4096;
/** A connection that says nothing for this long is closed. */
const IDLE_MS = 10_000;

/** What the enrolment socket needs from the screen. */
export interface EnrolSocketOptions {
  socket: string;
  authority: TrustAuthority;
  /** The member whose token this socket hands out (the lead). */
  lead: string;
  /** The team's panes: the member's name and the pid of the process teamux started in it. */
  panes(): PaneRoot[];
  log: Log;
  /** Where the caller's socket peer is looked up (the kernel's; a fake in tests). */
  peers?: PeerSource;
}

/** The listening enrolment socket; dispose() closes it and removes the file. */
export class EnrolSocket {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  // the sock_diag helper, started with the first question (null when the options gave `peers`)
  private diag: SockDiag | null = null;
  private readonly peers: PeerSource;

  constructor(private readonly opts: EnrolSocketOptions) {
    if (opts.peers) {
      this.peers = opts.peers;
    } else {
      this.diag = new SockDiag();
      this.peers = diagPeers(this.diag, tablePeers(ssTable()));
    }
  }

  /** Listen (a stale socket file from a crashed screen is replaced). */
  async listen(): Promise<void> {
    const server = await listenUnix(this.opts.socket, (s) => this.accept(s));
    server.on('error', (err) => this.opts.log.error('enrolment socket failed', err));
    this.server = server;
  }

  private accept(s: Socket): void {
    this.sockets.add(s);
    s.setEncoding('utf8');
    s.setTimeout(IDLE_MS, () => s.destroy());
    s.on('error', () => undefined);
    s.on('close', () => this.sockets.delete(s));
    let buffer = '';
    const onData = (chunk: string): void => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl < 0 && buffer.length <= REQUEST_LIMIT) return;
      s.off('data', onData);
      void this.answer(s, nl < 0 ? null : buffer.slice(0, nl)).then((a) => {
        if (!s.destroyed) s.end(`${JSON.stringify(a)}\n`);
      });
    };
    s.on('data', onData);
  }

  /** The answer to one request line: the token for a process in the lead's pane, a refusal otherwise. */
  private async answer(s: Socket, line: string | null): Promise<{ token: string } | { refused: string }> {
    let claimed: number | null = null;
    try {
      const req = line === null ? null : (JSON.parse(line) as { pid?: unknown });
      if (req && Number.isInteger(req.pid) && (req.pid as number) > 0) claimed = req.pid as number;
    } catch {
      // a line that is not JSON names no pid: the caller is looked up without one
    }
    const caller = await this.callerOf(s, claimed);
    if ('error' in caller) {
      this.opts.log.warn(`enrolment socket: refused an unknown process (${caller.error})`);
      return { refused: `teamux cannot tell which process is asking (${caller.error}); ${caller.hint}` };
    }
    if (caller.pane !== this.opts.lead) {
      this.opts.log.warn(`enrolment socket: refused pid ${caller.pid} (${caller.command}; ${caller.lineage}): it is ${caller.pane ? `in ${caller.pane}'s pane` : 'outside every teamux pane'}, not in ${this.opts.lead}'s`);
      return { refused: `pid ${caller.pid} is not in ${this.opts.lead}'s pane: only the lead's own process gets its enrolment token` };
    }
    const out = this.opts.authority.handOut(this.opts.lead);
    if ('refused' in out) this.opts.log.warn(`enrolment socket: refused pid ${caller.pid} (${caller.lineage}): ${out.refused}`);
    else this.opts.log.info(`enrolment socket: handed ${this.opts.lead}'s token to pid ${caller.pid} (${caller.lineage})`);
    return out;
  }

  /**
   * The process at the other end of `s`. The pid a caller names is tried first (fast); a pid that does
   * not hold the socket (one from inside a sandbox's own pid namespace, or a lie) falls back to the
   * kernel's whole table.
   */
  private async callerOf(s: Socket, claimed: number | null): Promise<Caller | Unknown> {
    const fd = (s as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
    if (typeof fd !== 'number' || fd < 0) return { error: 'the accepted socket has no file descriptor', hint: 'this is a bug in teamux; see teamux.log' };
    const panes = (): PaneRoot[] => this.opts.panes();
    const first = await callerOf(fd, claimed, panes, realProc, this.peers).catch((err: unknown) => ({ error: String(err), hint: 'see teamux.log' }));
    if (!('error' in first) || claimed === null) return first;
    return callerOf(fd, null, panes, realProc, this.peers).catch((err: unknown) => ({ error: String(err), hint: 'see teamux.log' }));
  }

  /** Close the socket and remove its file. */
  dispose(): void {
    for (const s of this.sockets) s.destroy();
    this.server?.close();
    this.server = null;
    this.diag?.dispose();
    rmSync(this.opts.socket, { force: true });
  }
}
