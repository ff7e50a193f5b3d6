/**
 * Reading a request's text on screen: a small Markdown renderer (headings, bullet and numbered lists,
 * fenced code blocks, `inline code`) to rows of styled text wrapped to a width, and the escaping that
 * shows control characters as visible text (ESC as \e) so a member's text can never drive the
 * person's terminal. Pure functions of (text, width).
 */
import { visible } from '../protocol/visible.js';
import { C, style, textWidth, type Row } from './text.js';
import { cellsOf } from '../vt/width.js';

/** Show control characters as text the way every teamux view does (protocol/visible.ts: ESC as \e); tabs become spaces. */
export function escapeControls(text: string): string {
  return visible(text.replace(/\t/g, '    '), { lines: true });
}

const PLAIN = style();
const HEADING = [style(C.cyan, C.default, { bold: true, underline: true }), style(C.cyan, C.default, { bold: true }), style(C.default, C.default, { bold: true })];
const CODE = style(C.yellow, 236);
const BULLET = style(C.yellow, C.default, { bold: true });

/** Break one line of text into pieces of at most `width` columns, at spaces where possible. */
export function wrap(text: string, width: number): string[] {
  if (width <= 0) return [];
  const out: string[] = [];
  let line = '';
  let lineWidth = 0;
  for (const word of text.split(/(?<= )/)) {
    const w = textWidth(word);
    if (lineWidth + w > width && line !== '') {
      out.push(line.trimEnd());
      line = '';
      lineWidth = 0;
    }
    if (w > width) {
      // A word longer than the line is cut by columns, between cells (clusters stay whole).
      for (const cell of cellsOf(word)) {
        if (lineWidth + cell.width > width) {
          out.push(line);
          line = '';
          lineWidth = 0;
        }
        line += cell.ch;
        lineWidth += cell.width;
      }
      continue;
    }
    line += word;
    lineWidth += w;
  }
  out.push(line.trimEnd());
  return out;
}

/** Split a line into plain and `code` segments. */
function inline(text: string, attr: number): Row {
  const row: Row = [];
  const parts = text.split(/(`[^`]+`)/);
  for (const p of parts) {
    if (p === '') continue;
    if (p.startsWith('`') && p.endsWith('`') && p.length > 2) row.push({ text: p.slice(1, -1), attr: CODE });
    else row.push({ text: p, attr });
  }
  return row;
}

/** Wrap styled text to width, with `indent` before continuation lines. */
function wrapStyled(first: Row, body: string, attr: number, width: number, indent: string): Row[] {
  const lead = first.reduce((w, s) => w + textWidth(s.text), 0);
  const lines = wrap(body, Math.max(1, width - lead));
  return lines.map((l, i) => [...(i === 0 ? first : [{ text: indent, attr: PLAIN }]), ...inline(l, attr)]);
}

/** Render Markdown-ish text to rows no wider than `width`; control characters arrive escaped. */
export function renderMarkdown(source: string, width: number): Row[] {
  const rows: Row[] = [];
  let fence: string | null = null;
  for (const raw of escapeControls(source.replace(/\r\n?/g, '\n')).split('\n')) {
    const fenceMark = /^\s*(```|~~~)/.exec(raw);
    if (fenceMark) {
      fence = fence === null ? fenceMark[1]! : null;
      continue;
    }
    if (fence !== null) {
      for (const piece of wrap(raw, width - 2)) rows.push([{ text: ` ${piece}`.padEnd(width), attr: CODE }]);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(raw);
    if (heading) {
      const level = Math.min(3, heading[1]!.length) - 1;
      for (const l of wrap(heading[2]!, width)) rows.push([{ text: l, attr: HEADING[level]! }]);
      continue;
    }
    const item = /^(\s*)([-*+]|\d{1,3}[.)])\s+(.*)$/.exec(raw);
    if (item) {
      const depth = Math.min(4, Math.floor(item[1]!.length / 2));
      const marker = /\d/.test(item[2]!) ? item[2]! : '•';
      const pad = '  '.repeat(depth);
      const head = `${pad}${marker} `;
      rows.push(...wrapStyled([{ text: pad, attr: PLAIN }, { text: `${marker} `, attr: BULLET }], item[3]!, PLAIN, width, ' '.repeat(textWidth(head))));
      continue;
    }
    if (raw.trim() === '') {
      rows.push([]);
      continue;
    }
    rows.push(...wrapStyled([], raw, PLAIN, width, ''));
  }
  return rows;
}
