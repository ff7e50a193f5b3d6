/**
 * HTML built so that team data can only ever be text: `html` is a tagged template whose
 * interpolations are escaped unless they are already `Html` (made by `html` itself or by `raw`, which
 * only this folder's renderers call with markup they wrote). Team data is hostile (docs/protocol.md
 * §12): a subject `<img src=x onerror=…>` or `</script>` renders as the characters it is. Control
 * characters are made visible (ESC as \e) before escaping, as every other teamux view does.
 */
import { visible } from '../protocol/visible.js';

/** Markup that is safe to put in a page as it is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text as HTML text or attribute value: control characters visible, the five specials (and `) escaped. */
export function esc(text: string): string {
  return visible(text, { lines: true }).replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);
}

/** What may be interpolated: escaped unless already Html; arrays are joined; null/undefined/false are nothing. */
type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return esc(String(part));
}

/** A fragment of markup; every interpolated value is escaped unless it is Html. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < parts.length; i++) out += render(parts[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Markup written by this folder's own renderers (never team data). */
export function raw(markup: string): Html {
  return new Html(markup);
}

/** A URL path segment from team data (a request id, a member name): percent-encoded. */
export function seg(text: string): string {
  return encodeURIComponent(text);
}
