/**
 * HistoryStore: the compact history of one pane, packed in blocks of BLOCK_LINES lines. A line is
 * not an object of its own: a block holds the texts of its lines joined into one string with their
 * end offsets (the wrap flag in the offset's top bit), and, only for the lines that have them, their
 * attr runs and wide-character layout concatenated into one typed array each with end offsets. A
 * 5,000-line history of short lines is then a few strings and typed arrays instead of 5,000 objects,
 * strings and arrays (~80 bytes a line before any text). The newest block is open: its texts are
 * copied as UTF-16 units into one growing array until it fills, then made one string, so no string
 * per line lives long enough to be left behind as old garbage. The store is a ring of at most `capacity` lines,
 * oldest first; the oldest block is dropped once all its lines are older than that.
 */

import type { CompactLine } from './history.js';

/** Lines a block holds. */
export const BLOCK_LINES = 256;

const WRAPPED = 0x80000000;
const OFFSET = 0x7fffffff;

/** Lines packed together; sealed blocks hold exactly BLOCK_LINES. */
interface Block {
  /** The lines' texts, joined (sealed), or their UTF-16 units so far (open). */
  text: string;
  units: Uint16Array | null;
  lines: number;
  /** Per line: end offset of its text in `text` (or in `units`, open), the wrap flag in the top bit. */
  ends: Uint32Array;
  /** Attr runs of all lines, concatenated, and per line the end of its runs there (null: no line has runs). */
  runs: Uint32Array | null;
  runEnds: Uint32Array | null;
  runCount: number;
  /** Cell layouts of all lines, concatenated, and per line the end of its layout (null: no line has one). */
  layout: Uint16Array | null;
  layoutEnds: Uint32Array | null;
  layoutCount: number;
}

function openBlock(): Block {
  return { text: '', units: new Uint16Array(1024), lines: 0, ends: new Uint32Array(BLOCK_LINES), runs: null, runEnds: null, runCount: 0, layout: null, layoutEnds: null, layoutCount: 0 };
}

/** A copy of `array` with room for at least `need` entries. */
function grown<T extends Uint32Array | Uint16Array>(array: T | null, need: number, make: (n: number) => T): T {
  if (array && array.length >= need) return array;
  const next = make(Math.max(need, 64, (array?.length ?? 0) * 2));
  if (array) next.set(array);
  return next;
}

/** The text of units [from, to) of an open block (one-byte when it can be: V8 checks). */
function unitsText(units: Uint16Array, from: number, to: number): string {
  return Buffer.from(units.buffer, units.byteOffset + from * 2, (to - from) * 2).toString('utf16le');
}

/** Make an open block's text one string and trim its arrays to what they hold. */
function seal(block: Block): void {
  const end = block.lines === 0 ? 0 : block.ends[block.lines - 1]! & OFFSET;
  block.text = unitsText(block.units!, 0, end);
  block.units = null;
  if (block.runs) block.runs = block.runs.slice(0, block.runCount);
  if (block.layout) block.layout = block.layout.slice(0, block.layoutCount);
}

/** A ring of at most `capacity` compact lines, oldest first, packed in blocks. */
export class HistoryStore {
  private blocks: Block[] = [];
  // lines of the first block already dropped, and lines held
  private head = 0;
  private count = 0;
  /** Lines ever added (also those since dropped): a position that only grows. */
  added = 0;

  constructor(readonly capacity: number) {}

  /** Lines held. */
  get length(): number {
    return this.count;
  }

  /** Add a line at the newest end, dropping the oldest when full. */
  push(line: CompactLine): void {
    this.added++;
    if (this.capacity <= 0) return;
    let block = this.blocks[this.blocks.length - 1];
    if (!block || block.lines === BLOCK_LINES) {
      if (block) seal(block);
      block = openBlock();
      this.blocks.push(block);
    }
    const i = block.lines++;
    const text = line.text;
    const from = i === 0 ? 0 : block.ends[i - 1]! & OFFSET;
    let units = block.units!;
    if (units.length < from + text.length) {
      const more = new Uint16Array(Math.max(from + text.length, units.length * 2));
      more.set(units.subarray(0, from));
      block.units = units = more;
    }
    for (let k = 0; k < text.length; k++) units[from + k] = text.charCodeAt(k);
    block.ends[i] = (from + text.length) | (line.wrapped ? WRAPPED : 0);
    if (line.runs || block.runEnds) {
      const runs = line.runs ?? EMPTY;
      block.runs = grown(block.runs, block.runCount + runs.length, (n) => new Uint32Array(n));
      block.runs.set(runs, block.runCount);
      block.runCount += runs.length;
      block.runEnds ??= new Uint32Array(BLOCK_LINES);
      block.runEnds[i] = block.runCount;
    }
    if (line.layout || block.layoutEnds) {
      const layout = line.layout ?? EMPTY16;
      block.layout = grown(block.layout, block.layoutCount + layout.length, (n) => new Uint16Array(n));
      block.layout.set(layout, block.layoutCount);
      block.layoutCount += layout.length;
      block.layoutEnds ??= new Uint32Array(BLOCK_LINES);
      block.layoutEnds[i] = block.layoutCount;
    }
    if (this.count < this.capacity) {
      this.count++;
      return;
    }
    // full: the oldest line goes, and with it the first block once all of its lines have
    if (++this.head === BLOCK_LINES) {
      this.blocks.shift();
      this.head = 0;
    }
  }

  /** Line i, 0 being the oldest held: a view into its block (the typed arrays are shared, not copies). */
  get(i: number): CompactLine | undefined {
    if (i < 0 || i >= this.count) return undefined;
    const at = this.head + i;
    const block = this.blocks[Math.floor(at / BLOCK_LINES)]!;
    const j = at % BLOCK_LINES;
    const wrapped = (block.ends[j]! & WRAPPED) !== 0;
    const from = j === 0 ? 0 : block.ends[j - 1]! & OFFSET;
    const to = block.ends[j]! & OFFSET;
    const text = block.units ? unitsText(block.units, from, to) : block.text.slice(from, to);
    return { text, wrapped, runs: part(block.runs, block.runEnds, j), layout: part(block.layout, block.layoutEnds, j) };
  }

  /** Forget every line (ED 3, RIS). */
  clear(): void {
    this.blocks = [];
    this.head = 0;
    this.count = 0;
  }
}

const EMPTY = new Uint32Array(0);
const EMPTY16 = new Uint16Array(0);

/** Line j's entries of a concatenated array, or null when it has none. */
function part<T extends Uint32Array | Uint16Array>(all: T | null, ends: Uint32Array | null, j: number): T | null {
  if (!all || !ends) return null;
  const from = j === 0 ? 0 : ends[j - 1]!;
  const to = ends[j]!;
  return to > from ? (all.subarray(from, to) as T) : null;
}
