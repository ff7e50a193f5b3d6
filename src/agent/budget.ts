/**
 * The agent's side of budgets: it records every model call in its usage log (tokens and estimated
 * dollars) and, before each call, checks its own budget and the team's (team.json, from the layout's
 * `budget:`) over their rolling windows. Spend of the team's budget is the sum over every member's
 * usage log, read through a UsageTail kept per store, so a long-running agent reads only what the
 * logs gained since its last call. The runtime stops calling the model while a budget is spent; this
 * file only decides.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { budgetState, spentSince, type Budget, type Spent } from '../protocol/budget.js';
import type { Member, TeamConfig } from '../protocol/types.js';
import type { TeamStore } from '../store/team.js';
import { UsageTail } from '../store/usage-tail.js';
import { recordUsage } from '../store/usage.js';
import { estimateCost } from '../protocol/pricing.js';

/** Record one model call of `member` in its usage log; the demo model costs nothing. */
export async function recordModelCall(store: TeamStore, member: string, model: string, u: Anthropic.Usage, demo: boolean): Promise<void> {
  const usage = { input: u.input_tokens, output: u.output_tokens, cacheRead: u.cache_read_input_tokens ?? 0, cacheWrite: u.cache_creation_input_tokens ?? 0 };
  await recordUsage(store.paths, member, { time: new Date().toISOString(), model, ...usage, usd: demo ? 0 : estimateCost(model, usage) });
}

/** Each store's running copy of the usage logs. */
const tails = new WeakMap<TeamStore, UsageTail>();

/** Spend within a budget's window: one member's, or (member null) the whole team's. */
async function spentIn(tail: UsageTail, team: TeamConfig, member: string | null, b: Budget, now: number): Promise<Spent> {
  const since = now - b.windowS * 1000;
  const names = member === null ? team.members.map((m) => m.name) : [member];
  for (const n of names) await tail.readNew(n);
  return spentSince(names.flatMap((n) => tail.usage(n)), since);
}

/** Why the model must not be called now (a spent budget, in one line), or null. */
export async function budgetHold(store: TeamStore, team: TeamConfig, me: Member, now = Date.now()): Promise<string | null> {
  let tail = tails.get(store);
  if (!tail) tails.set(store, (tail = new UsageTail(store.paths)));
  // Records older than the longest window asked about leave memory (a window that grew reads the logs again).
  tail.keep(now - Math.max(me.budget?.windowS ?? 0, team.budget?.windowS ?? 0) * 1000);
  if (me.budget) {
    const s = budgetState(me.budget, await spentIn(tail, team, me.name, me.budget, now));
    if (s.exhausted) return `${me.name}'s budget is spent: ${s.text}`;
  }
  if (team.budget) {
    const s = budgetState(team.budget, await spentIn(tail, team, null, team.budget, now));
    if (s.exhausted) return `the team's budget is spent: ${s.text}`;
  }
  return null;
}
