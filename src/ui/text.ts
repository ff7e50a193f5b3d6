/**
 * Text measuring and styling for the chrome (sidebar, titles, status line): display width and
 * truncation through the one width function the pane emulators use (vt/width.ts), so a 🙂 in a
 * title takes the cells it takes in a pane, and packed attributes in the same layout the pane
 * cells use.
 */
import { ATTR_DEFAULT_COLOR, FLAG_BOLD, FLAG_DIM, FLAG_INVERSE, FLAG_UNDERLINE, packAttr } from '../vt/attr.js';
import { cellsOf, textWidth as cellTextWidth } from '../vt/width.js';

/** A run of text in one style. */
export interface Segment {
  text: string;
  attr: number;
}

/** One row of chrome. */
export type Row = Segment[];

/** Columns a string takes (vt/width.ts). */
export function textWidth(s: string): number {
  return cellTextWidth(s);
}

/**
 * How many code units past four a column fit looks at: a cell is at least one code unit (two for
 * most wide ones), so a string longer than `4 * width + FIT_SLACK` cannot be shown whole, and only
 * that much of it is measured (a 10 MB subject costs what a short one does).
 */
const FIT_SLACK = 64;

/** Cut a string to at most `width` columns, marking the cut with an ellipsis; clusters stay whole. */
export function fit(s: string, width: number): string {
  if (width <= 0) return '';
  const head = shownPart(s, width);
  if (head === s && textWidth(s) <= width) return s;
  let out = '';
  let w = 0;
  for (const cell of cellsOf(head)) {
    if (w + cell.width > width - 1) break;
    out += cell.ch;
    w += cell.width;
  }
  return out + '…';
}

/** The part of `s` that fit(s, width) can show: transform only this much of a long text before fitting it. */
export function shownPart(s: string, width: number): string {
  const look = 4 * Math.max(0, width) + FIT_SLACK;
  return s.length > look ? s.slice(0, look) : s;
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
