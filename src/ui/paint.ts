/**
 * Painting chrome rows into the surface's cell grid (`grid.lines`), the same way pane-view paints
 * emulator cells: only changed cells are touched and their rows marked dirty with the columns
 * changed (surface.ts's markChanged), text is laid out by the emulators' own width function
 * (vt/width.ts: a wide character takes two cells, the second an empty placeholder; joined marks
 * stay in their cell), printable ASCII takes a fast path, and nothing here renders; the owner
 * schedules frames. The only state: the changed columns of the row being painted.
 */
import { markChanged, type CellGrid, type GridLine } from './surface.js';
import { cellsOf, isPlainAscii } from '../vt/width.js';
import type { Row } from './text.js';
import type { Rect } from '../mux/geometry.js';

// the columns of the row being painted that changed (a row is painted by one call at a time)
let firstChanged = -1;
let lastChanged = -1;

function put(line: GridLine, x: number, attr: number, ch: string): void {
  const cell = line[x];
  if (!cell) return;
  if (cell[0] !== attr || cell[1] !== ch) {
    cell[0] = attr;
    cell[1] = ch;
    if (firstChanged === -1) firstChanged = x;
    lastChanged = x;
  }
}

/** Paint one row of segments at (left, top), padding with `fill` attr to `width` columns. */
export function paintRow(grid: CellGrid, left: number, top: number, width: number, row: Row, fill: number): void {
  const line = grid.lines[top];
  if (!line) return;
  const end = Math.min(left + width, line.length);
  let x = left;
  firstChanged = -1;
  lastChanged = -1;
  for (const seg of row) {
    if (isPlainAscii(seg.text)) {
      const n = Math.max(0, Math.min(seg.text.length, end - x));
      for (let i = 0; i < n; i++) put(line, x + i, seg.attr, seg.text[i]!);
      x += n;
      continue;
    }
    for (const cell of cellsOf(seg.text)) {
      if (x + cell.width > end) break;
      put(line, x, seg.attr, cell.ch);
      if (cell.width === 2) put(line, x + 1, seg.attr, '');
      x += cell.width;
    }
  }
  for (; x < end; x++) put(line, x, fill, ' ');
  if (firstChanged !== -1) markChanged(line, firstChanged, lastChanged);
}

/** Paint rows into a rectangle; rows past the end are blank. */
export function paintRows(grid: CellGrid, rect: Rect, rows: Row[], fill: number): void {
  for (let y = 0; y < rect.height; y++) paintRow(grid, rect.left, rect.top + y, rect.width, rows[y] ?? [], fill);
}

/** Paint a vertical separator line. */
export function paintVLine(grid: CellGrid, x: number, top: number, height: number, attr: number): void {
  for (let y = top; y < top + height; y++) paintRow(grid, x, y, 1, [{ text: '│', attr }], attr);
}
