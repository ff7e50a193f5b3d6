/**
 * Read pacing, the other half of frame pacing (frames.ts): a pane whose output was read while a frame
 * is waiting is shown by that frame at the earliest, so its process's further output may wait in the
 * kernel until then, and a pane printing line by line is read once per frame instead of once per line
 * (each read wakes the event loop: for 4 panes printing 100 lines/s, ~400 wake-ups a second become
 * ~120). ReadHolds owns the set of sources held; the frame scheduler releases them all before it
 * draws, so no output waits longer than the frame that would show it anyway.
 */

/** A byte source whose reading can be held until the next frame (PaneProcess, structurally). */
export interface HoldableSource {
  holdReads?(): void;
  releaseReads?(): void;
}

/** The sources whose reads are held until the next frame. */
export class ReadHolds {
  private readonly held = new Set<HoldableSource>();

  /** Stop reading `source` until release(); sources that cannot hold are left alone. */
  hold(source: HoldableSource): void {
    if (!source.holdReads || !source.releaseReads || this.held.has(source)) return;
    this.held.add(source);
    source.holdReads();
  }

  /** Resume reading every held source; returns whether there was any. */
  release(): boolean {
    if (this.held.size === 0) return false;
    for (const source of this.held) source.releaseReads?.();
    this.held.clear();
    return true;
  }

  /** How many sources are held. */
  get size(): number {
    return this.held.size;
  }
}
