/**
 * Text measuring and styling for the chrome (sidebar, titles, status line): display width with
 * East Asian wide characters counted as two columns, truncation to a width, and packed attributes
 * in the same layout the pane cells use.
 */
import { ATTR_DEFAULT_COLOR, FLAG_BOLD, FLAG_DIM, FLAG_INVERSE, FLAG_UNDERLINE, packAttr } from '../vt/attr.js';

/** A run of text in one style. */
export interface Segment {
  text: string;
  attr: number;
}

/** One row of chrome. */
export type Row = Segment[];

const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
const ZERO = /[\u0300-\u036f\u200b-\u200f\ufe00-\ufe0f]/u;

/** Columns a single character takes. */
export function charWidth(ch: string): 0 | 1 | 2 {
  const c = ch.codePointAt(0) ?? 0;
  if (c < 32 || (c >= 0x7f && c < 0xa0)) return 0;
  if (ZERO.test(ch)) return 0;
  return WIDE.test(ch) ? 2 : 1;
}

/** Columns a string takes. */
export function textWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += charWidth(ch);
  return w;
}

/** Cut a string to at most `width` columns, marking the cut with an ellipsis. */
export function fit(s: string, width: number): string {
  if (width <= 0) return '';
  if (textWidth(s) <= width) return s;
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = charWidth(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return out + '…';
}

/** Palette indexes for the chrome. */
export const C = { default: ATTR_DEFAULT_COLOR, black: 0, red: 1, green: 2, yellow: 3, blue: 4, magenta: 5, cyan: 6, white: 7, grey: 8, brightWhite: 15 } as const;

/** A packed attribute. */
export function style(fg: number = C.default, bg: number = C.default, opts: { bold?: boolean; dim?: boolean; inverse?: boolean; underline?: boolean } = {}): number {
  const flags = (opts.bold ? FLAG_BOLD : 0) | (opts.dim ? FLAG_DIM : 0) | (opts.inverse ? FLAG_INVERSE : 0) | (opts.underline ? FLAG_UNDERLINE : 0);
  return packAttr(flags, fg, bg);
}

/** Plain text of a row (for tests). */
export function rowText(row: Row): string {
  return row.map((s) => s.text).join('');
}
