/**
 * The Markdown a request's text is read as, in one place: headings, bullet and numbered lists, fenced
 * code blocks, `inline code`, blank lines and paragraphs. Control characters are made visible first
 * (protocol/visible.ts: ESC as \e, tabs as four spaces), so neither the terminal reader (ui/markdown.ts)
 * nor the web view (web/markdown.ts), which render these blocks, ever sees one. Pure.
 */
import { visible } from './visible.js';

/** One line's worth of Markdown, as both renderers show it. */
export type MarkdownBlock =
  | { kind: 'heading'; level: 1 | 2 | 3; text: string }
  | { kind: 'item'; depth: number; marker: string; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'blank' }
  | { kind: 'text'; text: string };

/** A piece of a line: plain text, or the inside of `inline code`. */
export interface InlineSpan {
  code: boolean;
  text: string;
}

/** Show control characters as text the way every teamux view does (ESC as \e); tabs become spaces. */
export function escapeControls(text: string): string {
  return visible(text.replace(/\t/g, '    '), { lines: true });
}

/** The blocks of a text, one per source line (fence lines themselves are dropped). */
export function markdownBlocks(source: string): MarkdownBlock[] {
  const out: MarkdownBlock[] = [];
  let fence: string | null = null;
  for (const raw of escapeControls(source.replace(/\r\n?/g, '\n')).split('\n')) {
    const fenceMark = /^\s*(```|~~~)/.exec(raw);
    if (fenceMark) {
      fence = fence === null ? fenceMark[1]! : null;
      continue;
    }
    if (fence !== null) {
      out.push({ kind: 'code', text: raw });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(raw);
    if (heading) {
      out.push({ kind: 'heading', level: Math.min(3, heading[1]!.length) as 1 | 2 | 3, text: heading[2]! });
      continue;
    }
    const item = /^(\s*)([-*+]|\d{1,3}[.)])\s+(.*)$/.exec(raw);
    if (item) {
      out.push({ kind: 'item', depth: Math.min(4, Math.floor(item[1]!.length / 2)), marker: /\d/.test(item[2]!) ? item[2]! : '•', text: item[3]! });
      continue;
    }
    out.push(raw.trim() === '' ? { kind: 'blank' } : { kind: 'text', text: raw });
  }
  return out;
}

/** Split a line into plain and `code` spans. */
export function inlineSpans(text: string): InlineSpan[] {
  const out: InlineSpan[] = [];
  for (const p of text.split(/(`[^`]+`)/)) {
    if (p === '') continue;
    if (p.startsWith('`') && p.endsWith('`') && p.length > 2) out.push({ code: true, text: p.slice(1, -1) });
    else out.push({ code: false, text: p });
  }
  return out;
}
