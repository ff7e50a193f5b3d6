/**
 * The words a Claude Code member's pane title and roster line show after its activity: a spent
 * budget, then its tokens and cost from its activity record ("idle (budget spent) · 28.6k tok ·
 * $0.11"). Pure. In a narrow roster line the separators go first, then the state is shortened (to
 * no less than 12 columns), then the word "tok", then the tokens, so the cost stays readable.
 */
import { formatTokens, formatUsd } from '../protocol/pricing.js';
import type { ClaudeActivity } from '../store/claude.js';
import { fit, textWidth } from './text.js';

/**
 * The usage forms, widest first, each with the columns the state must keep for it to be used (the
 * full form only when the state fits whole).
 */
const FORMS: ReadonlyArray<{ keep: number; tail: (tok: string | null, usd: string | null) => string }> = [
  { keep: Number.POSITIVE_INFINITY, tail: (tok, usd) => (tok ? ` · ${tok} tok` : '') + (usd ? ` · ${usd}` : '') },
  { keep: 12, tail: (tok, usd) => (tok ? ` ${tok} tok` : '') + (usd ? ` ${usd}` : '') },
  { keep: 8, tail: (tok, usd) => (tok ? ` ${tok}` : '') + (usd ? ` ${usd}` : '') },
  { keep: 6, tail: (_tok, usd) => (usd ? ` ${usd}` : '') },
];

/** `label` with the budget note, tokens and cost of `a`, at most `width` columns. */
export function claudeUsageLabel(label: string, a: ClaudeActivity | undefined, width = Number.POSITIVE_INFINITY): string {
  const head = a?.budget ? `${label} (budget spent)` : label;
  const tok = a?.tokens ? formatTokens(a.tokens.input + a.tokens.output) : null;
  const usd = a && a.costUsd !== null ? formatUsd(a.costUsd) : null;
  for (const form of FORMS) {
    const tail = form.tail(tok, usd);
    const room = width - textWidth(tail);
    if (room >= Math.min(textWidth(head), form.keep)) return fit(head, room) + tail;
  }
  return fit(head, width);
}
