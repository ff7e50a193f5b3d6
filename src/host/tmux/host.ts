/**
 * TmuxHost: teammates in real tmux panes that outlive the TUI. The team is one tmux session on a
 * private server (`tmux -L <socket>`); each member runs in its own window, tagged with the pane
 * option @teamux_member and kept after exit by remain-on-exit. The host owns one control-mode client
 * attached to that session (output, input, resizes and exit reports all flow through it), the map of
 * member panes it tracks, and nothing else: detaching (dispose without kill) leaves every member
 * running, and a later host can attach() to find them again, each primed with its captured screen.
 *
 * Every tmux invocation goes through TmuxRunner, so tests can replace the OS with a recording fake.
 */

import type { Disposable, PaneAppearance, PaneExit, PaneHost, PaneProcess, PaneSpec } from '../types.js';
import {
  attachArgs,
  closePipeCommand,
  deadSubscriptionCommand,
  decorateSequence,
  DEAD_SUBSCRIPTION,
  globalArgs,
  listPanesCommand,
  newSessionArgv,
  newWindowSequence,
  paneState,
  paneStateCommand,
  parseCreated,
  parseDeadValue,
  parsePaneList,
  pipePaneCommand,
  sessionTarget,
  tmuxSessionName,
  type PaneState,
} from './commands.js';
import { ControlClient, type ControlExit, type ControlNotification } from './control-client.js';
import { BridgePanes } from './bridge-panes.js';
import { TmuxPane, type PaneChannel, type PaneIdentity } from './pane.js';
import { PaneFifos } from './pipe-stream.js';
import { ExecTmuxRunner, type TmuxRunner } from './runner.js';
import { parseSnapshot, renderSnapshot, snapshotSequence } from './screen.js';

/** How to reach the team's tmux session. */
export interface TmuxHostOptions {
  /** Private server name (`tmux -L <socket>`). */
  socket: string;
  /** Session name, named after the team. */
  session: string;
  /** Working directory for tmux client processes. */
  cwd: string;
  /** Extra environment for tmux client processes (and the server, if this host starts it). */
  env: Record<string, string>;
  /** The OS seam; default runs the real `tmux`. */
  runner?: TmuxRunner;
  /** Config file for a server this host starts (`-f`); default tmux's own (~/.tmux.conf). */
  configFile?: string;
  /** Scrollback lines included in an adopted pane's initialScreen. Default 1000. */
  historyLines?: number;
  /**
   * How pane output reaches teamux: 'control' (%output in control mode, the default) or 'pipe'
   * (pipe-pane into a FIFO per pane, with %output turned off for this client). Each pane's pipe is
   * opened in the same tmux sequence as its snapshot, so the snapshot holds exactly what came before
   * the stream.
   */
  output?: 'control' | 'pipe';
}

const EXITED_UNKNOWN: PaneExit = { exitCode: null, signal: null };

/** Re-reads of a pane tmux reported dead but not yet reaped: interval and how many before giving up. */
const REAP_RECHECK_MS = 150;
const REAP_ATTEMPTS = 6;
/** The longest a detach waits for tmux to close the panes' pipes. */
const PIPE_CLOSE_MS = 3_000;

/** PaneHost backed by a tmux session. */
export class TmuxHost implements PaneHost {
  readonly kind = 'tmux' as const;

  /** Names of the sessions on a tmux server; [] when no server runs there. */
  static async listSessions(socket: string, runner: TmuxRunner = new ExecTmuxRunner()): Promise<string[]> {
    const result = await runner.run([...globalArgs(socket), 'list-sessions', '-F', '#{session_name}']);
    return result.code === 0 ? result.stdout.split('\n').filter((name) => name !== '') : [];
  }

  /** Whether the server on `socket` has a session named exactly `session`. */
  static async hasSession(socket: string, session: string, runner: TmuxRunner = new ExecTmuxRunner()): Promise<boolean> {
    const result = await runner.run([...globalArgs(socket), 'has-session', '-t', sessionTarget(tmuxSessionName(session))]);
    return result.code === 0;
  }

  // configuration
  private readonly options: TmuxHostOptions;
  private readonly session: string;
  private readonly runner: TmuxRunner;
  private readonly global: string[];
  // the control client attached to the team session, and this host's subscriptions to it
  private client: ControlClient | undefined;
  private clientWiring: Disposable[] = [];
  // members' panes by tmux pane id (`%3`)
  private readonly panes = new Map<string, TmuxPane>();
  private readonly channel: PaneChannel;
  // re-reads of panes reported dead before their exit status was known, by pane id
  private readonly rechecks = new Map<string, NodeJS.Timeout>();
  private serverPid: number | undefined;
  // pipe output: the panes' FIFOs (undefined in control mode)
  private readonly fifos: PaneFifos | undefined;
  // panes the stand-in's bridge opens (bridge-panes.ts)
  private readonly bridgePanes = new BridgePanes({
    tracked: (paneId) => this.panes.get(paneId),
    retrack: (paneId, member, pid, was) => this.serialize(async () => {
      const client = this.client;
      if (!client || this.disposed || this.panes.get(paneId) !== was) return null;
      // The old object stops here: the screen lets its pane go without signalling the new process.
      was?.dispose();
      const pane = this.track({ id: member, paneId, pid });
      await this.adopt(client, pane);
      return pane;
    }),
    send: async (commands) => void (await this.client?.sequence(commands)),
  });
  // spawn/attach run one at a time: the first may create the session
  private queue: Promise<unknown> = Promise.resolve();
  // lifecycle
  private disposed = false;

  constructor(options: TmuxHostOptions) {
    this.options = options;
    this.session = tmuxSessionName(options.session);
    this.runner = options.runner ?? new ExecTmuxRunner({ env: { ...process.env, ...options.env }, cwd: options.cwd });
    this.global = globalArgs(options.socket, options.configFile);
    this.fifos = options.output === 'pipe' ? new PaneFifos() : undefined;
    this.channel = {
      send: (commands) => {
        const client = this.client;
        if (!client) return;
        for (const command of commands) client.command(command).catch(() => {});
      },
      signal: (pid, signal) => void this.runner.signal(pid, signal),
    };
  }

  /** Starts a member: creates the session on first use, otherwise a new window in it. */
  spawn(spec: PaneSpec): Promise<PaneProcess> {
    return this.serialize(() => this.spawnNow(spec));
  }

  /** Adopts the members already running in the session, each primed with its current screen. */
  attach(): Promise<PaneProcess[]> {
    return this.serialize(async () => {
      this.assertOpen();
      if (!this.client) {
        if (!(await this.sessionExists())) {
          throw new Error(`no tmux session "${this.session}" on socket "${this.options.socket}"`);
        }
        await this.connect();
      }
      const client = this.requireClient();
      const members = parsePaneList(await client.command(listPanesCommand(this.session)))
        .filter((info) => info.member !== '');
      return Promise.all(
        members.map(async (info) => {
          const known = this.panes.get(info.paneId);
          if (known) return known;
          const pane = this.track({ id: info.member, paneId: info.paneId, pid: info.pid });
          await this.adopt(client, pane);
          this.applyState(pane, info.state);
          return pane;
        }),
      );
    });
  }

  /** Follows the panes the tmux stand-in's bridge opens, respawns under a name and closes in the session. */
  follow(listener: (change: PaneAppearance) => void): Promise<Disposable> {
    return this.bridgePanes.add(listener);
  }

  /** Without kill: detach, members keep running. With kill: end the session (and an emptied server). */
  async dispose(options: { kill?: boolean } = {}): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.queue;
    const client = this.client;
    this.dropClient();
    for (const timer of this.rechecks.values()) clearTimeout(timer);
    this.rechecks.clear();
    this.bridgePanes.clear();
    // Pipes closed first, so no `cat` is left writing into a FIFO nobody reads.
    const piped = [...this.panes.keys()].filter((id) => this.fifos?.has(id));
    // (An empty sequence would be an empty line, which tmux never answers.)
    // Bounded: a client tmux no longer answers must not hold the detach (close() then kills it).
    if (client && piped.length > 0) await within(client.sequence(piped.map(closePipeCommand)), PIPE_CLOSE_MS);
    this.fifos?.close();
    for (const pane of this.panes.values()) pane.dispose();
    this.panes.clear();
    if (client) await client.close();
    if (!options.kill) return;
    await this.runner.run([...this.global, 'kill-session', '-t', sessionTarget(this.session)]);
    const left = await this.runner.run([...this.global, 'list-sessions', '-F', '#{session_name}']);
    if (left.code === 0 && left.stdout.trim() === '') await this.runner.run([...this.global, 'kill-server']);
  }

  private async spawnNow(spec: PaneSpec): Promise<PaneProcess> {
    this.assertOpen();
    if (!this.client) {
      if (!(await this.sessionExists())) {
        const created = await this.createSession(spec);
        if (created) {
          const client = await this.connect();
          const pane = this.track({ id: spec.id, ...created, size: { cols: spec.cols, rows: spec.rows } });
          client.sequence(decorateSequence(pane.paneId, spec.id, spec.cols, spec.rows)).catch(() => {});
          await this.adopt(client, pane);
          return pane;
        }
      }
      await this.connect();
    }
    return this.newWindow(this.requireClient(), spec);
  }

  /** Runs new-session through the runner; undefined when another client created the session first. */
  private async createSession(spec: PaneSpec): Promise<{ paneId: string; pid: number | undefined } | undefined> {
    const result = await this.runner.run([...this.global, ...newSessionArgv(this.session, spec)]);
    if (result.code !== 0) {
      if (/duplicate session/.test(result.stderr)) return undefined;
      throw new Error(`tmux new-session failed: ${result.stderr.trim() || `exit ${result.code}`}`);
    }
    const created = parseCreated(result.stdout);
    if (!created) throw new Error(`tmux new-session printed no pane id: ${JSON.stringify(result.stdout)}`);
    return created;
  }

  private async newWindow(client: ControlClient, spec: PaneSpec): Promise<PaneProcess> {
    let pane: TmuxPane | undefined;
    // Track the pane inside reply dispatch so its first %output (which may follow in the same read)
    // already has somewhere to go.
    await client.sequence(newWindowSequence(this.session, spec), (outcome) => {
      const created = outcome.ok ? parseCreated(outcome.blocks[1]?.[0] ?? '') : undefined;
      if (created) pane = this.track({ id: spec.id, ...created, size: { cols: spec.cols, rows: spec.rows } });
    });
    if (!pane) throw new Error('tmux new-window printed no pane id');
    await client.sequence(decorateSequence(pane.paneId, spec.id, spec.cols, spec.rows));
    // Pipe output: what the member printed before its pipe opened is in the snapshot taken with it.
    if (this.fifos) await this.adopt(client, pane);
    return pane;
  }

  /** Snapshots a pane already running before this client saw it; drops the output the snapshot holds. */
  private async adopt(client: ControlClient, pane: TmuxPane): Promise<void> {
    const history = this.options.historyLines ?? 1000;
    let sequence = snapshotSequence(pane.paneId, history);
    const piped = this.fifos !== undefined;
    if (this.fifos) {
      // The pipe opens in the same atomic sequence as the snapshot: bytes after it come through the FIFO.
      const fifo = await this.fifos.open(pane.paneId, (bytes) => pane.receive(bytes));
      sequence = [pipePaneCommand(pane.paneId, fifo), ...sequence];
    }
    pane.beginSnapshot(piped);
    await client
      .sequence(sequence, (outcome) => {
        if (!outcome.ok) return pane.endSnapshot(undefined);
        const snapshot = parseSnapshot(piped ? outcome.blocks.slice(1) : outcome.blocks);
        pane.endSnapshot(renderSnapshot(snapshot));
        this.applyState(pane, paneState(...snapshot.dead));
      })
      .catch(() => {});
  }

  private async connect(): Promise<ControlClient> {
    const client = ControlClient.start(this.runner, [...this.global, ...attachArgs(this.session, { noOutput: this.fifos !== undefined })]);
    this.client = client;
    this.clientWiring = [
      client.onNotification((event) => this.onNotification(event)),
      client.onExit((exit) => this.onClientExit(client, exit)),
    ];
    try {
      await client.ready;
      const [, pid] = await client.sequence([deadSubscriptionCommand(), ['display-message', '-p', '#{pid}']]);
      this.serverPid = Number(pid?.[0]) || undefined;
    } catch (error) {
      if (this.client === client) this.dropClient();
      client.dispose();
      throw error;
    }
    return client;
  }

  private onNotification(event: ControlNotification): void {
    switch (event.type) {
      case 'output':
      case 'extended-output':
        this.panes.get(event.paneId)?.receive(event.data);
        return;
      case 'subscription-changed': {
        const pane = this.panes.get(event.paneId);
        if (event.name === DEAD_SUBSCRIPTION && pane) this.applyState(pane, parseDeadValue(event.value));
        this.bridgePanes.report(event.name, event.paneId, event.value);
        return;
      }
      case 'window-close':
      case 'unlinked-window-close':
        void this.refreshPanes();
        return;
      default:
        return;
    }
  }

  /** After a window closed: a tracked pane that is gone (or dead) has exited. */
  private async refreshPanes(): Promise<void> {
    const client = this.client;
    if (!client || this.panes.size === 0) return;
    let lines: string[];
    try {
      lines = await client.command(listPanesCommand(this.session));
    } catch {
      return; // the session went away; onClientExit handles that
    }
    const present = new Map(parsePaneList(lines).map((info) => [info.paneId, info]));
    for (const pane of this.panes.values()) {
      const info = present.get(pane.paneId);
      if (!info) {
        this.exited(pane, EXITED_UNKNOWN);
        if (this.bridgePanes.left(pane)) this.panes.delete(pane.paneId);
      } else this.applyState(pane, info.state);
    }
  }

  /**
   * Applies a reported state. A pane whose pty closed before tmux reaped its process is read again:
   * Debian's tmux is linked with libutempter, whose own SIGCHLD handler can swallow the member's
   * SIGCHLD (tmux issues #311, #4559), leaving a zombie tmux never reaps. Each re-read first nudges
   * the server with SIGCHLD so it runs waitpid again.
   */
  private applyState(pane: TmuxPane, state: PaneState, attempt = 0): void {
    if (state === 'alive' || pane.exited) return;
    if (state !== 'reaping') return this.exited(pane, state);
    if (attempt >= REAP_ATTEMPTS) return this.exited(pane, EXITED_UNKNOWN);
    if (this.rechecks.has(pane.paneId)) return;
    if (this.serverPid !== undefined) this.runner.signal(this.serverPid, 'SIGCHLD');
    const timer = setTimeout(() => {
      this.rechecks.delete(pane.paneId);
      void this.recheck(pane, attempt + 1);
    }, REAP_RECHECK_MS);
    this.rechecks.set(pane.paneId, timer);
  }

  /**
   * Reports an exit. Pipe output: the pane's last bytes may still be in its FIFO when tmux reports the
   * death, so the exit waits until the FIFO has gone quiet; then the pipe is closed and removed.
   */
  private exited(pane: TmuxPane, exit: PaneExit): void {
    const fifos = this.fifos;
    if (!fifos?.has(pane.paneId)) return pane.markExited(exit);
    void fifos.drained(pane.paneId).then(() => {
      pane.markExited(exit);
      if (this.disposed) return;
      this.client?.command(closePipeCommand(pane.paneId)).catch(() => {});
      fifos.drop(pane.paneId);
    });
  }

  private async recheck(pane: TmuxPane, attempt: number): Promise<void> {
    const client = this.client;
    if (!client || pane.exited) return;
    let state: PaneState;
    try {
      state = parseDeadValue((await client.command(paneStateCommand(pane.paneId)))[0] ?? '');
    } catch {
      state = EXITED_UNKNOWN; // the pane is gone
    }
    this.applyState(pane, state, attempt);
  }

  /** The control client went away on its own: if the session is gone, so are the members. */
  private onClientExit(client: ControlClient, _exit: ControlExit): void {
    if (client !== this.client) return;
    this.dropClient();
    if (this.disposed) return;
    void this.sessionExists().then((exists) => {
      if (exists) return;
      for (const pane of this.panes.values()) this.exited(pane, EXITED_UNKNOWN);
    });
  }

  private track(identity: PaneIdentity): TmuxPane {
    const pane = new TmuxPane(identity, this.channel);
    this.panes.set(pane.paneId, pane);
    return pane;
  }

  private sessionExists(): Promise<boolean> {
    return TmuxHost.hasSession(this.options.socket, this.session, this.runner);
  }

  private requireClient(): ControlClient {
    if (!this.client) throw new Error(`tmux control client for session "${this.session}" is not connected`);
    return this.client;
  }

  private dropClient(): void {
    for (const wire of this.clientWiring) wire.dispose();
    this.clientWiring = [];
    this.client = undefined;
  }

  private assertOpen(): void {
    if (this.disposed) throw new Error('TmuxHost is disposed');
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.then(
      () => {},
      () => {},
    );
    return run;
  }
}

/** Waits for `work` to settle, or `ms`, whichever comes first; never rejects. */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([work.catch(() => {}), timeout]);
  clearTimeout(timer);
}
