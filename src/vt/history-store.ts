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

import { attrRunWords, collectAttrRuns, copyPlainUnits, plainCells, trimmedEnd, type CompactLine } from './history.js';


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

/**
 * The open block's arrays, kept by the store and handed to each block it opens: a block sealed gets
 * exact copies, so a pane printing megabytes fills the same few arrays again and again instead of
 * growing new ones for every 256 lines (memory outside the heap that glibc is slow to give back).
 */
interface Scratch {
  units: Uint16Array;
  ends: Uint32Array;
  runs: Uint32Array;
  runEnds: Uint32Array;
  layout: Uint16Array;
  layoutEnds: Uint32Array;
}

function newScratch(): Scratch {
  const ends = () => new Uint32Array(BLOCK_LINES);
  return { units: new Uint16Array(1024), ends: ends(), runs: new Uint32Array(64), runEnds: ends(), layout: new Uint16Array(64), layoutEnds: ends() };
}

function openBlock(scratch: Scratch): Block {
  return { text: '', units: scratch.units, lines: 0, ends: scratch.ends, runs: null, runEnds: null, runCount: 0, layout: null, layoutEnds: null, layoutCount: 0 };
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

/** The open block's units, grown (in the scratch too) to hold at least `need`. */
function unitsFor(block: Block, scratch: Scratch, need: number): Uint16Array {
  const units = block.units!;
  if (units.length >= need) return units;
  const more = new Uint16Array(Math.max(need, units.length * 2));
  more.set(units);
  block.units = scratch.units = more;
  return more;
}

/** The open block's runs (taken from the scratch on first use), with room for `more` entries. */
function runsFor(block: Block, scratch: Scratch, more: number): Uint32Array {
  block.runs = scratch.runs = grown(block.runs ?? scratch.runs, block.runCount + more, (n) => new Uint32Array(n));
  return block.runs;
}

/** The open block's run ends, taken from the scratch on first use: the lines before have none. */
function runEndsOf(block: Block, scratch: Scratch, line: number): Uint32Array {
  if (!block.runEnds) block.runEnds = scratch.runEnds.fill(0, 0, line);
  return block.runEnds;
}

/** Make an open block's text one string and its arrays copies of what they hold (the scratch stays). */
function seal(block: Block): void {
  const end = block.lines === 0 ? 0 : block.ends[block.lines - 1]! & OFFSET;
  block.text = unitsText(block.units!, 0, end);
  block.units = null;
  block.ends = block.ends.slice(0, block.lines);
  if (block.runs) block.runs = block.runs.slice(0, block.runCount);
  if (block.runEnds) block.runEnds = block.runEnds.slice(0, block.lines);
  if (block.layout) block.layout = block.layout.slice(0, block.layoutCount);
  if (block.layoutEnds) block.layoutEnds = block.layoutEnds.slice(0, block.lines);
}

/** A ring of at most `capacity` compact lines, oldest first, packed in blocks. */
export class HistoryStore {
  private blocks: Block[] = [];
  private readonly scratch = newScratch();
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
    const block = this.openLine();
    const i = block.lines - 1;
    const text = line.text;
    const from = i === 0 ? 0 : block.ends[i - 1]! & OFFSET;
    const units = unitsFor(block, this.scratch, from + text.length);
    for (let k = 0; k < text.length; k++) units[from + k] = text.charCodeAt(k);
    block.ends[i] = (from + text.length) | (line.wrapped ? WRAPPED : 0);
    if (line.runs || block.runEnds) {
      const runs = line.runs ?? EMPTY;
      runsFor(block, this.scratch, runs.length).set(runs, block.runCount);
      block.runCount += runs.length;
      runEndsOf(block, this.scratch, i)[i] = block.runCount;
    }
    this.pushLayout(block, i, line.layout);
    this.dropOldest();
  }

  /**
   * Add a line straight from xterm's cell words (3 per cell: content, fg, bg; see compactWords),
   * writing its units and attr runs into the open block without making an object, a string or an
   * array for it: a pane printing megabytes moves every line through here, and per-line garbage
   * there was most of the screen's allocation (and its scavenges) while it did. Returns false, and
   * adds nothing, for a line with a wide, combined or astral cell: those go through compactWords and
   * push. `attrAt(x)` gives the packed attr of cell x, asked once per change of attribute words.
   */
  pushWords(data: Uint32Array, cols: number, wrapped: boolean, attrAt: (x: number) => number): boolean {
    const end = trimmedEnd(data, cols);
    if (!plainCells(data, end)) return false;
    this.added++;
    if (this.capacity <= 0) return true;
    const block = this.openLine();
    const i = block.lines - 1;
    const from = i === 0 ? 0 : block.ends[i - 1]! & OFFSET;
    copyPlainUnits(data, end, unitsFor(block, this.scratch, from + end), from);
    block.ends[i] = (from + end) | (wrapped ? WRAPPED : 0);
    // the runs, copied where the block keeps them; a line without any adds none
    const count = collectAttrRuns(data, end, attrAt);
    if (count > 0) {
      const runs = runsFor(block, this.scratch, count);
      for (let k = 0; k < count; k++) runs[block.runCount + k] = attrRunWords[k]!;
      block.runCount += count;
    }
    if (count > 0 || block.runEnds) runEndsOf(block, this.scratch, i)[i] = block.runCount;
    this.pushLayout(block, i, null);
    this.dropOldest();
    return true;
  }

  /** The open block with one more line in it (sealing a full one and opening the next). */
  private openLine(): Block {
    let block = this.blocks[this.blocks.length - 1];
    if (!block || block.lines === BLOCK_LINES) {
      if (block) seal(block);
      block = openBlock(this.scratch);
      this.blocks.push(block);
    }
    block.lines++;
    return block;
  }

  /** Line i's layout (none: an empty one, once some line of the block has one). */
  private pushLayout(block: Block, i: number, layout: Uint16Array | null): void {
    if (layout || block.layoutEnds) {
      const entries = layout ?? EMPTY16;
      block.layout = this.scratch.layout = grown(block.layout ?? this.scratch.layout, block.layoutCount + entries.length, (n) => new Uint16Array(n));
      block.layout.set(entries, block.layoutCount);
      block.layoutCount += entries.length;
      if (!block.layoutEnds) block.layoutEnds = this.scratch.layoutEnds.fill(0, 0, i);
      block.layoutEnds[i] = block.layoutCount;
    }
  }

  /** Count the line just added; when full, the oldest line goes, and its block once all of its lines have. */
  private dropOldest(): void {
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
