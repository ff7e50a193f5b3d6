/**
 * Which visible rows of an emulator changed since they were last drawn. xterm's input handler tracks
 * the rows each parse touched (its DirtyRowTracker, widened to the scroll region when the buffer
 * scrolls) and announces them, viewport-relative, through `onRequestRefreshRows`; the public headless
 * API does not expose that event, so it is read here through a guarded view of `terminal._core`
 * (a version of xterm without it yields null, and callers treat every change as all rows).
 * DirtyRows accumulates those ranges between two frames; it owns only the range.
 */
import type { IDisposable, Terminal } from '@xterm/headless';

interface RefreshCore {
  _inputHandler?: { onRequestRefreshRows?: (listener: (range: { start: number; end: number } | undefined) => void) => IDisposable };
}

/** Call `listener(start, end)` with the visible rows each parse changed; null when xterm does not say. */
export function watchRefreshRows(terminal: Terminal, listener: (start: number, end: number) => void): IDisposable | null {
  const handler = ((terminal as unknown as { _core?: RefreshCore })._core)?._inputHandler;
  if (typeof handler?.onRequestRefreshRows !== 'function') return null;
  // No range means "everything" (a mode change such as the alternate screen).
  return handler.onRequestRefreshRows((range) => listener(range?.start ?? 0, range?.end ?? terminal.rows - 1));
}

/** Rows to redraw: null for all of them, or an inclusive range (empty when start > end). */
export type RowRange = { start: number; end: number } | null;

/** The rows changed since the last take(). */
export class DirtyRows {
  private all = true;
  private start = Number.POSITIVE_INFINITY;
  private end = -1;

  /** Rows start..end (inclusive, viewport-relative) changed. */
  mark(start: number, end: number): void {
    if (start < this.start) this.start = start;
    if (end > this.end) this.end = end;
  }

  /** Everything changed (a resize, a scroll of the view, a new process). */
  markAll(): void {
    this.all = true;
  }

  /** The rows to redraw now, and forget them. */
  take(): RowRange {
    const range: RowRange = this.all ? null : { start: this.start, end: this.end };
    this.all = false;
    this.start = Number.POSITIVE_INFINITY;
    this.end = -1;
    return range;
  }
}
