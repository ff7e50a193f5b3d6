/**
 * One tmux control-mode client (`tmux -C attach-session ...`) and the bookkeeping that turns its
 * byte stream into answers. It owns the child process, the parser, and the queue of command lines in
 * flight: tmux answers the lines read from stdin strictly in order, one `%begin`/`%end` block per
 * command of a `;` sequence (stopping at the first `%error`), each flagged 1. The block flagged 0 is
 * the reply to the argv command (the attach) and settles `ready`. Everything else is a notification
 * handed to listeners in wire order. When the client exits, every pending command is rejected.
 */

import type { Disposable } from '../types.js';
import { ControlParser, type ControlEvent } from './control-parser.js';
import { Listeners } from './listeners.js';
import { sequenceLine } from './quote.js';
import type { ControlProcess, TmuxRunner } from './runner.js';

/** A tmux command answered with `%error`. */
export class TmuxCommandError extends Error {
  constructor(
    readonly command: string,
    readonly lines: string[],
  ) {
    super(`tmux: ${lines.join('; ') || 'command failed'} (in: ${command})`);
    this.name = 'TmuxCommandError';
  }
}

/** The control client went away before answering. */
export class TmuxClientExitedError extends Error {
  constructor(readonly exit: ControlExit) {
    super(`tmux control client exited${exit.reason ? `: ${exit.reason}` : ''}${exit.stderr ? ` (${exit.stderr.trim()})` : ''}`);
    this.name = 'TmuxClientExitedError';
  }
}

/** How a control client ended: the `%exit` reason (if tmux sent one) and the process status. */
export interface ControlExit {
  reason: string | undefined;
  code: number | null;
  signal: string | null;
  stderr: string;
}

/** The outcome handed to a synchronous settle hook. */
export type CommandOutcome = { ok: true; blocks: string[][] } | { ok: false; error: Error };

/** Runs inside event dispatch, before any later notification (e.g. %output) is delivered. */
export type SettleHook = (outcome: CommandOutcome) => void;

/** A notification: every control event except reply blocks of our own commands. */
export type ControlNotification = ControlEvent;

/** A command line waiting for its reply blocks. */
interface InFlight {
  line: string;
  expected: number;
  blocks: string[][];
  resolve: (blocks: string[][]) => void;
  reject: (error: Error) => void;
  settle: SettleHook | undefined;
}

/** A connected control-mode client. */
export class ControlClient implements Disposable {
  /** Starts `tmux <args>` (args must include `-C`) and wraps it. */
  static start(runner: TmuxRunner, args: readonly string[]): ControlClient {
    return new ControlClient(runner.control(args));
  }

  /** Settles with the reply to the argv command: resolved when attached, rejected on error or exit. */
  readonly ready: Promise<void>;

  // the child and its decoder
  private readonly proc: ControlProcess;
  private readonly parser = new ControlParser();
  private readonly wiring: Disposable[];
  // replies: the argv command's (flags 0) settles `ready`; ours (flags 1) are matched in order
  private readySettled = false;
  private settleReady!: (error?: Error) => void;
  private readonly inflight: InFlight[] = [];
  // listeners
  private readonly notifications = new Listeners<ControlNotification>();
  private readonly exits = new Listeners<ControlExit>();
  // lifecycle
  private exitReason: string | undefined;
  private stderr = '';
  private exitInfo: ControlExit | undefined;

  constructor(proc: ControlProcess) {
    this.proc = proc;
    this.ready = new Promise<void>((resolve, reject) => {
      this.settleReady = (error) => (error ? reject(error) : resolve());
    });
    this.ready.catch(() => {}); // callers that await it still see the rejection
    this.wiring = [
      proc.onData((chunk) => this.dispatchAll(this.parser.feed(chunk))),
      proc.onStderr((text) => void (this.stderr += text)),
      proc.onExit((code, signal) => this.finish(code, signal)),
    ];
  }

  /** The client's exit, once it has happened. */
  get exited(): ControlExit | undefined {
    return this.exitInfo;
  }

  /** Sends one command; resolves with its output lines, rejects with TmuxCommandError. */
  command(args: readonly string[], settle?: SettleHook): Promise<string[]> {
    return this.sequence([args], settle).then((blocks) => blocks[0] ?? []);
  }

  /** Sends commands as one `;` sequence, run atomically by tmux; resolves with each one's lines. */
  sequence(commands: readonly (readonly string[])[], settle?: SettleHook): Promise<string[][]> {
    if (this.exitInfo) {
      const error = new TmuxClientExitedError(this.exitInfo);
      settle?.({ ok: false, error });
      return Promise.reject(error);
    }
    let line: string;
    try {
      line = sequenceLine(commands);
    } catch (error) {
      settle?.({ ok: false, error: error as Error });
      return Promise.reject(error);
    }
    return new Promise<string[][]>((resolve, reject) => {
      this.inflight.push({ line, expected: commands.length, blocks: [], resolve, reject, settle });
      this.proc.write(line + '\n');
    });
  }

  /** Listens to notifications (everything but our reply blocks), in wire order. */
  onNotification(listener: (event: ControlNotification) => void): Disposable {
    return this.notifications.add(listener);
  }

  /** Listens for the client's exit; fires at once (asynchronously) if it already exited. */
  onExit(listener: (exit: ControlExit) => void): Disposable {
    const info = this.exitInfo;
    if (info) {
      queueMicrotask(() => listener(info));
      return { dispose: () => {} };
    }
    return this.exits.add(listener);
  }

  /**
   * Detaches: closes stdin so tmux lets the client go; SIGTERM after `timeoutMs`, SIGKILL after twice
   * that (a tmux client answers SIGTERM by asking the server to let it go, so one the server no
   * longer serves stays until killed).
   */
  async close(timeoutMs = 3000): Promise<ControlExit> {
    if (this.exitInfo) return this.exitInfo;
    const exited = new Promise<ControlExit>((resolve) => this.onExit(resolve));
    this.proc.end();
    const timers = [
      setTimeout(() => this.proc.kill('SIGTERM'), timeoutMs),
      setTimeout(() => this.proc.kill('SIGKILL'), 2 * timeoutMs),
    ];
    try {
      return await exited;
    } finally {
      for (const timer of timers) clearTimeout(timer);
    }
  }

  /** Kills the client process now and drops listeners. */
  dispose(): void {
    if (!this.exitInfo) this.proc.kill('SIGTERM');
    this.notifications.clear();
  }

  private dispatchAll(events: ControlEvent[]): void {
    for (const event of events) this.dispatch(event);
  }

  private dispatch(event: ControlEvent): void {
    if (event.type === 'block') return this.reply(event);
    if (event.type === 'exit') this.exitReason = event.reason;
    this.notifications.emit(event);
  }

  private reply(block: Extract<ControlEvent, { type: 'block' }>): void {
    if (block.flags === 0) {
      if (!this.readySettled) {
        this.readySettled = true;
        this.settleReady(block.ok ? undefined : new TmuxCommandError('attach', block.lines));
      } else {
        this.notifications.emit(block);
      }
      return;
    }
    const head = this.inflight[0];
    if (!head) return this.notifications.emit(block);
    head.blocks.push(block.lines);
    if (!block.ok) {
      this.inflight.shift();
      const error = new TmuxCommandError(head.line, block.lines);
      head.settle?.({ ok: false, error });
      head.reject(error);
    } else if (head.blocks.length >= head.expected) {
      this.inflight.shift();
      head.settle?.({ ok: true, blocks: head.blocks });
      head.resolve(head.blocks);
    }
  }

  private finish(code: number | null, signal: string | null): void {
    if (this.exitInfo) return;
    this.dispatchAll(this.parser.end());
    const info: ControlExit = { reason: this.exitReason, code, signal, stderr: this.stderr };
    this.exitInfo = info;
    const error = new TmuxClientExitedError(info);
    if (!this.readySettled) {
      this.readySettled = true;
      this.settleReady(error);
    }
    for (const pending of this.inflight.splice(0)) {
      pending.settle?.({ ok: false, error });
      pending.reject(error);
    }
    for (const wire of this.wiring) wire.dispose();
    this.exits.emit(info);
    this.exits.clear();
    this.notifications.clear();
  }
}
