/**
 * What members spent on their models. teamux's agent appends one record per model call to
 * `usage/<member>.jsonl` (time, model, tokens, estimated dollars), which budgets sum over a rolling
 * window; its transcript keeps lifetime token totals; a Claude Code member's activity record keeps
 * its tokens and Claude Code's own cost. This file reads and appends those records; pricing and
 * budget rules live elsewhere (protocol/pricing.ts, protocol/budget.ts).
 */
import { z } from '../protocol/zod.js';
import type { Spend } from '../protocol/report.js';
import { readClaudeActivity } from './claude.js';
import { appendLine, ensureDir, parseJson, readText } from './fsx.js';
import type { TeamPaths } from './paths.js';

/** One model call. */
export const UsageRecord = z.object({
  time: z.string(),
  model: z.string(),
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().default(0),
  cacheWrite: z.number().nonnegative().default(0),
  /** Estimated dollars (null: the model's price is unknown). */
  usd: z.number().nonnegative().nullable().default(null),
});
export type UsageRecord = z.infer<typeof UsageRecord>;

/** A member's spend as its own records give it (usd: as the member's tool reported it, Claude Code; null: estimate from the tokens). */
export interface RecordedSpend extends Spend {
  /** Where it comes from: the agent's transcript totals, or a Claude Code member's activity record. */
  source: 'transcript' | 'claude' | 'none';
}

const TranscriptUsage = z.object({
  model: z.string(),
  usage: z.object({ input: z.number(), output: z.number(), cacheRead: z.number().default(0), cacheWrite: z.number().default(0) }),
});

/** Append one model call to a member's usage log. */
export async function recordUsage(paths: TeamPaths, member: string, record: UsageRecord): Promise<void> {
  await ensureDir(paths.usage);
  await appendLine(paths.usageLog(member), JSON.stringify(UsageRecord.parse(record)));
}

/** A member's usage records at or after `sinceMs` (all when omitted); bad lines are skipped. */
export async function readUsage(paths: TeamPaths, member: string, sinceMs = 0): Promise<UsageRecord[]> {
  const text = await readText(paths.usageLog(member), 'log').catch(() => undefined);
  if (!text) return [];
  const out: UsageRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const json = parseJson(paths.usageLog(member), line);
    const r = json.ok ? UsageRecord.safeParse(json.value) : null;
    if (r?.success && Date.parse(r.data.time) >= sinceMs) out.push(r.data);
  }
  return out;
}

/** What a member spent over its life: its transcript's totals (an agent) or its activity record (Claude Code). */
export async function recordedSpend(paths: TeamPaths, member: string): Promise<RecordedSpend> {
  const text = await readText(paths.transcript(member), 'log').catch(() => undefined);
  const json = text ? parseJson(paths.transcript(member), text) : null;
  const t = json?.ok ? TranscriptUsage.safeParse(json.value) : null;
  if (t?.success) return { source: 'transcript', model: t.data.model, ...t.data.usage, usd: null };
  const c = await readClaudeActivity(paths, member);
  if (c && (c.tokens !== null || c.costUsd !== null)) {
    return { source: 'claude', model: c.model, input: c.tokens?.input ?? 0, output: c.tokens?.output ?? 0, cacheRead: 0, cacheWrite: 0, usd: c.costUsd };
  }
  return { source: 'none', model: null, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, usd: null };
}
