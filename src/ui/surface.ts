/**
 * The drawing surface everything outside ui/screen.ts paints on: a grid of cells (`lines[y][x] =
 * [attr, ch]`, a row marked dirty, with the columns changed, when a cell changes), its size, and
 * the few things a frame ends with (flush with the cursor placed, title, bell). Input arrives as
 * tokens and resizes as events.
 * Nothing here knows which library draws the grid; ui/screen.ts is the one implementation on a real
 * terminal. Owns no data itself: the grid belongs to the implementation.
 */
import type { InputToken } from '../keys/input.js';

/** One cell: packed attr (vt/attr.ts) and its text ('' for the right half of a wide character). */
export type GridCell = [number, string];
/**
 * One row of cells and whether it changed since the last flush. Painters mark the columns they
 * changed with markChanged (`dirtySpans`: from, to, from, to...), so the flush scans only those;
 * a row marked dirty with no spans is scanned whole.
 */
export type GridLine = GridCell[] & { dirty?: boolean; dirtySpans?: number[] };

/** Record that cells from..to (inclusive) of a line changed since the last flush. */
export function markChanged(line: GridLine, from: number, to: number): void {
  if (!line.dirty) {
    line.dirty = true;
    const spans = line.dirtySpans ?? (line.dirtySpans = []);
    spans.length = 0;
    spans.push(from, to);
    return;
  }
  // already dirty as a whole row: stays whole
  const spans = line.dirtySpans;
  if (!spans || spans.length === 0) return;
  const n = spans.length;
  // the common case: the same painter going on where it stopped
  if (from <= spans[n - 1]! + 1 && from >= spans[n - 2]!) spans[n - 1] = Math.max(spans[n - 1]!, to);
  else spans.push(from, to);
}

/** What painting writes into. */
export interface CellGrid {
  readonly lines: GridLine[];
  /** The attr of a blank cell. */
  readonly blank: number;
}

/** Where the terminal's cursor goes after a frame (null: hidden). */
export type SurfaceCursor = { x: number; y: number } | null;

/** A listener's handle. */
export interface Unsubscribe {
  dispose(): void;
}

/** A terminal to draw on and read keys from. */
export interface Surface extends CellGrid {
  readonly cols: number;
  readonly rows: number;
  /** Send the changed cells to the terminal and place (or hide) the cursor. */
  flush(cursor: SurfaceCursor): void;
  /** Ring the terminal's bell. */
  bell(): void;
  /** Set the terminal's title (the caller passes text that is safe to show). */
  title(text: string): void;
  onInput(listener: (token: InputToken) => void): Unsubscribe;
  /**
   * Offer each printable ASCII key (0x20-0x7e) typed alone, with no sequence or paste in progress, to
   * `take` before it is tokenized; a key it takes (returns true) is not passed to onInput.
   */
  takePlainKeys(take: (key: string) => boolean): Unsubscribe;
  /**
   * Write printable ASCII at (x, y) now, ahead of the frame that will show it, where that is known to
   * put exactly those cells on the terminal; the next flush sends them again only if the grid then
   * disagrees. Returns whether it wrote.
   */
  echoAt(x: number, y: number, text: string): boolean;
  onResize(listener: (cols: number, rows: number) => void): Unsubscribe;
  /** The input ended (the terminal went away). */
  onEnd(listener: () => void): Unsubscribe;
  /** Restore the terminal's modes now (synchronous, at most once; also safe from a crash). */
  restore(): void;
  /** Release the terminal. */
  destroy(): void;
}
