/**
 * Frame pacing, as in tmux's server loop: changes only ask for a frame, and at most one frame is
 * drawn per ~16 ms interval, timed on the injected clock. Owns the pending timer, when the last
 * frame was drawn, and what the next frame must redraw besides dirty panes (everything, or titles
 * and the sidebar).
 */
import type { Clock, ClockTimer } from '../host/clock.js';

/** The shortest time between two frames. */
export const FRAME_MS = 16;

/** What the next frame redraws besides dirty panes. */
export interface FrameFlags {
  full: boolean;
  chrome: boolean;
}

/** Coalesces frame requests and calls `draw` at most once per FRAME_MS. */
export class FrameScheduler {
  // the pending frame, if any
  private timer: { immediate: NodeJS.Immediate } | { timeout: ClockTimer } | null = null;
  private last = 0;
  private stopped = false;
  // what the next frame must redraw
  full = true;
  chrome = true;

  constructor(private readonly clock: Clock, private readonly draw: (flags: FrameFlags) => void, private readonly failed: (err: unknown) => void) {}

  /** Ask for a frame; several requests within one frame interval coalesce. */
  request(): void {
    if (this.timer || this.stopped) return;
    const wait = Math.max(0, FRAME_MS - (this.clock.now() - this.last));
    const run = (): void => {
      this.timer = null;
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
    this.timer = wait === 0 ? { immediate: setImmediate(run) } : { timeout: this.clock.setTimeout(run, wait) };
  }

  /** Draw no more frames. */
  stop(): void {
    this.stopped = true;
    if (!this.timer) return;
    if ('immediate' in this.timer) clearImmediate(this.timer.immediate);
    else this.clock.clearTimeout(this.timer.timeout);
    this.timer = null;
  }
}
