/**
 * One member's tmux pane seen through the PaneProcess seam. It owns the pane's side of the byte
 * stream: output the host routes here from `%output` is delivered to onData listeners, or held while
 * nobody listens yet, while paused, or dropped while a snapshot that already contains it is being
 * taken. Input and resizes become tmux commands handed to the host's control channel; kill() signals
 * the pane's process directly. The exit is sticky: a listener added after it still hears it.
 *
 * Flow control: tmux 3.3a has no lossless per-pane pause for control clients (`refresh-client -A
 * %p:pause` and `%p:off` both discard the pane's output for this client, and `off` does not stop tmux
 * reading the pty), so pause() holds bytes in memory here until resume(); the process keeps running.
 */

import type { Disposable, PaneExit, PaneProcess } from '../types.js';
import { resizeCommand, sendKeysCommands } from './commands.js';
import { Listeners } from './listeners.js';

/** What a pane needs from its host. */
export interface PaneChannel {
  /** Sends control-mode commands in order, fire-and-forget. */
  send(commands: string[][]): void;
  /** Signals a process. */
  signal(pid: number, signal: NodeJS.Signals): void;
}

/** Identity of a pane when the host starts tracking it. */
export interface PaneIdentity {
  /** The member name (PaneSpec.id / @teamux_member). */
  id: string;
  /** tmux pane id, e.g. `%3`. */
  paneId: string;
  pid: number | undefined;
  /** The size the pane was created with, when known. */
  size?: { cols: number; rows: number };
}

/** A member process living in a tmux pane. */
export class TmuxPane implements PaneProcess {
  readonly id: string;
  readonly paneId: string;
  readonly pid: number | undefined;

  // how the pane reaches tmux
  private readonly channel: PaneChannel;
  // the stream: snapshot replayed first, then live bytes (held while unheard or paused)
  private screen: string | undefined;
  private syncing = false;
  // while syncing: true when live bytes come after the snapshot (a pipe opened with it), so they are held, not dropped
  private holdWhileSyncing = false;
  private paused = false;
  private held: Uint8Array[] = [];
  private flushQueued = false;
  // listeners
  private readonly data = new Listeners<Uint8Array>();
  private readonly exits = new Listeners<PaneExit>();
  // lifecycle
  private exitInfo: PaneExit | undefined;
  private size: { cols: number; rows: number } | undefined;
  private disposed = false;

  constructor(identity: PaneIdentity, channel: PaneChannel) {
    this.id = identity.id;
    this.paneId = identity.paneId;
    this.pid = identity.pid;
    this.size = identity.size;
    this.channel = channel;
  }

  /** The captured screen to replay before the stream (set when the pane was adopted). */
  get initialScreen(): string | undefined {
    return this.screen;
  }

  /** How the process ended, once it has. */
  get exited(): PaneExit | undefined {
    return this.exitInfo;
  }

  onData(listener: (data: string | Uint8Array) => void): Disposable {
    const registration = this.data.add(listener);
    this.queueFlush();
    return registration;
  }

  onExit(listener: (exit: PaneExit) => void): Disposable {
    const info = this.exitInfo;
    if (info) {
      queueMicrotask(() => listener(info));
      return { dispose: () => {} };
    }
    return this.exits.add(listener);
  }

  write(data: string): void {
    if (this.disposed || data.length === 0) return;
    this.channel.send(sendKeysCommands(this.paneId, Buffer.from(data, 'utf8')));
  }

  resize(cols: number, rows: number): void {
    if (this.disposed || (this.size?.cols === cols && this.size.rows === rows)) return;
    this.size = { cols, rows };
    this.channel.send([resizeCommand(this.paneId, cols, rows)]);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.queueFlush();
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.disposed || this.exitInfo || this.pid === undefined) return;
    this.channel.signal(this.pid, signal);
  }

  dispose(): void {
    this.disposed = true;
    this.held = [];
    this.data.clear();
    this.exits.clear();
  }

  /** Host side: bytes from `%output` for this pane. */
  receive(bytes: Uint8Array): void {
    if (this.disposed || bytes.length === 0 || (this.syncing && !this.holdWhileSyncing)) return;
    if (this.held.length === 0 && !this.syncing && !this.paused && this.data.size > 0) {
      this.data.emit(bytes);
      return;
    }
    this.held.push(bytes);
    this.queueFlush();
  }

  /**
   * Host side: a snapshot is being taken. Control mode: bytes until endSnapshot are already in it
   * and are dropped. `afterIt` (a pipe opened in the same tmux sequence): bytes are what follows the
   * snapshot and are held until it is set.
   */
  beginSnapshot(afterIt = false): void {
    this.syncing = true;
    this.holdWhileSyncing = afterIt;
  }

  /** Host side: the snapshot is complete (undefined when it failed); live bytes flow again. */
  endSnapshot(screen: string | undefined): void {
    this.syncing = false;
    this.screen = screen;
    this.queueFlush();
  }

  /** Host side: the process has exited. Only the first report counts. */
  markExited(exit: PaneExit): void {
    if (this.exitInfo || this.disposed) return;
    this.exitInfo = exit;
    this.exits.emit(exit);
    this.exits.clear();
  }

  private queueFlush(): void {
    if (this.flushQueued || this.held.length === 0) return;
    this.flushQueued = true;
    // Deliver held bytes after the caller's current step, in order, ahead of anything newer.
    queueMicrotask(() => {
      this.flushQueued = false;
      if (this.disposed || this.paused || this.syncing || this.data.size === 0) return;
      const held = this.held;
      this.held = [];
      this.data.emit(held.length === 1 ? held[0]! : Buffer.concat(held));
    });
  }
}
