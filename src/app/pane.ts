/**
 * One member's pane: its emulator, its process (through a PaneHost) and which rows need drawing. A
 * pty data event only feeds the emulator under flow control; once parsed, the pane is marked dirty
 * and the owner's frame scheduler draws it (at once when it is the first output after a key: the echo). What the title shows (notes, scroll mode) is screen state,
 * kept in the multiplexer's MuxState under the pane's name. A pane whose process exited stays, with its exit status, until it
 * is restarted or closed.
 */
import { systemClock, type Clock } from '../host/clock.js';
import type { Disposable, PaneExit, PaneHost, PaneProcess, PaneSpec } from '../host/types.js';
import { DirtyRows } from '../vt/dirty-rows.js';
import { pipeToTerminal } from '../vt/flow.js';
import { REPLY_QUEUE_LIMIT } from '../vt/limits.js';
import { PaneTerminal } from '../vt/terminal.js';
import { isPlainAscii } from '../vt/width.js';
import { paneAppearance } from '../ui/outer-query.js';
import type { FrameCause } from './frames.js';
import type { HoldableSource } from './read-pacing.js';
import type { LaunchArgs } from '../mux/state.js';
import { visible } from '../protocol/visible.js';
import { ENDED_BY_SHUTDOWN } from '../protocol/activity.js';

/** Output this soon after a key is taken as its echo and drawn at once (ms). */
export const ECHO_WINDOW_MS = 50;

/** The longest output looked at as an echo that may be shown ahead of its parse (Pane.echoAhead). */
export const ECHO_AHEAD_MAX = 64;

/** The scrollback each pane keeps by default, in lines (the layout's `scrollback`). */
export const SCROLLBACK_LINES = 5_000;

/** Pane life as the title shows it. */
export type PaneLife = 'starting' | 'running' | 'exited';

/** One pane. */
export class Pane {
  // identity
  readonly name: string;
  readonly role: string;
  readonly isLead: boolean;
  /** Answers a shutdown request; otherwise closing the pane hangs up on it. */
  speaksProtocol = true;
  // process
  proc: PaneProcess | null = null;
  exit: PaneExit | null = null;
  life: PaneLife = 'starting';
  // screen
  readonly term: PaneTerminal;
  dirty = true;
  /** The visible rows that changed since the pane was last drawn (from the emulator's own tracking). */
  readonly rows = new DirtyRows();
  /** False when the emulator cannot say which rows changed: every change is then all rows. */
  private readonly rowsTracked: boolean;
  /** Until when (clock ms) the next output is a key's echo; 0 once it came or no key is waiting for one. */
  private echoDue = 0;
  /** Claude Code does not exit by itself after approving a shutdown: the handshake ends it. */
  endsOnApproval = false;
  /** The agent CLI in the pane, if any (the wake reads its input line). */
  cli: 'claude' | 'codex' | undefined = undefined;
  /** teamux began ending this process after it approved its shutdown: its exit is shown as no failure. */
  endedByShutdown = false;
  /** When the current process was started or adopted (ms since the epoch). */
  startedAt: number;
  /** When the operator last typed or pasted into this pane (ms since the epoch; 0: never): a Claude wake waits for them. */
  lastTypedAt = 0;
  /** Whether the process has printed anything (the first frame waits for it a moment). */
  printed = false;
  /**
   * Shows a key's echo on the screen before the emulator parses it (the multiplexer sets it): called
   * with this pane, where the emulator's cursor is and the text, for plain echoes only (showEchoAhead).
   */
  echoAhead: ((pane: Pane, at: { x: number; y: number }, text: string) => void) | null = null;
  /** Environment merged over the spec's for each process after the first (a fresh enrolment token). */
  restartEnv: (() => Record<string, string>) | null = null;
  /** The argv of each start (a CLI's resume of its recorded conversation); null: the spec's. */
  argsAtStart: ((fresh: boolean) => Promise<LaunchArgs>) | null = null;
  /** The next start begins a fresh conversation (C-a F), not the recorded one. */
  freshNext = false;
  /** What argsAtStart said about the last start (logged by whoever started it). */
  startNote: string | null = null;
  /** A process was started or adopted here before. */
  private hadProcess = false;
  // replies: a pty pane's emulator answers terminal queries (DA, DSR); under tmux, tmux already
  // does, so only reports the user causes (mouse, focus) are forwarded there
  private readonly answerQueries: boolean;
  private userReport = false;
  /** Replies dropped because the process was not reading its input (REPLY_QUEUE_LIMIT). */
  droppedReplies = 0;
  // resources owned by the current process
  private procSubs: Disposable[] = [];
  private readonly exitWaiters = new Set<() => void>();

  constructor(private spec: PaneSpec, role: string, isLead: boolean, answerQueries: boolean, scrollback: number, private readonly onChange: (cause: FrameCause, source?: HoldableSource) => void, private readonly onExited: (pane: Pane) => void, private readonly clock: Clock = systemClock) {
    this.name = spec.id;
    this.startedAt = clock.now();
    this.role = role;
    this.isLead = isLead;
    this.answerQueries = answerQueries;
    // colour and cell-size answers: the outer terminal's, learned at start (else the defaults)
    this.term = new PaneTerminal({ cols: spec.cols, rows: spec.rows, scrollback, ...paneAppearance() });
    // Terminal replies (DA, DSR) and the mouse and focus reports the user causes go back to the
    // process. (X10-encoded mouse reports past column 95 do not survive UTF-8; SGR ones are fine.)
    this.term.onReply((data) => {
      if (!this.answerQueries && !this.userReport) return;
      // a program that floods queries and never reads the answers: drop them, do not queue them
      if (!this.userReport && (this.proc?.queuedInputBytes?.() ?? 0) > REPLY_QUEUE_LIMIT) {
        this.droppedReplies++;
        return;
      }
      this.proc?.write(data);
    });
    this.rowsTracked = this.term.onRowsChanged((start, end) => this.rows.mark(start, end)) !== null;
  }

  /** Pass a mouse event to the application, if it asked for mouse reports. */
  reportMouse(report: Parameters<PaneTerminal['reportMouse']>[0]): boolean {
    return this.asUser(() => this.term.reportMouse(report));
  }

  /** Tell the application it gained or lost focus, if it asked (DECSET 1004). */
  reportFocus(focused: boolean): boolean {
    return this.asUser(() => this.term.reportFocus(focused));
  }

  private asUser(fn: () => boolean): boolean {
    this.userReport = true;
    try {
      return fn();
    } finally {
      this.userReport = false;
    }
  }

  /** Start (or restart) the process. */
  async start(host: PaneHost): Promise<void> {
    this.disposeProc();
    this.exit = null;
    this.endedByShutdown = false;
    this.life = 'starting';
    const env = this.hadProcess && this.restartEnv ? { ...this.spec.env, ...this.restartEnv() } : this.spec.env;
    const fresh = this.freshNext;
    this.freshNext = false;
    const at = this.argsAtStart ? await this.argsAtStart(fresh) : null;
    this.startNote = at?.note ?? null;
    if (at?.note) this.term.write(`\r\n\x1b[0m[teamux: ${visible(at.note)}]\r\n`);
    const proc = await host.spawn({ ...this.spec, ...(at ? { args: at.args } : {}), env, cols: this.term.cols, rows: this.term.rows });
    this.attach(proc);
  }

  /** Adopt a process that is already running (tmux attach). */
  attach(proc: PaneProcess): void {
    this.proc = proc;
    this.hadProcess = true;
    this.startedAt = this.clock.now();
    this.life = 'running';
    if (proc.initialScreen) {
      this.printed = true;
      this.term.write(proc.initialScreen, () => this.markDirty());
    }
    // A process found running (a tmux window opened elsewhere) takes this pane's size, as a started one does.
    proc.resize(this.term.cols, this.term.rows);
    this.procSubs.push(pipeToTerminal(proc, this.term, () => this.markParsed(), { beforeParse: (data) => this.showEchoAhead(data) }));
    this.procSubs.push(proc.onExit((e) => {
      this.exit = e;
      this.life = 'exited';
      for (const w of this.exitWaiters) w();
      this.exitWaiters.clear();
      this.markDirty();
      this.onExited(this);
    }));
    this.markDirty();
  }

  /** Resize emulator and process to the pane's inner size. */
  resize(cols: number, rows: number): void {
    if (cols === this.term.cols && rows === this.term.rows) return;
    this.term.resize(cols, rows);
    this.spec = { ...this.spec, cols, rows };
    this.proc?.resize(cols, rows);
    this.markDirty();
  }

  /** Send input to the process (nothing once it has exited). */
  write(data: string): void {
    if (this.life === 'exited' || !this.proc) return;
    this.echoDue = this.clock.now() + ECHO_WINDOW_MS;
    this.proc.write(data);
    // The rest is done after the write, which the echo waits for (it cannot be read before this turn
    // ends): the echo is parsed at once, and does not wait for the next frame's release of held reads.
    this.term.noteUserInput();
    this.proc.releaseReads?.();
  }

  /** The visible rows as text (what a Claude wake reads the input box from). */
  screenText(): string[] {
    return this.term.snapshotText();
  }

  /** True once the process has exited. */
  exited(): boolean {
    return this.life === 'exited';
  }

  /** Wait up to timeoutMs for the process to exit. */
  waitExit(timeoutMs: number): Promise<boolean> {
    if (this.exited()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (): void => {
        this.clock.clearTimeout(timer);
        resolve(true);
      };
      const timer = this.clock.setTimeout(() => {
        this.exitWaiters.delete(done);
        resolve(false);
      }, timeoutMs);
      this.exitWaiters.add(done);
    });
  }

  /** Signal the process. */
  kill(signal: NodeJS.Signals): void {
    if (!this.exited()) this.proc?.kill(signal);
  }

  /** The pid of the member process, when known. */
  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** A short description of how the process ended. */
  exitText(): string {
    if (!this.exit) return '';
    if (this.endedByShutdown) return ENDED_BY_SHUTDOWN;
    return this.exit.signal ? `killed by ${this.exit.signal}` : `exited ${this.exit.exitCode ?? '?'}`;
  }

  /** Everything in the pane needs drawing (its size, its view or its process changed). */
  markDirty(): void {
    this.rows.markAll();
    this.dirty = true;
    this.onChange('change');
  }

  /**
   * Output was parsed: the rows it changed are already marked, unless the view is scrolled back (it
   * may shift). The first output within ECHO_WINDOW_MS of a key is its echo; later output is paced,
   * and the process's further output is left unread until the frame that shows it (read-holds.ts).
   */
  private markParsed(): void {
    this.printed = true;
    if (!this.rowsTracked || this.term.isScrolledBack) this.rows.markAll();
    this.dirty = true;
    const echo = this.echoDue !== 0 && this.clock.now() <= this.echoDue;
    this.echoDue = 0;
    this.onChange(echo ? 'echo' : 'output', this.proc ?? undefined);
  }

  /**
   * Output that is a key's echo (the first within ECHO_WINDOW_MS of it), printable ASCII that the
   * emulator will print as it is at its cursor, is handed to echoAhead before it is parsed: the screen
   * can put it on the terminal at once, and the frame after the parse only confirms it.
   */
  private showEchoAhead(data: string | Uint8Array): void {
    if (this.echoAhead === null || this.echoDue === 0 || typeof data !== 'string' || data.length > ECHO_AHEAD_MAX) return;
    if (this.clock.now() > this.echoDue || data.length === 0 || !isPlainAscii(data)) return;
    const at = this.term.plainPrintAt(data.length);
    if (at) this.echoAhead(this, at, data);
  }

  /** Release the process's listeners (the process itself is the host's). */
  private disposeProc(): void {
    for (const s of this.procSubs.splice(0)) s.dispose();
    this.proc?.dispose();
    this.proc = null;
  }

  /** Release everything; the owner kills processes through the host. */
  dispose(): void {
    this.disposeProc();
    this.term.dispose();
  }
}
