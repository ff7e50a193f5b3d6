/**
 * A patch to blessed's Screen so that the attrs our panes carry reach the real terminal. Stock
 * blessed knows five flags (bold, underline, blink, inverse, invisible); its `draw` inlines the SGR
 * encoding, so italic (flag 32) and dim (flag 64) would be dropped silently. installBlessedAttrs
 * replaces, once per process, Screen.prototype.codeAttr (attr -> SGR), attrCode (SGR -> attr) and
 * draw (a port of blessed 0.1.81's draw that encodes through codeAttr and also understands the
 * width-0 placeholder cells ('' text) that pane-view writes after wide chars). Colours 0..15 go
 * out as 30-37/90-97 (40-47/100-107), 16..255 as `38;5;N`/`48;5;N`. Widths are the emulators'
 * (vt/width.ts), and after a cell whose width the outer terminal may see differently (emoji,
 * symbols, joined clusters) the cursor is placed explicitly, so a disagreement garbles at most that
 * cell, never the rest of the line.
 */

import blessed from 'blessed';
import {
  ATTR_DEFAULT_COLOR,
  FLAG_BLINK,
  FLAG_BOLD,
  FLAG_DIM,
  FLAG_INVERSE,
  FLAG_INVISIBLE,
  FLAG_ITALIC,
  FLAG_UNDERLINE,
} from '../vt/attr.js';
import { nearestPaletteIndex } from '../vt/palette.js';
import { mayDisputeWidth, textWidth } from '../vt/width.js';

/** A blessed screen cell: [attr, text]. */
export type BlessedCell = [number, string];
/** A row of blessed screen cells with its dirty mark. */
export type BlessedLine = BlessedCell[] & { dirty?: boolean };

/** The parts of blessed's Screen (internal and public) that drawing touches. */
export interface BlessedScreenInternals {
  lines: BlessedLine[];
  olines: BlessedCell[][];
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

interface BlessedTput {
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

interface BlessedRuntime {
  screen: { prototype: Record<string, unknown> };
}

const runtime = blessed as unknown as BlessedRuntime;

/** Box-drawing chars that a wide char must not eat (blessed's `angles` table). */
const ANGLES = new Set(['\u2518', '\u2510', '\u250c', '\u2514', '\u253c', '\u251c', '\u2524', '\u2534', '\u252c', '\u2502', '\u2500']);

const PATCHED = Symbol.for('teamux.blessedAttrs');

/** Patch blessed's Screen prototype (idempotent; affects every screen in the process). */
export function installBlessedAttrs(): void {
  const proto = runtime.screen.prototype;
  if (proto[PATCHED as unknown as string]) return;
  Object.defineProperty(proto, PATCHED, { value: true });
  proto.codeAttr = codeAttr;
  proto.attrCode = attrCode;
  proto.draw = draw;
}

function colourCode(colour: number, base: number, brightBase: number, extended: number): string {
  if (colour < 8) return `${base + colour};`;
  if (colour < 16) return `${brightBase + colour - 8};`;
  return `${extended};5;${colour};`;
}

/** Encode a packed attr as one SGR sequence (blessed's codeAttr plus italic, dim). */
export function codeAttr(this: Pick<BlessedScreenInternals, '_reduceColor'>, code: number): string {
  const flags = (code >> 18) & 0x1ff;
  const fg = (code >> 9) & 0x1ff;
  const bg = code & 0x1ff;
  let out = '';
  if (flags & FLAG_BOLD) out += '1;';
  if (flags & FLAG_DIM) out += '2;';
  if (flags & FLAG_ITALIC) out += '3;';
  if (flags & FLAG_UNDERLINE) out += '4;';
  if (flags & FLAG_BLINK) out += '5;';
  if (flags & FLAG_INVERSE) out += '7;';
  if (flags & FLAG_INVISIBLE) out += '8;';
  if (bg !== ATTR_DEFAULT_COLOR) out += colourCode(this._reduceColor(bg), 40, 100, 48);
  if (fg !== ATTR_DEFAULT_COLOR) out += colourCode(this._reduceColor(fg), 30, 90, 38);
  if (out.endsWith(';')) out = out.slice(0, -1);
  return `\x1b[${out}m`;
}

/**
 * Apply an SGR sequence (`\x1b[...m`) to a packed attr: blessed's attrCode plus 2/3/22/23, resets
 * that clear only their own flag, and truecolor reduced the way pane cells are (vt/palette.ts).
 */
export function attrCode(code: string, cur: number, def: number): number {
  let flags = (cur >> 18) & 0x1ff;
  let fg = (cur >> 9) & 0x1ff;
  let bg = cur & 0x1ff;
  const defFlags = (def >> 18) & 0x1ff;
  const defFg = (def >> 9) & 0x1ff;
  const defBg = def & 0x1ff;
  const params = code.slice(2, -1).split(';');
  if (!params[0]) params[0] = '0';
  const at = (i: number): number => Number(params[i]) || 0;

  for (let i = 0; i < params.length; i++) {
    const c = at(i);
    if (c === 38 || c === 48) {
      let colour = -1;
      if (at(i + 1) === 5) {
        colour = at(i + 2);
        i += 2;
      } else if (at(i + 1) === 2) {
        colour = nearestPaletteIndex(at(i + 2), at(i + 3), at(i + 4));
        i += 4;
      }
      if (c === 38) fg = colour === -1 ? defFg : colour;
      else bg = colour === -1 ? defBg : colour;
      continue;
    }
    switch (c) {
      case 0: flags = defFlags; fg = defFg; bg = defBg; break;
      case 1: flags |= FLAG_BOLD; break;
      case 2: flags |= FLAG_DIM; break;
      case 3: flags |= FLAG_ITALIC; break;
      case 4: flags |= FLAG_UNDERLINE; break;
      case 5: flags |= FLAG_BLINK; break;
      case 7: flags |= FLAG_INVERSE; break;
      case 8: flags |= FLAG_INVISIBLE; break;
      case 22: flags &= ~(FLAG_BOLD | FLAG_DIM); break;
      case 23: flags &= ~FLAG_ITALIC; break;
      case 24: flags &= ~FLAG_UNDERLINE; break;
      case 25: flags &= ~FLAG_BLINK; break;
      case 27: flags &= ~FLAG_INVERSE; break;
      case 28: flags &= ~FLAG_INVISIBLE; break;
      case 39: fg = defFg; break;
      case 49: bg = defBg; break;
      default:
        if (c >= 30 && c <= 37) fg = c - 30;
        else if (c >= 40 && c <= 47) bg = c - 40;
        else if (c >= 90 && c <= 97) fg = c - 90 + 8;
        else if (c >= 100 && c <= 107) bg = c - 100 + 8;
        break;
    }
  }
  return (flags << 18) | (fg << 9) | bg;
}

/**
 * Write the dirty lines between start and end to the terminal: a port of blessed 0.1.81's
 * Screen.prototype.draw, with SGR through codeAttr and '' cells treated as the right half of the
 * wide char before them (never printed, never moving the cursor).
 */
export function draw(this: BlessedScreenInternals, start: number, end: number): void {
  const tput = this.tput;
  let main = '';
  let acs = false;
  if (this._buf) {
    main += this._buf;
    this._buf = '';
  }

  for (let y = start; y <= end; y++) {
    const line = this.lines[y];
    const o = this.olines[y];
    if (!line || !o) continue;
    if (!line.dirty && !(this.cursor.artificial && y === this.program.y)) continue;
    line.dirty = false;

    let out = '';
    let attr = this.dattr;
    // lx/ly: where the terminal's cursor was left when we started skipping unchanged cells
    let lx = -1;
    let ly = -1;
    // the last cell written may have moved the terminal's cursor by a width we cannot know
    let unsure = false;

    for (let x = 0; x < line.length; x++) {
      const cell = line[x]!;
      const old = o[x]!;
      let data = cell[0];
      let ch = cell[1];

      if (ch === '') {
        // A wide char's right half: never printed; the cursor did not stop here.
        old[0] = data;
        old[1] = '';
        if (lx === -1) {
          lx = x;
          ly = y;
        }
        continue;
      }

      if (this.cursor.artificial && !this.cursor._hidden && this.cursor._state
          && x === this.program.x && y === this.program.y) {
        const cursorAttr = this._cursorAttr(this.cursor, data);
        if (cursorAttr.ch) ch = cursorAttr.ch;
        data = cursorAttr.attr;
      }

      // Back-colour erase: clear the rest of the line with EL when it is all blank.
      if (this.options.useBCE && ch === ' '
          && (tput.bools.back_color_erase || (data & 0x1ff) === (this.dattr & 0x1ff))
          && ((data >> 18) & 8) === ((this.dattr >> 18) & 8)) {
        let clear = true;
        let changed = false;
        for (let xx = x; xx < line.length; xx++) {
          const next = line[xx]!;
          if (next[0] !== data || next[1] !== ' ') {
            clear = false;
            break;
          }
          if (next[0] !== o[xx]![0] || next[1] !== o[xx]![1]) changed = true;
        }
        if (clear && changed) {
          lx = -1;
          ly = -1;
          unsure = false;
          if (data !== attr) {
            out += this.codeAttr(data);
            attr = data;
          }
          out += tput.cup(y, x) + tput.el();
          for (let xx = x; xx < line.length; xx++) {
            o[xx]![0] = data;
            o[xx]![1] = ' ';
          }
          break;
        }
      }

      if (data === old[0] && ch === old[1]) {
        if (lx === -1) {
          lx = x;
          ly = y;
        }
        continue;
      } else if (lx !== -1) {
        out += tput.strings.parm_right_cursor && y === ly && !unsure ? tput.cuf(x - lx) : tput.cup(y, x);
        lx = -1;
        ly = -1;
        unsure = false;
      } else if (unsure) {
        out += tput.cup(y, x);
        unsure = false;
      }
      const text = ch;
      old[0] = data;
      old[1] = ch;

      if (data !== attr) {
        if (attr !== this.dattr) out += '\x1b[m';
        if (data !== this.dattr) out += this.codeAttr(data);
      }

      const next = line[x + 1];
      if (next && next[1] === '') {
        // Our own wide char: the terminal advances two columns; mark the placeholder as drawn.
        const nextOld = o[x + 1]!;
        nextOld[0] = next[0];
        nextOld[1] = '';
        x++;
      } else if (this.fullUnicode && textWidth(ch) === 2) {
        // blessed's own convention: a double-width char eats the cell after it.
        if (x === line.length - 1 || (next && ANGLES.has(next[1]))) {
          ch = ' ';
          old[1] = '\0';
        } else {
          old[1] = '\0';
          o[++x]![1] = '\0';
        }
      }

      if (tput.strings.enter_alt_charset_mode && !tput.brokenACS && (tput.acscr[ch] || acs)) {
        const alt = tput.acscr[ch];
        if (alt) {
          ch = acs ? alt : tput.smacs() + alt;
          acs = true;
        } else if (acs) {
          ch = tput.rmacs() + ch;
          acs = false;
        }
      } else if (!tput.unicode && tput.numbers.U8 !== 1 && ch > '~') {
        ch = tput.utoa[ch] || '?';
      }

      out += ch;
      attr = data;
      if (text.charCodeAt(0) > 0x7e && mayDisputeWidth(text)) unsure = true;
    }

    if (attr !== this.dattr) out += '\x1b[m';
    if (out) main += tput.cup(y, 0) + out;
  }

  if (acs) main += tput.rmacs();

  if (main) {
    let pre = tput.sc();
    let post = tput.rc();
    if (!this.program.cursorHidden) {
      pre += tput.civis();
      post += tput.cnorm();
    }
    this.program._write(pre + main + post);
  }
}
