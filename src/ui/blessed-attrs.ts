/**
 * A patch to blessed's Screen (its prototype is handed in by ui/screen.ts, the one file that loads blessed) so that the attrs our panes carry reach the real terminal. Stock
 * blessed knows five flags (bold, underline, blink, inverse, invisible); its `draw` inlines the SGR
 * encoding, so italic (flag 32) and dim (flag 64) would be dropped silently. installBlessedAttrs
 * replaces, once per process, Screen.prototype.codeAttr (attr -> SGR), attrCode (SGR -> attr) and
 * draw (ui/blessed-draw.ts: a port of blessed 0.1.81's draw that encodes through codeAttr and also
 * understands the width-0 placeholder cells ('' text) that pane-view writes after wide chars) and
 * alloc (ui/shown-cells.ts: what the terminal shows kept compactly). Colours 0..15 go
 * out as 30-37/90-97 (40-47/100-107), 16..255 as `38;5;N`/`48;5;N`. Widths are the emulators'
 * (vt/width.ts), and after a cell whose width the outer terminal may see differently (emoji,
 * symbols, joined clusters) the cursor is placed explicitly, so a disagreement garbles at most that
 * cell, never the rest of the line.
 */

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

import { draw, type BlessedScreenInternals } from './blessed-draw.js';
import { alloc } from './shown-cells.js';

export type { BlessedCell, BlessedLine, BlessedScreenInternals } from './blessed-draw.js';

const PATCHED = Symbol.for('teamux.blessedAttrs');

/** Patch blessed's Screen prototype (idempotent; affects every screen in the process). */
export function patchBlessedScreen(proto: Record<string, unknown>): void {
  if (proto[PATCHED as unknown as string]) return;
  Object.defineProperty(proto, PATCHED, { value: true });
  proto.codeAttr = codeAttr;
  proto.attrCode = attrCode;
  proto.draw = draw;
  proto.alloc = alloc;
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
