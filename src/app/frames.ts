/**
 * Frame pacing, as in tmux's server loop: changes only ask for a frame, and at most one frame is
 * drawn per ~16 ms interval, timed on the injected clock. The one exception is a pane's echo: the
 * first output after a key in that pane asks for an `echo` frame, drawn at once, so typing is not
 * held behind the previous frame's interval (a flood of output after the key stays paced). Owns the
 * pending timer and when it is due, when the last frame was drawn, and what the next frame must
 * redraw besides dirty panes (everything, or titles and the sidebar).
 */
import type { Clock, ClockTimer } from '../host/clock.js';

/** The shortest time between two frames. */
export const FRAME_MS = 16;

/** Why a frame is asked for: a change of the screen's state, or a pane's echo of a key (drawn at once). */
export type FrameCause = 'change' | 'echo';

/** What the next frame redraws besides dirty panes. */
export interface FrameFlags {
  full: boolean;
  chrome: boolean;
}

type Pending = { due: number } & ({ immediate: NodeJS.Immediate } | { timeout: ClockTimer });

/** Coalesces frame requests and calls `draw` at most once per FRAME_MS, except for echo frames. */
export class FrameScheduler {
  // the pending frame, if any, and when it is due on the clock
  private pending: Pending | null = null;
  private last = Number.NEGATIVE_INFINITY;
  private stopped = false;
  // what the next frame must redraw
  full = true;
  chrome = true;

  constructor(private readonly clock: Clock, private readonly draw: (flags: FrameFlags) => void, private readonly failed: (err: unknown) => void) {}

  /** Ask for a frame; requests coalesce into one pending frame, which an echo brings forward to now. */
  request(cause: FrameCause = 'change'): void {
    if (this.stopped) return;
    const now = this.clock.now();
    const due = cause === 'echo' ? now : Math.max(now, this.last + FRAME_MS);
    if (this.pending && this.pending.due <= due) return;
    this.cancel();
    const run = (): void => {
      this.pending = null;
      this.last = this.clock.now();
      const flags = { full: this.full, chrome: this.chrome };
      this.full = false;
      this.chrome = false;
      try {
        this.draw(flags);
      } catch (err) {
        // A frame that cannot be drawn is logged once per burst; the next change tries again.
        this.failed(err);
      }
    };
    // A timer costs at least a millisecond even at 0; when a frame is due now, draw on the next turn.
    this.pending = due <= now ? { due, immediate: setImmediate(run) } : { due, timeout: this.clock.setTimeout(run, due - now) };
  }

  /** Draw no more frames. */
  stop(): void {
    this.stopped = true;
    this.cancel();
  }

  private cancel(): void {
    if (!this.pending) return;
    if ('immediate' in this.pending) clearImmediate(this.pending.immediate);
    else this.clock.clearTimeout(this.pending.timeout);
    this.pending = null;
  }
}
