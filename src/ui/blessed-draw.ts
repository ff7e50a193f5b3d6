/**
 * Sending a blessed screen's changed cells to the terminal: the `draw` that patchBlessedScreen
 * puts on blessed's Screen (ui/blessed-attrs.ts). It is a port of blessed 0.1.81's draw that
 * encodes attrs through codeAttr (italic, dim), understands the width-0 placeholder cells ('' text)
 * that follow our wide chars, and places the cursor explicitly after a cell whose width the outer
 * terminal may see differently. It runs once a frame over every dirty row, so its loop is kept
 * tight: a row is scanned only over the spans of columns the painters changed (`dirtySpans`, see
 * ui/surface.ts; the whole row when blessed itself marked it), per-frame facts are read once, and
 * cursor moves are written directly as CSI sequences (the screen is always xterm-256color). A
 * blessed widget drawn into a row our painters marked in the same frame would be missed (teamux
 * draws no widgets). What the terminal shows is kept compactly as ShownRows (ui/shown-cells.ts).
 * The data owned: a cache of the SGR sequence of each attr, per screen, and the sorted spans of the
 * row being drawn.
 */
import { mayDisputeWidth, textWidth } from '../vt/width.js';
import { ShownRow, shownRowOf } from './shown-cells.js';

/** A blessed screen cell: [attr, text]. */
export type BlessedCell = [number, string];
/** A row of blessed screen cells with its dirty mark and the columns changed (ui/surface.ts's GridLine). */
export type BlessedLine = BlessedCell[] & { dirty?: boolean; dirtySpans?: number[] };

/** The parts of blessed's Screen (internal and public) that drawing touches. */
export interface BlessedScreenInternals {
  lines: BlessedLine[];
  /** What the terminal shows (ui/shown-cells.ts); blessed's own paths may put back a row of cells. */
  olines: (ShownRow | BlessedCell[])[];
  dattr: number;
  fullUnicode: boolean;
  options: { useBCE?: boolean };
  cursor: { artificial?: boolean; _hidden?: boolean; _state?: unknown };
  program: { x: number; y: number; cursorHidden?: boolean; _write(text: string): unknown };
  tput: BlessedTput;
  _buf: string;
  codeAttr(code: number): string;
  _reduceColor(color: number): number;
  _cursorAttr(cursor: unknown, data: number): { ch?: string; attr: number };
}

/** The terminfo strings and functions of blessed's tput that drawing uses. */
export interface BlessedTput {
  strings: Record<string, unknown>;
  bools: Record<string, unknown>;
  numbers: Record<string, unknown>;
  acscr: Record<string, string>;
  utoa: Record<string, string>;
  unicode: boolean;
  brokenACS?: boolean;
  cup(y: number, x: number): string;
  cuf(n: number): string;
  el(): string;
  sc(): string;
  rc(): string;
  civis(): string;
  cnorm(): string;
  smacs(): string;
  rmacs(): string;
}

/** Box-drawing chars that a wide char must not eat (blessed's `angles` table). */
const ANGLES = new Set(['\u2518', '\u2510', '\u250c', '\u2514', '\u253c', '\u251c', '\u2524', '\u2534', '\u252c', '\u2502', '\u2500']);

/** CUP: move to row y, column x (0-based). */
function cup(y: number, x: number): string {
  return `\x1b[${y + 1};${x + 1}H`;
}

/** CUF: move right n columns. */
function cuf(n: number): string {
  return n === 1 ? '\x1b[C' : `\x1b[${n}C`;
}

// the SGR sequence of each attr a screen has drawn (codeAttr depends only on the attr and the screen's colours)
const sgrCaches = new WeakMap<object, Map<number, string>>();

function sgrOf(screen: BlessedScreenInternals, cache: Map<number, string>, attr: number): string {
  let sgr = cache.get(attr);
  if (sgr === undefined) {
    sgr = screen.codeAttr(attr);
    if (cache.size < 4096) cache.set(attr, sgr);
  }
  return sgr;
}

/** Whether a cell's text is one character that is surely one column wide (nothing below U+1100 is wide). */
function surelyNarrow(ch: string): boolean {
  return ch.length === 1 && ch.charCodeAt(0) < 0x1100;
}

// the spans of the row being drawn, sorted and merged: from, to, from, to...
const spans: number[] = [];

/** Sort and merge a row's dirty spans into `spans`, clamped to the row; returns how many (0: the whole row). */
function sortedSpans(marked: number[] | undefined, length: number): number {
  spans.length = 0;
  if (!marked || marked.length === 0) return 0;
  for (let i = 0; i + 1 < marked.length; i += 2) {
    const from = Math.max(0, marked[i]!);
    const to = Math.min(length - 1, marked[i + 1]!);
    if (from > to) continue;
    // insertion by start: rows have a few spans (one per pane and chrome)
    let at = spans.length;
    while (at > 0 && spans[at - 2]! > from) at -= 2;
    spans.splice(at, 0, from, to);
  }
  let n = 0;
  for (let i = 0; i < spans.length; i += 2) {
    if (n > 0 && spans[i]! <= spans[n * 2 - 1]! + 1) spans[n * 2 - 1] = Math.max(spans[n * 2 - 1]!, spans[i + 1]!);
    else {
      spans[n * 2] = spans[i]!;
      spans[n * 2 + 1] = spans[i + 1]!;
      n++;
    }
  }
  spans.length = n * 2;
  // an empty list after clamping is still "only these": nothing to scan, drawn as one empty span
  if (n === 0) spans.push(0, -1);
  return Math.max(1, n);
}

/**
 * Write the dirty lines between start and end to the terminal (blessed's Screen.prototype.draw), with
 * the terminal's cursor saved and hidden around them.
 */
export function draw(this: BlessedScreenInternals, start: number, end: number): void {
  let main = '';
  if (this._buf) {
    main += this._buf;
    this._buf = '';
  }
  main += drawnCells(this, start, end);
  if (main) {
    const tput = this.tput;
    let pre = tput.sc();
    let post = tput.rc();
    if (!this.program.cursorHidden) {
      pre += tput.civis();
      post += tput.cnorm();
    }
    this.program._write(pre + main + post);
  }
}

/**
 * What to send the terminal for the dirty lines between start and end ('' when none changed), each
 * row placed with an absolute cursor move, where the terminal's cursor is left is not said; the rows
 * are marked drawn. '' cells are the right half of the wide char before them: never printed, never
 * moving the cursor.
 */
export function drawnCells(screen: BlessedScreenInternals, start: number, end: number): string {
  return drawCellsOf.call(screen, start, end);
}

function drawCellsOf(this: BlessedScreenInternals, start: number, end: number): string {
  const tput = this.tput;
  let main = '';
  let acs = false;
  let cache = sgrCaches.get(this);
  if (!cache) {
    cache = new Map();
    sgrCaches.set(this, cache);
  }
  const dattr = this.dattr;
  // blessed's artificial cursor is drawn into its row, which is then always redrawn whole
  const cursorRow = this.cursor.artificial && !this.cursor._hidden && this.cursor._state ? this.program.y : -1;
  const cursorCol = this.program.x;
  const bce = this.options.useBCE === true;
  const bceAnyColour = Boolean(tput.bools.back_color_erase);
  const alternateCharset = Boolean(tput.strings.enter_alt_charset_mode) && !tput.brokenACS;
  const asciiOnly = !tput.unicode && tput.numbers.U8 !== 1;
  const fullUnicode = this.fullUnicode;

  for (let y = start; y <= end; y++) {
    const line = this.lines[y];
    if (!line || !this.olines[y]) continue;
    if (!line.dirty && y !== cursorRow) continue;
    let shown = this.olines[y]!;
    if (!(shown instanceof ShownRow) || shown.length !== line.length) {
      shown = shownRowOf(shown instanceof ShownRow ? undefined : shown, line.length);
      this.olines[y] = shown;
    }
    const oa = shown.attrs;
    const ot = shown.texts;
    let spanCount = y === cursorRow ? 0 : sortedSpans(line.dirtySpans, line.length);
    if (spanCount === 0) {
      spans.length = 0;
      spans.push(0, line.length - 1);
      spanCount = 1;
    }
    line.dirty = false;
    if (line.dirtySpans) line.dirtySpans.length = 0;

    let out = '';
    let attr = dattr;
    // lx: where the terminal's cursor was left when we started skipping unchanged cells
    let lx = -1;
    // the last cell written may have moved the terminal's cursor by a width we cannot know
    let unsure = false;
    // where the terminal's cursor is after the last cell written (when not unsure)
    let after = -1;
    const first = spans[0]!;

    row: for (let span = 0; span < spanCount; span++) {
      // the columns before a span are unchanged: skipped like unchanged cells
      if (span > 0 && lx === -1) lx = after;
      const to = spans[span * 2 + 1]!;
      for (let x = spans[span * 2]!; x <= to; x++) {
        const cell = line[x]!;
        let data = cell[0];
        let ch = cell[1];

        if (ch === '') {
          // A wide char's right half: never printed; the cursor did not stop here.
          oa[x] = data;
          ot[x] = '';
          if (lx === -1) lx = x;
          continue;
        }

        if (x === cursorCol && y === cursorRow) {
          const cursorAttr = this._cursorAttr(this.cursor, data);
          if (cursorAttr.ch) ch = cursorAttr.ch;
          data = cursorAttr.attr;
        }

        if (data === oa[x] && ch === ot[x]) {
          if (lx === -1) lx = x;
          continue;
        }

        // Back-colour erase: clear the rest of the line with EL when it is all blank.
        if (bce && ch === ' ' && (bceAnyColour || (data & 0x1ff) === (dattr & 0x1ff)) && ((data >> 18) & 8) === ((dattr >> 18) & 8)) {
          let clear = true;
          for (let xx = x; xx < line.length; xx++) {
            const next = line[xx]!;
            if (next[0] !== data || next[1] !== ' ') {
              clear = false;
              break;
            }
          }
          if (clear) {
            if (data !== attr) {
              if (attr !== dattr) out += '\x1b[m';
              if (data !== dattr) out += sgrOf(this, cache, data);
              attr = data;
            }
            out += cup(y, x) + tput.el();
            oa.fill(data, x, line.length);
            ot.fill(' ', x, line.length);
            break row;
          }
        }

        if (lx !== -1) {
          out += unsure ? cup(y, x) : cuf(x - lx);
          lx = -1;
          unsure = false;
        } else if (unsure) {
          out += cup(y, x);
          unsure = false;
        }
        const text = ch;
        oa[x] = data;
        ot[x] = ch;

        if (data !== attr) {
          if (attr !== dattr) out += '\x1b[m';
          if (data !== dattr) out += sgrOf(this, cache, data);
        }

        const next = line[x + 1];
        if (next && next[1] === '') {
          // Our own wide char: the terminal advances two columns; mark the placeholder as drawn.
          oa[x + 1] = next[0];
          ot[x + 1] = '';
          x++;
        } else if (fullUnicode && !surelyNarrow(ch) && textWidth(ch) === 2) {
          // blessed's own convention: a double-width char eats the cell after it.
          if (x === line.length - 1 || (next && ANGLES.has(next[1]))) {
            ch = ' ';
            ot[x] = '\0';
          } else {
            ot[x] = '\0';
            ot[++x] = '\0';
          }
        }

        if (alternateCharset && (acs || tput.acscr[ch])) {
          const alt = tput.acscr[ch];
          if (alt) {
            ch = acs ? alt : tput.smacs() + alt;
            acs = true;
          } else if (acs) {
            ch = tput.rmacs() + ch;
            acs = false;
          }
        } else if (asciiOnly && ch > '~') {
          ch = tput.utoa[ch] || '?';
        }

        out += ch;
        attr = data;
        after = x + 1;
        if (text.charCodeAt(0) > 0x7e && mayDisputeWidth(text)) unsure = true;
      }
    }

    if (attr !== dattr) out += '\x1b[m';
    if (out) main += cup(y, first) + out;
  }

  if (acs) main += tput.rmacs();
  return main;
}
