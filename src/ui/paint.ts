/**
 * Painting chrome rows into blessed's cell grid (`screen.lines`), the same way pane-view paints
 * emulator cells: only changed cells are touched and their rows marked dirty, text is laid out by
 * the emulators' own width function (vt/width.ts: a wide character takes two cells, the second an
 * empty placeholder; joined marks stay in their cell), printable ASCII takes a fast path, and
 * nothing here renders; the owner schedules frames.
 */
import type { Widgets } from 'blessed';
import type { BlessedScreenInternals } from './blessed-attrs.js';
import { cellsOf, isPlainAscii } from '../vt/width.js';
import type { Row } from './text.js';
import type { Rect } from './geometry.js';

function put(line: Array<[number, string]> & { dirty?: boolean }, x: number, attr: number, ch: string): void {
  const cell = line[x];
  if (!cell) return;
  if (cell[0] !== attr || cell[1] !== ch) {
    cell[0] = attr;
    cell[1] = ch;
    line.dirty = true;
  }
}

/** Paint one row of segments at (left, top), padding with `fill` attr to `width` columns. */
export function paintRow(screen: Widgets.Screen, left: number, top: number, width: number, row: Row, fill: number): void {
  const line = (screen as unknown as BlessedScreenInternals).lines[top] as (Array<[number, string]> & { dirty?: boolean }) | undefined;
  if (!line) return;
  const end = Math.min(left + width, line.length);
  let x = left;
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
}

/** Paint rows into a rectangle; rows past the end are blank. */
export function paintRows(screen: Widgets.Screen, rect: Rect, rows: Row[], fill: number): void {
  for (let y = 0; y < rect.height; y++) paintRow(screen, rect.left, rect.top + y, rect.width, rows[y] ?? [], fill);
}

/** Paint a vertical separator line. */
export function paintVLine(screen: Widgets.Screen, x: number, top: number, height: number, attr: number): void {
  for (let y = top; y < top + height; y++) paintRow(screen, x, y, 1, [{ text: '│', attr }], attr);
}
