/**
 * The outer terminal's modes while teamux owns it: raw input, mouse reporting, bracketed paste, the
 * alternate screen and a hidden cursor. TerminalGuard owns the one fact "have we restored it yet" and
 * restores synchronously and at most once, so it can run from `finish()`, from an uncaught exception
 * and from the process's `exit` event alike; whichever comes first wins and the others do nothing.
 */

/** Mouse (button events + drag, SGR encoding) and bracketed paste, as the multiplexer turns them on. */
export const ENTER_MODES = '\x1b[?1000h\x1b[?1002h\x1b[?1006h\x1b[?2004h';
/** Everything a crashed or finished teamux must turn off: paste, mouse, scroll region, attributes, cursor, alternate screen. */
export const RESTORE_MODES = '\x1b[?2004l\x1b[?1006l\x1b[?1002l\x1b[?1000l\x1b[?1004l\x1b[r\x1b[0m\x1b[?25h\x1b[?1049l';

/** The parts of the real streams the guard touches. */
export interface GuardedInput {
  setRawMode?(mode: boolean): unknown;
  pause(): unknown;
}
/** Where the restoring sequences go. */
export interface GuardedOutput {
  write(data: string): unknown;
}

/** Puts the terminal into the multiplexer's modes and restores it exactly once. */
export class TerminalGuard {
  private entered = false;
  private restored = false;
  private readonly onExit = (): void => void this.restore();

  constructor(private readonly input: GuardedInput, private readonly output: GuardedOutput) {}

  /** Raw input, mouse and paste reporting; the `exit` hook restores the terminal whatever happens later. */
  enter(): void {
    if (this.entered) return;
    this.entered = true;
    this.input.setRawMode?.(true);
    this.output.write(ENTER_MODES);
    process.on('exit', this.onExit);
  }

  /** Restore the terminal (synchronous, idempotent); true the first time it actually did something. */
  restore(): boolean {
    if (!this.entered || this.restored) return false;
    this.restored = true;
    process.off('exit', this.onExit);
    try {
      this.output.write(RESTORE_MODES);
    } catch {
      // The terminal is gone (SIGHUP): nothing left to restore on it.
    }
    try {
      this.input.setRawMode?.(false);
      this.input.pause();
    } catch {
      // As above.
    }
    return true;
  }

  /** True once restore() ran. */
  get isRestored(): boolean {
    return this.restored;
  }
}
