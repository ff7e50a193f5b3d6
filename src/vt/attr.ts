/**
 * The packed cell attribute shared by the vt model and the blessed screen: one integer per cell,
 * `(flags << 18) | (fg << 9) | bg`, the layout blessed keeps in `screen.lines[y][x][0]`. fg and bg
 * are xterm-256 palette indexes, or ATTR_DEFAULT_COLOR for the terminal's own colour. This file
 * owns the layout and the flag bits; nothing here knows about xterm or blessed objects.
 */

/** Flag bits (shifted by 18 in a packed attr). The first five are blessed's own. */
export const FLAG_BOLD = 1;
export const FLAG_UNDERLINE = 2;
export const FLAG_BLINK = 4;
export const FLAG_INVERSE = 8;
export const FLAG_INVISIBLE = 16;
export const FLAG_ITALIC = 32;
export const FLAG_DIM = 64;

/** The colour value meaning "the terminal's default fg/bg". */
export const ATTR_DEFAULT_COLOR = 0x1ff;

/** Default colours, no flags: blessed's `screen.dattr`. */
export const ATTR_DEFAULT = (ATTR_DEFAULT_COLOR << 9) | ATTR_DEFAULT_COLOR;

/** Pack flags and colours into one attr. */
export function packAttr(flags: number, fg: number, bg: number): number {
  return (flags << 18) | ((fg & 0x1ff) << 9) | (bg & 0x1ff);
}

/** The flag bits of a packed attr. */
export function attrFlags(attr: number): number {
  return (attr >> 18) & 0x1ff;
}

/** The foreground of a packed attr (palette index or ATTR_DEFAULT_COLOR). */
export function attrFg(attr: number): number {
  return (attr >> 9) & 0x1ff;
}

/** The background of a packed attr (palette index or ATTR_DEFAULT_COLOR). */
export function attrBg(attr: number): number {
  return attr & 0x1ff;
}
