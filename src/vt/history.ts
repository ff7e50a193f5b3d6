/**
 * Compact history: the scrollback lines older than the few hundred xterm keeps. xterm stores every
 * line at full width, 12 bytes a cell (a 5,000-line scrollback of 120 columns is 7 MiB even when
 * the lines are short); here a line is its text with trailing blanks trimmed, plus, only when
 * needed, the runs of its packed attrs and the cell layout of wide or combined characters: encoded
 * from each line xterm is about to drop and read back into Cells like a live row. The lines are
 * kept packed in blocks by HistoryStore (history-store.ts).
 */

import { ATTR_DEFAULT } from './attr.js';
import type { Cell } from './cells.js';
import { CODEPOINT_MASK, IS_COMBINED, WIDTH_SHIFT } from './xterm-internals.js';

/** One line of history. */
export interface CompactLine {
  /** The cells' text, concatenated; trailing default blanks trimmed. */
  text: string;
  /**
   * Null when every cell is one UTF-16 unit of width 1 (then cell x is text[x]); otherwise for each
   * cell its end offset in text and its width: [end0, width0, end1, width1, ...].
   */
  layout: Uint16Array | null;
  /** Null when every cell has the default attr; otherwise [firstCell, attr, firstCell, attr, ...]. */
  runs: Uint32Array | null;
  /** The line continues the one above (a soft wrap). */
  wrapped: boolean;
}

const BLANK: Cell = { ch: ' ', width: 1, attr: ATTR_DEFAULT };

/** Encode cells [0, cols) into a compact line. */
export function compactLine(cells: readonly Readonly<Cell>[], cols: number, wrapped: boolean): CompactLine {
  let end = cols;
  while (end > 0 && cells[end - 1]!.ch === ' ' && cells[end - 1]!.attr === ATTR_DEFAULT && cells[end - 1]!.width === 1) end--;
  const chars: string[] = [];
  let simple = true;
  const runs: number[] = [];
  let attr = ATTR_DEFAULT;
  for (let x = 0; x < end; x++) {
    const cell = cells[x]!;
    chars.push(cell.ch);
    if (cell.width !== 1 || cell.ch.length !== 1) simple = false;
    if (cell.attr !== attr) {
      attr = cell.attr;
      runs.push(x, attr);
    }
  }
  // joined, not concatenated: one flat string per line, not a rope of one-char pieces
  const text = chars.join('');
  let layout: Uint16Array | null = null;
  if (!simple) {
    layout = new Uint16Array(end * 2);
    let offset = 0;
    for (let x = 0; x < end; x++) {
      offset += cells[x]!.ch.length;
      layout[x * 2] = offset;
      layout[x * 2 + 1] = cells[x]!.width;
    }
  }
  return { text, layout, runs: runs.length > 0 ? Uint32Array.from(runs) : null, wrapped };
}

/** How many cells of a line (xterm's cell words, 3 per cell) to keep: up to its last that is not a default blank. */
export function trimmedEnd(data: Uint32Array, cols: number): number {
  let end = cols;
  while (end > 0) {
    const i = (end - 1) * 3;
    const cp = data[i]! & (CODEPOINT_MASK | IS_COMBINED);
    if ((cp !== 0 && cp !== 0x20) || data[i + 1] !== 0 || data[i + 2] !== 0 || data[i]! >>> WIDTH_SHIFT !== 1) break;
    end--;
  }
  return end;
}

/** Whether cells [0, end) are each one UTF-16 unit of width 1 (no wide, combined or astral cell). */
export function plainCells(data: Uint32Array, end: number): boolean {
  for (let x = 0; x < end; x++) {
    const content = data[x * 3]!;
    if ((content & (CODEPOINT_MASK | IS_COMBINED)) >= 0xd800 || content >>> WIDTH_SHIFT !== 1) return false;
  }
  return true;
}

/** Write the units of plain cells [0, end) into out from `at` (an empty cell is a space). */
export function copyPlainUnits(data: Uint32Array, end: number, out: Uint16Array, at: number): void {
  for (let x = 0; x < end; x++) {
    const cp = data[x * 3]! & CODEPOINT_MASK;
    out[at + x] = cp === 0 ? 0x20 : cp;
  }
}

/**
 * Encode a line straight from xterm's cell words (3 per cell: content, fg, bg): for a line leaving
 * xterm's scrollback that HistoryStore.pushWords does not take (wide, combined or astral cells).
 * `attrAt(x)` gives the packed attr of a cell whose attribute words are not the defaults; it is asked
 * once per change of words.
 */
export function compactWords(data: Uint32Array, combined: Record<number, string>, cols: number, wrapped: boolean, attrAt: (x: number) => number): CompactLine {
  const end = trimmedEnd(data, cols);
  // the common line: one UTF-16 unit of width 1 per cell, turned into a string in one call
  const simple = plainCells(data, end);
  if (simple) {
    if (codes.length < end) codes = new Uint16Array(Math.max(end, codes.length * 2));
    copyPlainUnits(data, end, codes, 0);
  }
  const runs = attrRuns(data, end, attrAt);
  if (simple) return { text: Buffer.from(codes.buffer, 0, end * 2).toString('utf16le'), layout: null, runs, wrapped };
  const chars: string[] = [];
  const layout = new Uint16Array(end * 2);
  let offset = 0;
  for (let x = 0; x < end; x++) {
    const content = data[x * 3]!;
    const width = content >>> WIDTH_SHIFT;
    let ch: string;
    if (content & IS_COMBINED) ch = combined[x] ?? ' ';
    else {
      const cp = content & CODEPOINT_MASK;
      ch = cp === 0 ? (width === 0 ? '' : ' ') : String.fromCodePoint(cp);
    }
    chars.push(ch);
    offset += ch.length;
    layout[x * 2] = offset;
    layout[x * 2 + 1] = width;
  }
  return { text: chars.join(''), layout, runs, wrapped };
}

// reused between lines: the UTF-16 units of a simple line
let codes = new Uint16Array(256);

/** The runs collectAttrRuns found last (pairs: first cell, attr), valid up to the count it returned. */
export let attrRunWords = new Uint32Array(64);

/**
 * Collect the attr runs of cells [0, end) from their fg/bg words into attrRunWords, without
 * allocating (the array grows only for a line with more runs than any before); returns how many
 * words it wrote, 0 when every cell has the default attr.
 */
export function collectAttrRuns(data: Uint32Array, end: number, attrAt: (x: number) => number): number {
  let count = 0;
  let attr = ATTR_DEFAULT;
  let lastFg = 0;
  let lastBg = 0;
  for (let x = 0; x < end; x++) {
    const fg = data[x * 3 + 1]!;
    const bg = data[x * 3 + 2]!;
    if (fg === lastFg && bg === lastBg) continue;
    lastFg = fg;
    lastBg = bg;
    const next = fg === 0 && bg === 0 ? ATTR_DEFAULT : attrAt(x);
    if (next === attr) continue;
    attr = next;
    if (count + 2 > attrRunWords.length) {
      const more = new Uint32Array(attrRunWords.length * 2);
      more.set(attrRunWords);
      attrRunWords = more;
    }
    attrRunWords[count++] = x;
    attrRunWords[count++] = attr;
  }
  return count;
}

/** The attr runs of cells [0, end) from their fg/bg words; null when all are the defaults. */
function attrRuns(data: Uint32Array, end: number, attrAt: (x: number) => number): Uint32Array | null {
  const count = collectAttrRuns(data, end, attrAt);
  return count === 0 ? null : attrRunWords.slice(0, count);
}

/** Fill out[0, cols) from a compact line (blank cells past its end), reusing out's Cell objects. */
export function expandLine(line: CompactLine | undefined, cols: number, out: Cell[]): number {
  const cells = line ? (line.layout ? line.layout.length / 2 : line.text.length) : 0;
  let run = 0;
  let attr = ATTR_DEFAULT;
  let start = 0;
  for (let x = 0; x < cols; x++) {
    let target = out[x];
    if (!target) {
      target = { ...BLANK };
      out[x] = target;
    }
    if (!line || x >= cells) {
      target.ch = ' ';
      target.width = 1;
      target.attr = ATTR_DEFAULT;
      continue;
    }
    const runs = line.runs;
    while (runs && run < runs.length && runs[run]! <= x) {
      attr = runs[run + 1]!;
      run += 2;
    }
    if (line.layout) {
      const end = line.layout[x * 2]!;
      target.ch = line.text.slice(start, end);
      target.width = line.layout[x * 2 + 1]! as 0 | 1 | 2;
      start = end;
    } else {
      target.ch = line.text[x]!;
      target.width = 1;
    }
    target.attr = attr;
  }
  out.length = cols;
  return cols;
}

/** The text of a compact line (what snapshotText shows), right-trimmed. */
export function lineText(line: CompactLine): string {
  return line.text.replace(/ +$/, '');
}
