/**
 * The layout's `budget:` key, for the team and for each member: `tokens` and/or `usd`, over a rolling
 * `window` (default 24h). Checked here with a hint; normalized to the record team.json keeps
 * (protocol/budget.ts), which teamux's agents enforce.
 */
import { z } from '../protocol/zod.js';
import { WINDOW_PATTERN, windowSeconds, type Budget } from '../protocol/budget.js';
import { describeValue } from './messages.js';

export const BudgetSchema = z
  .strictObject({
    tokens: z.number().int().positive().optional().meta({ description: 'Tokens (input, output and cache) the model may use within the window.' }),
    usd: z.number().positive().optional().meta({ description: 'Estimated US dollars the model may cost within the window.' }),
    window: z.string().regex(WINDOW_PATTERN, { error: (iss) => `expected a window like 30m, 24h or 7d, got ${describeValue(iss.input)}` }).default('24h').meta({ description: 'The rolling window the caps apply to: a number and s, m, h or d.' }),
  })
  .superRefine((b, ctx) => {
    if (b.tokens === undefined && b.usd === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'a budget needs tokens, usd or both', params: { hint: 'e.g. budget: { usd: 5, window: 24h }' } });
    }
  })
  .meta({ description: 'A cap on model use over a rolling window; when it is spent, teamux agents stop calling the model and the lead is told.' });
export type BudgetInput = z.infer<typeof BudgetSchema>;

/** The record team.json keeps for a layout budget (null for none). */
export function normalizeBudget(b: BudgetInput | undefined): Budget | null {
  if (b === undefined) return null;
  return { tokens: b.tokens ?? null, usd: b.usd ?? null, windowS: windowSeconds(b.window)! };
}
