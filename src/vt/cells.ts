/**
 * Reading xterm buffer lines into blessed-shaped cells: `{ ch, width, attr }` with attr in the
 * packed layout of attr.ts. A wide char is one width-2 cell followed by a width-0 placeholder
 * whose ch is '' so columns stay aligned. This runs for every cell of every dirty pane each frame,
 * so CellReader reads xterm's own cell words where it can (three numbers a cell, the text of a
 * one-unit character taken from a table), reuses one xterm IBufferCell otherwise, and keeps a
 * one-entry attr cache: runs of cells with the same style (the common case) cost one comparison
 * instead of a dozen accessor calls. The data owned: that cache and a table of one-unit strings.
 */

import type { IBufferCell, IBufferLine } from '@xterm/headless';
import {
  ATTR_DEFAULT,
  ATTR_DEFAULT_COLOR,
  FLAG_BLINK,
  FLAG_BOLD,
  FLAG_DIM,
  FLAG_INVERSE,
  FLAG_INVISIBLE,
  FLAG_ITALIC,
  FLAG_UNDERLINE,
  packAttr,
} from './attr.js';
import { nearestPaletteIndexOf } from './palette.js';
import { CODEPOINT_MASK, IS_COMBINED, rawLineOf, WIDTH_SHIFT } from './xterm-internals.js';

/** One screen cell: the text drawn there, its column width, its packed attr. */
export interface Cell {
  ch: string;
  width: 0 | 1 | 2;
  attr: number;
}

/** The packed attr (attr.ts layout) of an xterm buffer cell; truecolor is reduced to xterm-256. */
export function attrOfCell(cell: IBufferCell): number {
  if (cell.isAttributeDefault()) return ATTR_DEFAULT;
  let flags = 0;
  if (cell.isBold()) flags |= FLAG_BOLD;
  if (cell.isUnderline()) flags |= FLAG_UNDERLINE;
  if (cell.isBlink()) flags |= FLAG_BLINK;
  if (cell.isInverse()) flags |= FLAG_INVERSE;
  if (cell.isInvisible()) flags |= FLAG_INVISIBLE;
  if (cell.isItalic()) flags |= FLAG_ITALIC;
  if (cell.isDim()) flags |= FLAG_DIM;
  const fg = cell.isFgDefault()
    ? ATTR_DEFAULT_COLOR
    : cell.isFgRGB()
      ? nearestPaletteIndexOf(cell.getFgColor())
      : cell.getFgColor() & 0xff;
  const bg = cell.isBgDefault()
    ? ATTR_DEFAULT_COLOR
    : cell.isBgRGB()
      ? nearestPaletteIndexOf(cell.getBgColor())
      : cell.getBgColor() & 0xff;
  return packAttr(flags, fg, bg);
}

/** xterm's internal attribute words (AttributeData.fg/bg); read only as a cache key. */
interface RawAttributes {
  fg?: number;
  bg?: number;
}

/** Set in xterm's bg word when the cell carries extended attrs (underline style/colour, links). */
const BG_HAS_EXTENDED = 0x10000000;


// The string of each one-unit code point below U+3000 (Latin, box drawing, symbols), made the first
// time a cell shows it: a cell's text is then a table read, not a new string. Made on use, not all
// at start-up: the whole table is ~0.4 MiB of heap (12,288 strings), a screen uses a few hundred.
const UNIT_TABLE_SIZE = 0x3000;
const unitStrings: (string | undefined)[] = new Array<string | undefined>(UNIT_TABLE_SIZE);
unitStrings[0] = ' ';

function charOf(cp: number): string {
  if (cp >= UNIT_TABLE_SIZE) return String.fromCodePoint(cp);
  return unitStrings[cp] ?? (unitStrings[cp] = String.fromCharCode(cp));
}

// the content word of a blank cell (no code point, width 1), for cells past the end of a line
const BLANK_CONTENT = 1 << WIDTH_SHIFT;

function blank(cell: Cell): void {
  cell.ch = ' ';
  cell.width = 1;
  cell.attr = ATTR_DEFAULT;
}

/** Called with each visited cell's column and the (reused) cell. */
export type CellVisitor = (x: number, cell: Readonly<Cell>) => void;

/** Reads buffer lines into Cells through one reused IBufferCell. */
export class CellReader {
  // reused for every cell read; never escapes
  private readonly scratch: IBufferCell;
  private readonly visitCell: Cell = { ch: ' ', width: 1, attr: ATTR_DEFAULT };
  // one-entry cache: the raw attribute words last converted and their packed attr
  private lastFg = -1;
  private lastBg = -1;
  private lastAttr = ATTR_DEFAULT;

  constructor(scratch: IBufferCell) {
    this.scratch = scratch;
  }

  /** Fill out[0..cols) from line (blank cells past its end); returns cols. */
  read(line: IBufferLine | undefined, cols: number, out: Cell[]): number {
    for (let x = out.length; x < cols; x++) out.push({ ch: ' ', width: 1, attr: ATTR_DEFAULT });
    out.length = cols;
    const raw = line ? rawLineOf(line) : null;
    if (!line || !raw) {
      for (let x = 0; x < cols; x++) this.load(line, x, out[x]!);
      return cols;
    }
    // xterm's cell words: content, fg, bg
    const { data, combined } = raw;
    const end = Math.min(cols, raw.length);
    for (let x = 0; x < end; x++) this.decode(line, data, combined, x, out[x]!);
    for (let x = end; x < cols; x++) blank(out[x]!);
    return cols;
  }

  /**
   * Visit the cells of line [0, cols) whose words differ from those kept in `seen` (3 a cell, from
   * index `at`), or every cell when `all`, keeping the new words there: a row that scrolled up by
   * one costs a comparison of numbers per cell and a visit only where the text or style differs.
   * Cells with combined text (kept outside the words) are always visited. The Cell is reused.
   * Returns false, visiting nothing, when xterm's words cannot be read.
   */
  visitChanged(line: IBufferLine, cols: number, seen: Uint32Array, at: number, all: boolean, visit: CellVisitor): boolean {
    const raw = rawLineOf(line);
    if (!raw) return false;
    const { data, combined } = raw;
    const end = Math.min(cols, raw.length);
    const cell = this.visitCell;
    for (let x = 0; x < cols; x++) {
      const i = x * 3;
      const s = at + i;
      const inside = x < end;
      const content = inside ? data[i]! : BLANK_CONTENT;
      const fg = inside ? data[i + 1]! : 0;
      const bg = inside ? data[i + 2]! : 0;
      if (!all && content === seen[s] && fg === seen[s + 1] && bg === seen[s + 2] && (content & IS_COMBINED) === 0) continue;
      seen[s] = content;
      seen[s + 1] = fg;
      seen[s + 2] = bg;
      if (inside) this.decode(line, data, combined, x, cell);
      else blank(cell);
      visit(x, cell);
    }
    return true;
  }

  /** Cell x of a line from its words. */
  private decode(line: IBufferLine, data: Uint32Array, combined: Record<number, string>, x: number, target: Cell): void {
    const content = data[x * 3]!;
    const width = content >>> WIDTH_SHIFT;
    if (width === 0) {
      target.ch = '';
      target.width = 0;
    } else {
      target.ch = content & IS_COMBINED ? combined[x] || ' ' : charOf(content & CODEPOINT_MASK);
      target.width = width === 2 ? 2 : 1;
    }
    const fg = data[x * 3 + 1]!;
    const bg = data[x * 3 + 2]!;
    if (fg === this.lastFg && bg === this.lastBg) target.attr = this.lastAttr;
    else target.attr = this.attrOf(line.getCell(x, this.scratch)!);
  }

  /** Call visit for each of the cols cells of line with one reused Cell. */
  visit(line: IBufferLine | undefined, cols: number, visit: CellVisitor): void {
    const cell = this.visitCell;
    for (let x = 0; x < cols; x++) {
      this.load(line, x, cell);
      visit(x, cell);
    }
  }

  private load(line: IBufferLine | undefined, x: number, target: Cell): void {
    const cell = line?.getCell(x, this.scratch);
    if (!cell) {
      target.ch = ' ';
      target.width = 1;
      target.attr = ATTR_DEFAULT;
      return;
    }
    const width = cell.getWidth();
    if (width === 0) {
      target.ch = '';
      target.width = 0;
    } else {
      target.ch = cell.getChars() || ' ';
      target.width = width === 2 ? 2 : 1;
    }
    target.attr = this.attrOf(cell);
  }

  private attrOf(cell: IBufferCell): number {
    const raw = cell as unknown as RawAttributes;
    const fg = raw.fg;
    const bg = raw.bg;
    if (typeof fg !== 'number' || typeof bg !== 'number' || (bg & BG_HAS_EXTENDED) !== 0) {
      return attrOfCell(cell);
    }
    if (fg !== this.lastFg || bg !== this.lastBg) {
      this.lastFg = fg;
      this.lastBg = bg;
      this.lastAttr = attrOfCell(cell);
    }
    return this.lastAttr;
  }
}
