/**
 * The one width function. How many cells a character takes, and which code points join the cell
 * before them, is decided here and nowhere else: every pane's emulator uses it as its Unicode
 * provider ('teamux'), and the chrome (sidebar, titles, status line) lays text out with cellsOf,
 * which walks a string exactly as the emulator's print does. The widths are Unicode 11's
 * (@xterm/addon-unicode11) with newer emoji wide, and, as tmux does, a pictograph after a zero-width
 * joiner joins the cluster before it (👨‍👩‍👧 is one cell of width 2). The data owned is one
 * precomputed table of wide emoji above U+1F000 and a cache of pictograph tests.
 */

import unicode11 from '@xterm/addon-unicode11';
import type { IUnicodeVersionProvider } from '@xterm/headless';

/** The version name the emulators select. */
export const UNICODE_VERSION = 'teamux';

const ZWJ = 0x200d;
// provider state bits (xterm's UnicodeCharProperties): state << 3 | width << 1 | shouldJoin
const AFTER_ZWJ = 1;

function pack(state: number, width: number, join: boolean): number {
  return ((state & 0xffffff) << 3) | ((width & 3) << 1) | (join ? 1 : 0);
}
function widthOf(props: number): number {
  return (props >> 1) & 3;
}
function stateOf(props: number): number {
  return props >> 3;
}

/** Unicode 11's wcwidth, taken from the addon's provider through the registration it makes. */
const base: IUnicodeVersionProvider = (() => {
  let captured: IUnicodeVersionProvider | null = null;
  const { Unicode11Addon } = unicode11 as unknown as { Unicode11Addon: new () => { activate(term: unknown): void } };
  new Unicode11Addon().activate({ unicode: { register: (p: IUnicodeVersionProvider) => (captured = p) } });
  if (!captured) throw new Error('@xterm/addon-unicode11 registered no provider');
  return captured;
})();

// Emoji above U+1F000 that later Unicode versions made wide (🫠 U+1FAE0 is 1 in Unicode 11);
// regional indicators stay narrow (East Asian Width N: a flag is two cells of one).
const EMOJI_BASE = 0x1f000;
const REGIONAL_INDICATORS = [0x1f1e6, 0x1f1ff];
const EMOJI_END = 0x1fb00;
// Which of those code points are wide, built the first time one of them is printed (2,816 regular
// expression tests: a few milliseconds no start-up needs to pay).
let emojiWide: Uint8Array | null = null;
function emojiWideTable(): Uint8Array {
  if (emojiWide) return emojiWide;
  const table = new Uint8Array(EMOJI_END - EMOJI_BASE);
  const presentation = /\p{Emoji_Presentation}/u;
  for (let i = 0; i < table.length; i++) {
    const cp = EMOJI_BASE + i;
    const regional = cp >= REGIONAL_INDICATORS[0]! && cp <= REGIONAL_INDICATORS[1]!;
    table[i] = !regional && presentation.test(String.fromCodePoint(cp)) ? 1 : 0;
  }
  return (emojiWide = table);
}

const pictographs = new Map<number, boolean>();
function isPictograph(cp: number): boolean {
  let known = pictographs.get(cp);
  if (known === undefined) {
    known = /\p{Extended_Pictographic}/u.test(String.fromCodePoint(cp));
    if (pictographs.size < 4096) pictographs.set(cp, known);
  }
  return known;
}

/** Cells one code point takes on its own: 0 (joins the cell before), 1 or 2. */
export function codePointWidth(cp: number): 0 | 1 | 2 {
  const w = base.wcwidth(cp);
  if (w === 1 && cp >= EMOJI_BASE && cp < EMOJI_END && emojiWideTable()[cp - EMOJI_BASE] === 1) return 2;
  return w;
}

/** The provider xterm calls for every printed code point (IUnicodeVersionProvider). */
export const teamuxUnicode: IUnicodeVersionProvider = {
  version: UNICODE_VERSION,
  wcwidth: codePointWidth,
  charProperties(cp: number, preceding: number): number {
    let width: number = codePointWidth(cp);
    const before = widthOf(preceding);
    let join = false;
    if (width === 0) {
      // combining marks, variation selectors and joiners extend the cell before, keeping its width
      join = preceding !== 0 && before !== 0;
      if (join) width = before;
    } else if (stateOf(preceding) === AFTER_ZWJ && before !== 0 && isPictograph(cp)) {
      join = true;
      width = before;
    }
    return pack(join && cp === ZWJ ? AFTER_ZWJ : 0, width, join);
  },
};

/** One cell of laid-out text: its characters (a base and what joined it) and its width. */
export interface TextCell {
  ch: string;
  width: 1 | 2;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Whether text is printable ASCII only (every char one cell): the fast path for drawing. */
export function isPlainAscii(text: string): boolean {
  return PRINTABLE_ASCII.test(text);
}

/**
 * Lay text out into cells the way the emulator prints it: joined code points stay in their
 * cell, control characters and a leading zero-width code point take no cell.
 */
export function cellsOf(text: string): TextCell[] {
  const cells: TextCell[] = [];
  if (isPlainAscii(text)) {
    for (const ch of text) cells.push({ ch, width: 1 });
    return cells;
  }
  let props = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
      props = 0;
      continue;
    }
    const next = teamuxUnicode.charProperties(cp, props);
    const width = widthOf(next);
    if (next & 1) {
      const last = cells[cells.length - 1];
      if (last) {
        last.ch += ch;
        last.width = width === 2 ? 2 : last.width;
      }
    } else if (width > 0) {
      cells.push({ ch, width: width === 2 ? 2 : 1 });
    }
    props = width > 0 ? next : 0;
  }
  return cells;
}

/** Columns text takes. */
export function textWidth(text: string): number {
  if (isPlainAscii(text)) return text.length;
  let w = 0;
  for (const cell of cellsOf(text)) w += cell.width;
  return w;
}

/**
 * Whether the outer terminal may give this cell's text a different width than we do: anything
 * but ASCII, Latin and single CJK code points (emoji, symbols, clusters with joined marks). The
 * drawing places the cursor explicitly after such a cell so a disagreement cannot shift the line.
 */
export function mayDisputeWidth(ch: string): boolean {
  const cp = ch.charCodeAt(0);
  if (ch.length === 1) {
    if (cp < 0x300) return false;
    if ((cp >= 0x3040 && cp <= 0x9fff) || (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xff01 && cp <= 0xff60)) return false;
  }
  return ch.length > 0;
}
