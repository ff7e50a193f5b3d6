/**
 * The one place a command that reached the stand-in's socket is let in or turned away: queries pass
 * at once (with the pane the caller names as their default target), a change first has its caller
 * found (host/socket-caller.ts) and judged (caller-policy.ts), then runs with the caller's true pane. A refusal
 * is a tmux-style error for the caller, a warning in teamux.log naming the process and its pane,
 * and a word on the status line. Whatever serves the socket (the screen's bridge, or a bridge
 * process of its own) calls `admit` once per request; the gate owns nothing but its options.
 */
import type { Socket } from 'node:net';
import { callerOf, diagPeers, realProc, ssTable, tablePeers, type PaneRoot, type PeerSource, type ProcReader } from '../../../host/socket-caller.js';
import { SockDiag } from '../../../host/sock-diag.js';
import { changeOf, permit } from './caller-policy.js';
import { ShimIntegrity } from './shim-integrity.js';
import type { ShimAnswer } from './exec.js';

/** What the gate needs from the bridge that serves the socket. */
export interface GateOptions {
  /** The live panes the stand-in knows, with the pid of the process teamux started in each. */
  panes(): readonly PaneRoot[];
  /** The lead's pane id (`%0`). */
  leadPane: string;
  log: { info(message: string): void; warn(message: string): void };
  /** A word on the status line. */
  say(text: string): void;
  proc?: ProcReader;
  peers?: PeerSource;
  /** The stand-in's file, whose changes make every later change refused (shim-integrity.ts). */
  shim?: string;
}

/** Let the command in, as from `pane`; or the answer that refuses it. */
export type Admission = { pane: string | null } | { refused: ShimAnswer };

/** The caller check at a socket's intake. */
export class CallerGate {
  private readonly proc: ProcReader;
  private readonly peers: PeerSource;
  /** The kernel's sock_diag, asked through one long-lived helper (null when the options gave `peers`). */
  private readonly diag: SockDiag | null = null;
  private readonly integrity: ShimIntegrity | null;

  constructor(private readonly opts: GateOptions) {
    this.proc = opts.proc ?? realProc;
    this.integrity = opts.shim ? new ShimIntegrity(opts.shim, (why) => {
      opts.log.warn(`tmux stand-in: ${why}`);
      opts.say('tmux stand-in: it was rewritten; pane changes through it are refused (see teamux.log)');
    }) : null;
    if (opts.peers) {
      this.peers = opts.peers;
    } else {
      this.diag = new SockDiag();
      this.diag.warm();
      this.peers = diagPeers(this.diag, tablePeers(ssTable()));
    }
  }

  /** Decide on one request read from `socket`: its argv, the $TMUX_PANE it claims and the pid it says it has. */
  async admit(socket: Socket, argv: readonly string[], claimed: string | null, claimedPid: number | null = null): Promise<Admission> {
    const cmd = changeOf(argv);
    if (!cmd) return { pane: claimed };
    const tampered = this.integrity?.problem();
    if (tampered) return { refused: { out: '', err: `${cmd.name}: access not allowed: ${tampered}\n`, code: 1, notes: [] } };
    const t0 = Date.now();
    const fd = socketFd(socket);
    const caller = fd === null
      ? { error: 'the accepted socket has no file descriptor', hint: 'this is a bug in teamux; see teamux.log' }
      : await callerOf(fd, claimedPid, this.opts.panes, this.proc, this.peers).catch((err: unknown) => ({ error: `the caller check failed: ${err instanceof Error ? err.message : String(err)}`, hint: 'this is a bug in teamux; see teamux.log' }));
    const verdict = permit(cmd, caller, this.opts.leadPane);
    const took = Date.now() - t0;
    const line = argv.join(' ').slice(0, 80);
    if (verdict.ok) {
      if ('pid' in caller) this.opts.log.info(`tmux stand-in: ${cmd.name} from pid ${caller.pid} (${caller.lineage}) in ${verdict.pane} (claimed ${claimed ?? '-'}; caller checked in ${took} ms)`);
      return { pane: verdict.pane };
    }
    const who = 'pid' in caller ? `pid ${caller.pid} (${caller.command}; ${caller.lineage}) in ${caller.pane ?? 'no teamux pane'}, claiming ${claimed ?? 'no pane'}` : `an unknown process claiming ${claimed ?? 'no pane'} (${caller.error}; ${caller.hint})`;
    this.opts.log.warn(`tmux stand-in: refused \`tmux ${line}\` from ${who}: ${verdict.why} (checked in ${took} ms)`);
    this.opts.say(`tmux stand-in: refused ${cmd.name} from ${'pid' in caller ? `pid ${caller.pid} in ${caller.pane ?? 'no pane'}` : 'an unknown process'} (see teamux.log)`);
    return { refused: { out: '', err: `${verdict.error}\n`, code: 1, notes: [] } };
  }

  /** Stop the sock_diag helper. */
  dispose(): void {
    this.integrity?.dispose();
    this.diag?.dispose();
  }
}

/** The file descriptor of an accepted unix socket (node keeps it on the handle; no public API). */
function socketFd(socket: Socket): number | null {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : null;
}
