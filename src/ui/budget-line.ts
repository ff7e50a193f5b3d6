/**
 * The sidebar's budget line and the roster's spent mark, pure: from the budget summary (the team's
 * spend against its budget over the window, and which members have spent their own) to one styled
 * row — green within budget, yellow from WARN_AT of it, red once spent.
 */
import type { BudgetState, BudgetSummary } from '../protocol/budget.js';
import { C, fit, style, type Row } from './text.js';

/** The fraction of a budget from which the line turns yellow. */
export const WARN_AT = 0.8;

/** The members whose own budget is spent. */
export function spentMembers(b: BudgetSummary | null | undefined): Set<string> {
  return new Set((b?.members ?? []).filter((m) => m.state.exhausted).map((m) => m.name));
}

/** The budget line's text, short for a narrow column: `BUDGET 24% 12k/50k tok $0.40/$5.00 24h · spent: alice`. */
export function budgetLineText(b: BudgetSummary): string {
  const parts: string[] = [];
  if (b.team) parts.push(`${b.team.exhausted ? 'SPENT' : `${Math.floor(b.team.fraction * 100)}%`} ${b.team.short}${unpriced(b.team)}`);
  const spent = [...spentMembers(b)];
  if (spent.length) parts.push(`spent: ${spent.join(', ')}`);
  else if (!b.team) parts.push(`${b.members.length} member budget${b.members.length === 1 ? '' : 's'}, none spent`);
  return `BUDGET ${parts.join(' · ')}`;
}

/** The budget line as a sidebar row. */
export function budgetLineRow(b: BudgetSummary, width: number): Row {
  const worst = Math.max(b.team?.fraction ?? 0, ...b.members.map((m) => m.state.fraction));
  const colour = b.team?.exhausted || spentMembers(b).size > 0 ? C.red : worst >= WARN_AT ? C.yellow : C.green;
  return [{ text: fit(budgetLineText(b), width), attr: style(colour, C.default, { bold: colour === C.red }) }];
}

/** " (3 unpriced)" when a dollar cap could not count some calls. */
function unpriced(s: BudgetState): string {
  return s.spent.unpriced > 0 && s.short.includes('$') ? ` (${s.spent.unpriced} unpriced)` : '';
}
