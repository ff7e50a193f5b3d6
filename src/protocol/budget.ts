/**
 * Budgets, pure: a cap in tokens and/or dollars over a rolling window, for the whole team and per
 * member (`budget:` in the layout, kept in team.json). Spend is summed from usage records (one per
 * model call, store/usage.ts) inside the window; a budget is spent when either cap is reached. When
 * it is, teamux's agent stops calling the model until the window moves on.
 */
import { z } from 'zod';

/** A budget as team.json keeps it: caps (null: none) and the window in seconds. */
export const Budget = z.object({
  tokens: z.number().int().positive().nullable().default(null),
  usd: z.number().positive().nullable().default(null),
  windowS: z.number().int().positive(),
});
export type Budget = z.infer<typeof Budget>;

/** A window as the layout writes it: 90s, 30m, 24h, 7d. */
export const WINDOW_PATTERN = /^([1-9][0-9]{0,5})(s|m|h|d)$/;

/** Seconds in a window like "24h", or null when it is not one. */
export function windowSeconds(text: string): number | null {
  const m = WINDOW_PATTERN.exec(text);
  if (!m) return null;
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as 's' | 'm' | 'h' | 'd'];
}

/** A window in seconds as the layout would write it. */
export function windowText(s: number): string {
  if (s % 86_400 === 0) return `${s / 86_400}d`;
  if (s % 3600 === 0) return `${s / 3600}h`;
  if (s % 60 === 0) return `${s / 60}m`;
  return `${s}s`;
}

/** A usage record, as far as budgets read it. */
export interface UsageLike {
  time: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  usd: number | null;
}

/** What was spent: tokens (all kinds), dollars, and whether some calls had no price. */
export interface Spent {
  tokens: number;
  usd: number;
  unpriced: number;
}

/** Sum the records at or after `sinceMs`. */
export function spentSince(records: readonly UsageLike[], sinceMs: number): Spent {
  const out: Spent = { tokens: 0, usd: 0, unpriced: 0 };
  for (const r of records) {
    if (!(Date.parse(r.time) >= sinceMs)) continue;
    out.tokens += r.input + r.output + r.cacheRead + r.cacheWrite;
    if (r.usd === null) out.unpriced++;
    else out.usd += r.usd;
  }
  return out;
}

/** Where a budget stands: the larger fraction of its caps used, and whether it is spent. */
export interface BudgetState {
  spent: Spent;
  fraction: number;
  exhausted: boolean;
  /** One line: "1.2M of 1M tokens, $0.40 of $5 in 24h". */
  text: string;
}

/** Check spend against a budget. */
export function budgetState(b: Budget, spent: Spent): BudgetState {
  const fractions = [b.tokens !== null ? spent.tokens / b.tokens : 0, b.usd !== null ? spent.usd / b.usd : 0];
  const fraction = Math.max(...fractions);
  const parts: string[] = [];
  if (b.tokens !== null) parts.push(`${compact(spent.tokens)} of ${compact(b.tokens)} tokens`);
  if (b.usd !== null) parts.push(`$${spent.usd.toFixed(2)} of $${b.usd.toFixed(2)}`);
  return { spent, fraction, exhausted: fraction >= 1, text: `${parts.join(', ')} in ${windowText(b.windowS)}` };
}

function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
