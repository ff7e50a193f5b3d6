/**
 * A Claude Code member's model calls as usage records: Claude Code keeps its own record of every
 * response in its transcript (JSONL, `type: "assistant"` lines with `message.usage`); this file copies
 * each new response, once, into the member's `usage/<member>.jsonl`, the same log teamux's agent
 * writes, so budgets (protocol/budget.ts) count Claude Code members and teamux agents alike. How far
 * each transcript was read (its byte offset, and the ids of the latest responses, since one response
 * is written as several lines) is kept in `usage/<member>.claude-sync.json`.
 */
import { closeSync, fstatSync, readSync } from 'node:fs';
import * as path from 'node:path';
import { z } from '../protocol/zod.js';
import { appendLines, ensureDir, parseJson, readText, writeJson } from './fsx.js';
import { openRegularSync } from '../store/read-regular.cjs';
import { withLock } from './lock.js';
import { safeName, type TeamPaths } from './paths.js';
import { UsageRecord } from './usage.js';
import { transcriptResponses, type CallTokens } from '../protocol/transcript-usage.js';

export type { CallTokens };

/** Estimated dollars of one response (null: no price known). */
export type PriceOf = (model: string, tokens: CallTokens) => number | null;

/** Responses whose ids are remembered across reads (a response's lines are written together). */
const REMEMBERED_IDS = 64;
/** Transcripts whose offsets are remembered (a member restarted many times keeps the latest). */
const REMEMBERED_FILES = 16;
/** The most read from a transcript at once (the rest on the next sync). */
const READ_LIMIT = 8 * 1024 * 1024;

const SyncState = z.object({
  files: z.record(z.string(), z.number().int().nonnegative()).default({}),
  ids: z.array(z.string()).default([]),
});
type SyncState = z.infer<typeof SyncState>;

/** Where the member's sync state lives. */
export function claudeSyncFile(paths: TeamPaths, member: string): string {
  return path.join(paths.usage, `${safeName(member)}.claude-sync.json`);
}

/**
 * The usage records in complete transcript lines (`text` ends where a line ended); responses already
 * in `seen` are skipped and added to it. `now` is the time of a line without a timestamp.
 */
export function transcriptUsageRecords(text: string, seen: Set<string>, price: PriceOf, now: string): UsageRecord[] {
  return transcriptResponses(text, seen).map((r) => {
    const model = r.model ?? 'unknown';
    const time = r.timestamp !== null && !Number.isNaN(Date.parse(r.timestamp)) ? r.timestamp : now;
    return { time, model, ...r.tokens, usd: price(model, r.tokens) };
  });
}

async function readState(file: string): Promise<SyncState> {
  const text = await readText(file, 'record').catch(() => undefined);
  const json = text ? parseJson(file, text) : null;
  const parsed = json?.ok ? SyncState.safeParse(json.value) : null;
  return parsed?.success ? parsed.data : { files: {}, ids: [] };
}

/** The complete lines of `file` from byte `offset` (at most READ_LIMIT), and where they end. */
function readLinesFrom(file: string, offset: number): { text: string; end: number } {
  let fd: number;
  try {
    // No link, no FIFO (a planted one must not hang the screen): a regular file, or nothing read.
    const opened = openRegularSync(file);
    if (typeof opened !== 'number') return { text: '', end: offset };
    fd = opened;
  } catch {
    return { text: '', end: offset };
  }
  try {
    const size = fstatSync(fd).size;
    // A transcript that shrank was replaced: read it again from its start.
    const from = size < offset ? 0 : offset;
    const buf = Buffer.alloc(Math.min(READ_LIMIT, size - from));
    const got = readSync(fd, buf, 0, buf.length, from);
    const last = buf.subarray(0, got).lastIndexOf(0x0a);
    if (last < 0) return { text: '', end: from };
    return { text: buf.subarray(0, last + 1).toString('utf8'), end: from + last + 1 };
  } finally {
    closeSync(fd);
  }
}

/**
 * Copy the responses Claude Code recorded in `transcript` since the last sync into the member's
 * usage log; returns how many were added. Concurrent hooks of one member take turns (a lock).
 */
export async function syncClaudeUsage(paths: TeamPaths, member: string, transcript: string, price: PriceOf, now = () => new Date().toISOString()): Promise<number> {
  await ensureDir(paths.usage);
  const stateFile = claudeSyncFile(paths, member);
  return withLock(stateFile, async () => {
    const state = await readState(stateFile);
    const offset = state.files[transcript] ?? 0;
    const { text, end } = readLinesFrom(transcript, offset);
    if (end === offset) return 0;
    const seen = new Set(state.ids);
    const records = transcriptUsageRecords(text, seen, price, now());
    if (records.length > 0) appendLines(paths.usageLog(member), records.map((r) => JSON.stringify(UsageRecord.parse(r))));
    const files = Object.entries({ ...state.files, [transcript]: end }).filter(([f]) => f !== transcript).slice(-(REMEMBERED_FILES - 1));
    await writeJson(stateFile, { files: Object.fromEntries([...files, [transcript, end]]), ids: [...seen].slice(-REMEMBERED_IDS) });
    return records.length;
  });
}
