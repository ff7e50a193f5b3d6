/**
 * Reading a request's text on screen: a small Markdown renderer (headings, bullet and numbered lists,
 * fenced code blocks, `inline code`) to rows of styled text wrapped to a width, and the escaping that
 * shows control characters as visible text (ESC as \e) so a member's text can never drive the
 * person's terminal. Pure functions of (text, width).
 */
import { escapeControls, inlineSpans, markdownBlocks } from '../protocol/markdown.js';
import { C, style, textWidth, type Row } from './text.js';
import { cellsOf } from '../vt/width.js';

export { escapeControls };

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

/** A line as styled segments: plain text in `attr`, `code` in the code colour. */
function inline(text: string, attr: number): Row {
  return inlineSpans(text).map((p) => ({ text: p.text, attr: p.code ? CODE : attr }));
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
  for (const b of markdownBlocks(source)) {
    switch (b.kind) {
      case 'code':
        for (const piece of wrap(b.text, width - 2)) rows.push([{ text: ` ${piece}`.padEnd(width), attr: CODE }]);
        break;
      case 'heading':
        for (const l of wrap(b.text, width)) rows.push([{ text: l, attr: HEADING[b.level - 1]! }]);
        break;
      case 'item': {
        const pad = '  '.repeat(b.depth);
        const head = `${pad}${b.marker} `;
        rows.push(...wrapStyled([{ text: pad, attr: PLAIN }, { text: `${b.marker} `, attr: BULLET }], b.text, PLAIN, width, ' '.repeat(textWidth(head))));
        break;
      }
      case 'blank':
        rows.push([]);
        break;
      case 'text':
        rows.push(...wrapStyled([], b.text, PLAIN, width, ''));
        break;
    }
  }
  return rows;
}
