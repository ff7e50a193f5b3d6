/**
 * The request reader: a bordered, scrollable box showing one request in full (its header, then its
 * body rendered as Markdown with control characters escaped). Pure: (request, scroll, size) → rows;
 * the multiplexer owns the scroll position and routes keys here while the reader is open.
 */
import { clampScroll } from '../mux/state.js';
import type { ProtocolRequest } from '../protocol/types.js';
import { escapeControls, renderMarkdown } from './markdown.js';
import { C, fit, style, textWidth, type Row } from './text.js';

const BOX = style(C.cyan, C.default);
const DIM = style(C.default, C.default, { dim: true });

/** The header and body rows of a request at a text width. */
export function requestRows(r: ProtocolRequest, width: number): Row[] {
  const kind = r.type === 'plan_approval' ? 'plan' : 'shutdown request';
  const head: Row[] = [
    [{ text: fit(escapeControls(`${kind} from ${r.from} to ${r.to} · ${r.status}`), width), attr: style(C.default, C.default, { bold: true }) }],
    [{ text: fit(`${r.id} · opened ${r.createdAt.replace('T', ' ').slice(0, 19)}`, width), attr: DIM }],
  ];
  if (r.response) head.push([{ text: fit(escapeControls(`answered by ${r.response.by}: ${r.response.approve ? 'approved' : 'rejected'}${r.response.text ? ` — ${r.response.text}` : ''}`), width), attr: DIM }]);
  head.push([{ text: '─'.repeat(width), attr: DIM }]);
  return [...head, ...renderMarkdown(r.body || '(no text)', width)];
}


/** How many rows a request's text takes in a reader box `width` cells wide (what the reducer scrolls within). */
export function readerTextRows(r: ProtocolRequest, width: number): number {
  return requestRows(r, Math.max(1, width - 4)).length;
}

/** The reader box, `width` x `height` cells, scrolled to `top` (clamped); the hint goes in the bottom border. */
export function readerBox(r: ProtocolRequest, top: number, width: number, height: number, hint: string): { rows: Row[]; top: number; total: number } {
  const inner = Math.max(1, width - 4);
  const body = requestRows(r, inner);
  const visible = Math.max(1, height - 2);
  const at = clampScroll(top, body.length, visible);
  const title = fit(` ${r.id} `, Math.max(0, width - 4));
  const rows: Row[] = [[{ text: '┌─', attr: BOX }, { text: title, attr: style(C.black, C.cyan, { bold: true }) }, { text: '─'.repeat(Math.max(0, width - 3 - textWidth(title))) + '┐', attr: BOX }]];
  for (let i = 0; i < visible; i++) {
    const line = body[at + i] ?? [];
    const used = line.reduce((w, s) => w + textWidth(s.text), 0);
    rows.push([{ text: '│ ', attr: BOX }, ...line, { text: ' '.repeat(Math.max(0, inner - used)), attr: style() }, { text: ' │', attr: BOX }]);
  }
  const more = body.length > visible ? ` ${at + 1}-${Math.min(body.length, at + visible)}/${body.length} ` : '';
  const foot = fit(` ${hint} ${more}`, Math.max(0, width - 3));
  rows.push([{ text: '└─', attr: BOX }, { text: foot, attr: DIM }, { text: '─'.repeat(Math.max(0, width - 3 - textWidth(foot))) + '┘', attr: BOX }]);
  return { rows: rows.slice(0, height), top: at, total: body.length };
}
