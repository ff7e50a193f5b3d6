/**
 * Drawing a pane's emulator into the surface's cell grid. paintPane copies the visible rows of a
 * PaneTerminal into `grid.lines[y][x] = [attr, ch]` inside a rectangle and marks the rows it
 * changed dirty, with the columns changed; the surface's flush (ui/screen.ts) then sends only what
 * differs from the previous frame. Given the emulator's changed rows, it reads only those, and of those only the cells whose
 * words changed: a pane printing one line costs one row, a pane that scrolled a comparison of
 * numbers per cell. The only state owned here is the row being painted, reused by every call, so a
 * frame allocates nothing per cell. Nothing here flushes the surface: the owner schedules frames
 * and positions the real cursor from the PaneCursor returned.
 */

import type { Cell } from '../vt/cells.js';
import type { RowRange } from '../vt/dirty-rows.js';
import type { PaneCursor, PaneTerminal } from '../vt/terminal.js';
import { markChanged, type CellGrid, type GridLine } from './surface.js';

/** Where a pane's content sits on the screen, in cells. */
export interface PaneRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

// the row being painted: where it goes and which of its columns changed (the event loop is single-threaded)
const row = { line: [] as GridLine, origin: 0, left: 0, right: 0, skip: 0, first: -1, last: -1 };

function put(sx: number, attr: number, ch: string): void {
  const target = row.line[sx]!;
  if (target[0] !== attr || target[1] !== ch) {
    target[0] = attr;
    target[1] = ch;
    if (row.first === -1) row.first = sx;
    row.last = sx;
  }
}

function paintCell(x: number, cell: Readonly<Cell>): void {
  const sx = row.origin + x;
  if (sx < row.left || sx >= row.right) return;
  // Half a wide char cannot be drawn: at a clipped edge it becomes a blank.
  const clipped = (cell.width === 2 && sx + 1 >= row.right) || (cell.width === 0 && x === row.skip && row.skip > 0);
  put(sx, cell.attr, clipped ? ' ' : cell.ch);
}

/**
 * Copy the emulator's visible rows into the screen's cell grid within rect (only `rows`, the rows
 * that changed since the last frame, when given); returns the pane's cursor in screen coordinates
 * (visible is false when hidden, scrolled away or outside rect). With `all` false, the grid is
 * taken to still show what this pane last painted there, and only the cells whose emulator words
 * changed since are read (PaneTerminal.visitChangedCells); `all` repaints every cell.
 */
export function paintPane(grid: CellGrid, term: PaneTerminal, rect: PaneRect, rows: RowRange = null, all = true): PaneCursor {
  const lines = grid.lines;
  const blank = grid.blank;
  const left = Math.max(0, rect.left);
  const from = rows ? Math.max(0, rows.start) : 0;
  const to = rows ? Math.min(rect.height - 1, rows.end) : rect.height - 1;

  for (let y = from; y <= to; y++) {
    const line = lines[rect.top + y];
    if (!line) continue;
    row.line = line;
    row.origin = rect.left;
    row.left = left;
    row.right = Math.min(rect.left + rect.width, line.length);
    row.skip = left - rect.left;
    row.first = -1;
    row.last = -1;
    if (y < term.rows) term.visitChangedCells(y, all, paintCell);
    // past the emulator's size (a pane being resized): blank
    if (all) for (let sx = Math.max(left, rect.left + (y < term.rows ? term.cols : 0)); sx < row.right; sx++) put(sx, blank, ' ');
    if (row.first !== -1) markChanged(line, row.first, row.last);
  }

  const cursor = term.cursor;
  const visible = cursor.visible && cursor.x < rect.width && cursor.y < rect.height;
  return { x: rect.left + cursor.x, y: rect.top + cursor.y, visible };
}
