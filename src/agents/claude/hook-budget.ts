/**
 * Budgets for Claude Code members: the same `budget:` caps teamux's own agent obeys (protocol/budget.ts,
 * agent/budget.ts), with the spend taken from Claude Code's own usage records (its transcript, copied
 * into usage/<member>.jsonl by store/claude-usage.ts). When the member's budget or the team's is spent,
 * its hooks refuse every tool and do not keep it going, the pane wake does not type into it, and its
 * activity record says why (the pane title and roster show "(budget spent)"); the lead is told once,
 * when the record first says so. Work resumes when the window moves on or the budget is raised.
 */
import { budgetHold } from '../../agent/budget.js';
import { estimateCost } from '../../protocol/pricing.js';
import { readClaudeActivity, swapClaudeBudget } from '../../store/claude.js';
import { syncClaudeUsage, type PriceOf } from '../../store/claude-usage.js';
import type { TeamStore } from '../../store/team.js';

/** Dollars of one response: the demo model costs nothing (as for teamux's agent), else the estimate. */
export function claudePrice(demo: boolean): PriceOf {
  return demo ? () => 0 : (model, tokens) => estimateCost(model, tokens);
}

/** True when Claude Code talks to teamux's offline demo model (launch.ts points it there). */
export function usesDemoModel(env: NodeJS.ProcessEnv): boolean {
  const demo = env.TEAMUX_DEMO_URL?.replace(/\/+$/, '');
  return Boolean(demo && env.ANTHROPIC_BASE_URL?.startsWith(`${demo}/`));
}

/** What a tool refused for a spent budget tells the model. */
export function budgetRefusal(held: string): string {
  return `blocked: budget spent (${held}). Stop here; the operator raises the budget or the window moves on.`;
}

/**
 * Copy the member's new usage records from its transcript (when given), then check its budget and the
 * team's: the reason it must stop, or null. The activity record is brought up to date, and the lead is
 * told the first time the member is stopped.
 */
export async function claudeBudgetHold(store: TeamStore, member: string, usage: { transcript: string; price: PriceOf } | null): Promise<string | null> {
  if (usage) await syncClaudeUsage(store.paths, member, usage.transcript, usage.price).catch((err: unknown) => store.log.warn(`reading ${member}'s usage from ${usage.transcript}: ${(err as Error).message}`));
  const cfg = await store.config();
  const me = cfg.members.find((m) => m.name === member);
  if (!me) return null;
  const held = me.budget || cfg.budget ? await budgetHold(store, cfg, me) : null;
  // Nothing applies and nothing was noted: no lock to take (the common case, on every prompt and tool).
  if (held === null && !(await readClaudeActivity(store.paths, member))?.budget) return null;
  const before = await swapClaudeBudget(store.paths, member, held);
  if (before === held) return held;
  if (held === null) {
    store.log.info(`${member}: budget available again`);
    return null;
  }
  if (before !== null) return held;
  store.log.warn(`${member}: ${held}; its tools are refused and messages wait`);
  const lead = cfg.members.find((m) => m.kind === 'lead');
  if (lead && lead.name !== member) {
    const r = await store.send({ from: member, to: lead.name, type: 'message', text: `${held}. Claude Code is stopped: its tools are refused and messages to it wait until the budget allows it again.`, payload: { budget: 'spent' } });
    if (!r.ok) store.log.warn(`could not tell ${lead.name} that ${member}'s budget is spent: ${r.message}`);
  }
  return held;
}
