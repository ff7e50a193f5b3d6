/**
 * Budgets, pure: a cap in tokens and/or dollars over a rolling window, for the whole team and per
 * member (`budget:` in the layout, kept in team.json). Spend is summed from usage records (one per
 * model call, store/usage.ts) inside the window; a budget is spent when either cap is reached. When
 * it is, teamux's agent stops calling the model until the window moves on.
 */
import { z } from './zod.js';

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
  /** The same, short for a narrow column: "1.2M/1.0M tok $0.40/$5.00 24h". */
  short: string;
}

/** Check spend against a budget. */
export function budgetState(b: Budget, spent: Spent): BudgetState {
  const fractions = [b.tokens !== null ? spent.tokens / b.tokens : 0, b.usd !== null ? spent.usd / b.usd : 0];
  const fraction = Math.max(...fractions);
  const parts: string[] = [];
  if (b.tokens !== null) parts.push(`${compact(spent.tokens)} of ${compact(b.tokens)} tokens`);
  if (b.usd !== null) parts.push(`$${spent.usd.toFixed(2)} of $${b.usd.toFixed(2)}`);
  const short: string[] = [];
  if (b.tokens !== null) short.push(`${compact(spent.tokens)}/${compact(b.tokens)} tok`);
  if (b.usd !== null) short.push(`$${spent.usd.toFixed(2)}/$${b.usd.toFixed(2)}`);
  const window = windowText(b.windowS);
  return { spent, fraction, exhausted: fraction >= 1, text: `${parts.join(', ')} in ${window}`, short: `${short.join(' ')} ${window}` };
}

function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Where the team's budgets stand, for the sidebar: the team's, and each member's that has one. */
export interface BudgetSummary {
  /** The team's budget against every member's spend; null when the team has none. */
  team: BudgetState | null;
  /** Members with a budget of their own, in roster order. */
  members: Array<{ name: string; state: BudgetState }>;
  /** When spend next drops because a record leaves its window (ms since the epoch); null: never. */
  nextChangeAt: number | null;
}

/**
 * The budget picture at `now` from each member's usage records (any order). `nextChangeAt` lets a
 * watcher refresh the picture when the oldest counted call leaves a window, without polling.
 */
export function budgetSummary(team: Budget | null, members: ReadonlyArray<{ name: string; budget?: Budget | null | undefined }>, usage: (member: string) => readonly UsageLike[], now: number): BudgetSummary {
  let nextChangeAt: number | null = null;
  const state = (b: Budget, records: readonly UsageLike[]): BudgetState => {
    const since = now - b.windowS * 1000;
    for (const r of records) {
      const t = Date.parse(r.time);
      const leaves = t + b.windowS * 1000 + 1;
      if (t >= since && (nextChangeAt === null || leaves < nextChangeAt)) nextChangeAt = leaves;
    }
    return budgetState(b, spentSince(records, since));
  };
  const out: BudgetSummary = { team: null, members: [], nextChangeAt: null };
  if (team) out.team = state(team, members.flatMap((m) => usage(m.name)));
  for (const m of members) if (m.budget) out.members.push({ name: m.name, state: state(m.budget, usage(m.name)) });
  out.nextChangeAt = nextChangeAt;
  return out;
}
