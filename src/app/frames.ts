/**
 * Frame pacing, as in tmux's server loop: changes only ask for a frame, and at most one frame is
 * drawn per ~16 ms interval, timed on the injected clock. Two exceptions, by the cause of a request:
 * a pane's echo (the first output after a key in that pane) is drawn at once, so typing is not held
 * behind the previous frame's interval; and while output streams (a frame that only showed output
 * follows another), output-only frames come at ~30 per second, which halves their cost where a
 * person cannot tell. State changes (keys, resizes, overlays, the team folder) keep the 16 ms pace.
 * Owns the pending timer, when it is due and whether it is for output only, when the last frame was
 * drawn and whether it was, and what the next frame must redraw besides dirty panes.
 */
import type { Clock, ClockTimer } from '../host/clock.js';

/** The shortest time between two frames. */
export const FRAME_MS = 16;

/** The shortest time between two frames that only show pane output, while output streams. */
export const STREAM_FRAME_MS = 33;

/** Why a frame is asked for: a change of the screen's state, pane output, or a pane's echo of a key (drawn at once). */
export type FrameCause = 'change' | 'output' | 'echo';

/** What the next frame redraws besides dirty panes. */
export interface FrameFlags {
  full: boolean;
  chrome: boolean;
}

type Pending = { due: number } & ({ immediate: NodeJS.Immediate } | { timeout: ClockTimer });

/** Coalesces frame requests and calls `draw` at most once per FRAME_MS (STREAM_FRAME_MS for streaming output; echoes at once). */
export class FrameScheduler {
  // the pending frame, if any, when it is due on the clock, and whether only output asked for it
  private pending: Pending | null = null;
  private outputOnly = true;
  // the last frame drawn
  private last = Number.NEGATIVE_INFINITY;
  private lastOutputOnly = false;
  private stopped = false;
  // what the next frame must redraw
  full = true;
  chrome = true;

  constructor(private readonly clock: Clock, private readonly draw: (flags: FrameFlags) => void, private readonly failed: (err: unknown) => void) {}

  /** Ask for a frame; requests coalesce into one pending frame, which an echo brings forward to now. */
  request(cause: FrameCause = 'change'): void {
    if (this.stopped) return;
    const now = this.clock.now();
    if (cause !== 'output') this.outputOnly = false;
    const interval = this.outputOnly && this.lastOutputOnly ? STREAM_FRAME_MS : FRAME_MS;
    const due = cause === 'echo' ? now : Math.max(now, this.last + interval);
    if (this.pending && this.pending.due <= due) return;
    this.cancel();
    const run = (): void => {
      this.pending = null;
      this.last = this.clock.now();
      this.lastOutputOnly = this.outputOnly;
      this.outputOnly = true;
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
