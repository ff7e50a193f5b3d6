/**
 * Frame pacing, as in tmux's server loop: changes only ask for a frame, and at most one frame is
 * drawn per ~16 ms interval, timed on the injected clock. Two exceptions, by the cause of a request:
 * a pane's echo (the first output after a key in that pane) is drawn at once, in the read callback
 * that carried it, so typing is not held behind the previous frame's interval; and while output streams (a frame that only showed output
 * follows another), output-only frames come at ~30 per second, which halves their cost where a
 * person cannot tell. State changes (keys, resizes, overlays, the team folder) keep the 16 ms pace.
 * Output that asks for a frame may name its source: its reads are then held until the frame
 * (read-holds.ts), which first releases them and draws a turn of the event loop later, once what
 * waited has been read. Owns the pending timer, when it is due, whether a draw was asked for and
 * whether only output asked, when the last frame was drawn and whether it was output only, the held
 * sources, and what the next frame must redraw besides dirty panes.
 */
import type { Clock, ClockTimer } from '../host/clock.js';
import { ReadHolds, type HoldableSource } from './read-pacing.js';

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

/** Coalesces frame requests and calls `draw` at most once per FRAME_MS (STREAM_FRAME_MS for streaming output; echoes at once, in the request). */
export class FrameScheduler {
  // the pending run, if any, when it is due on the clock, whether it draws (else it only releases
  // held reads), whether only output asked for it, and whether held reads were released for it
  private pending: Pending | null = null;
  private wanted = false;
  private outputOnly = true;
  private released = false;
  // the last frame drawn
  private last = Number.NEGATIVE_INFINITY;
  private lastOutputOnly = false;
  private stopped = false;
  // sources whose reads wait for the next frame
  private readonly holds = new ReadHolds();
  // what the next frame must redraw
  full = true;
  chrome = true;

  constructor(private readonly clock: Clock, private readonly draw: (flags: FrameFlags) => void, private readonly failed: (err: unknown) => void) {}

  /**
   * Ask for a frame; requests coalesce into one pending frame, which an echo draws now (with
   * everything else waiting for it). Output from `source` holds its further reads until that frame.
   */
  request(cause: FrameCause = 'change', source?: HoldableSource): void {
    if (this.stopped) return;
    const now = this.clock.now();
    this.wanted = true;
    if (cause !== 'output') this.outputOnly = false;
    if (cause === 'echo') {
      // Drawn now, in the read callback that carried the echo: not a turn of the event loop later,
      // which costs more than the frame on a machine whose caches went cold since the key.
      this.cancel();
      this.run();
      return;
    }
    const due = Math.max(now, this.last + this.interval());
    if (!this.pending || this.pending.due > due) this.schedule(due, now);
    if (cause === 'output' && source) this.holds.hold(source);
  }

  /** Draw no more frames; held reads are released. */
  stop(): void {
    this.stopped = true;
    this.cancel();
    this.holds.release();
  }

  private interval(): number {
    return this.outputOnly && this.lastOutputOnly ? STREAM_FRAME_MS : FRAME_MS;
  }

  private schedule(due: number, now: number): void {
    this.cancel();
    // A timer costs at least a millisecond even at 0; when a run is due now, it runs on the next turn.
    this.pending = due <= now ? { due, immediate: setImmediate(this.run) } : { due, timeout: this.clock.setTimeout(this.run, due - now) };
  }

  private readonly run = (): void => {
    this.pending = null;
    // An output frame lets held output in first: reading resumes, and the frame is drawn on the next
    // turn, after the event loop has polled the released sources. Echoes and changes draw at once.
    if (!this.released && (this.outputOnly || !this.wanted) && this.holds.release()) {
      this.released = true;
      this.pending = { due: this.clock.now(), immediate: setImmediate(this.run) };
      return;
    }
    this.released = false;
    if (this.wanted) this.drawNow();
    // Sources held since the release (or around an echo) wait for the next frame, at its pace.
    if (this.holds.size > 0 && !this.pending && !this.stopped) {
      const now = this.clock.now();
      this.schedule(Math.max(now, this.last + this.interval()), now);
    }
  };

  private drawNow(): void {
    this.wanted = false;
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
  }

  private cancel(): void {
    if (!this.pending) return;
    if ('immediate' in this.pending) clearImmediate(this.pending.immediate);
    else this.clock.clearTimeout(this.pending.timeout);
    this.pending = null;
  }
}
