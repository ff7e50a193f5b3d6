/**
 * Drawing a pane's emulator into the surface's cell grid. paintPane copies the visible rows of a
 * PaneTerminal into `grid.lines[y][x] = [attr, ch]` inside a rectangle and marks the rows it
 * changed dirty; the surface's flush (ui/screen.ts) then sends only what differs from the previous
 * frame. Given the emulator's changed rows, it reads only those: a pane printing one line costs one
 * row, not the whole pane. The only state owned here is one scratch row of cells reused by every call,
 * so a frame allocates nothing per cell. Nothing here flushes the surface: the owner schedules
 * frames and positions the real cursor from the PaneCursor returned.
 */

import type { Cell } from '../vt/cells.js';
import type { RowRange } from '../vt/dirty-rows.js';
import type { PaneCursor, PaneTerminal } from '../vt/terminal.js';
import type { CellGrid } from './surface.js';

/** Where a pane's content sits on the screen, in cells. */
export interface PaneRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

// one row of cells, reused by every paintPane call (the event loop is single-threaded)
const scratch: Cell[] = [];

/**
 * Copy the emulator's visible rows into the screen's cell grid within rect (only `rows`, the rows
 * that changed since the last frame, when given); returns the pane's cursor in screen coordinates
 * (visible is false when hidden, scrolled away or outside rect).
 */
export function paintPane(grid: CellGrid, term: PaneTerminal, rect: PaneRect, rows: RowRange = null): PaneCursor {
  const lines = grid.lines;
  const blank = grid.blank;
  const left = Math.max(0, rect.left);
  const skip = left - rect.left;
  const from = rows ? Math.max(0, rows.start) : 0;
  const to = rows ? Math.min(rect.height - 1, rows.end) : rect.height - 1;

  for (let y = from; y <= to; y++) {
    const line = lines[rect.top + y];
    if (!line) continue;
    const filled = y < term.rows ? term.readRowInto(y, scratch) : 0;
    const right = Math.min(rect.left + rect.width, line.length);
    let dirty = false;
    for (let sx = left; sx < right; sx++) {
      const x = sx - rect.left;
      let attr = blank;
      let ch = ' ';
      const cell = x < filled ? scratch[x] : undefined;
      if (cell) {
        attr = cell.attr;
        ch = cell.ch;
        // Half a wide char cannot be drawn: at a clipped edge it becomes a blank.
        if ((cell.width === 2 && sx + 1 >= right) || (cell.width === 0 && x === skip && skip > 0)) {
          ch = ' ';
        }
      }
      const target = line[sx]!;
      if (target[0] !== attr || target[1] !== ch) {
        target[0] = attr;
        target[1] = ch;
        dirty = true;
      }
    }
    if (dirty) line.dirty = true;
  }

  const cursor = term.cursor;
  const visible = cursor.visible && cursor.x < rect.width && cursor.y < rect.height;
  return { x: rect.left + cursor.x, y: rect.top + cursor.y, visible };
}
