/**
 * A request's text as HTML: the same blocks the terminal reader shows (protocol/markdown.ts), each
 * rendered as an element, every piece of text escaped. Pure.
 */
import { inlineSpans, markdownBlocks, type MarkdownBlock } from '../protocol/markdown.js';
import { html, type Html } from './html.js';

function inline(text: string): Html {
  return html`${inlineSpans(text).map((s) => (s.code ? html`<code>${s.text}</code>` : html`${s.text}`))}`;
}

/** Render Markdown-ish text to HTML: headings, lists (flat, indented by depth), code, paragraphs. */
export function markdownHtml(source: string): Html {
  const out: Html[] = [];
  let code: string[] | null = null;
  const flush = (): void => {
    if (code) out.push(html`<pre class="code">${code.join('\n')}</pre>`);
    code = null;
  };
  for (const b of markdownBlocks(source) as MarkdownBlock[]) {
    if (b.kind === 'code') {
      (code ??= []).push(b.text);
      continue;
    }
    flush();
    if (b.kind === 'heading') out.push(b.level === 1 ? html`<h3>${inline(b.text)}</h3>` : b.level === 2 ? html`<h4>${inline(b.text)}</h4>` : html`<h5>${inline(b.text)}</h5>`);
    else if (b.kind === 'item') out.push(html`<div class="li d${b.depth}"><span class="mk">${b.marker}</span> ${inline(b.text)}</div>`);
    else if (b.kind === 'text') out.push(html`<p>${inline(b.text)}</p>`);
  }
  flush();
  return html`<div class="md">${out}</div>`;
}
