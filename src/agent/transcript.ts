/**
 * A member's transcript: `transcripts/<name>.json` in the team folder, the whole conversation plus
 * token totals, replaced atomically after every step so a restarted member resumes where it was.
 * Every string is scrubbed of secrets before it is written — the API key never reaches the disk. A
 * transcript that does not parse is moved aside (`.bad`) and reported, never fatal.
 */
import { promises as fsp } from 'node:fs';
import { z } from '../protocol/zod.js';
import { redact } from '../store/redact.js';
import { ensureDir, parseJson, readText, writeJson } from '../store/fsx.js';
import * as path from 'node:path';
import type { Turn } from './conversation.js';
import type { UsageTotals } from '../protocol/pricing.js';

/** Token totals over the member's life (the shape is protocol/pricing.ts's). */
export type { UsageTotals };

export const ZERO_USAGE: UsageTotals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/** What is saved. */
export interface Transcript {
  version: 1;
  member: string;
  model: string;
  savedAt: string;
  /** Tokens the last request's context took (input + output), the compaction trigger. */
  contextTokens: number;
  compactions: number;
  usage: UsageTotals;
  messages: Turn[];
}

const TranscriptFile = z.object({
  version: z.literal(1),
  member: z.string(),
  model: z.string(),
  savedAt: z.string(),
  contextTokens: z.number().nonnegative().default(0),
  compactions: z.number().int().nonnegative().default(0),
  usage: z.object({ input: z.number(), output: z.number(), cacheRead: z.number().default(0), cacheWrite: z.number().default(0) }),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]) })),
});

/** Replace every occurrence of a secret (and anything shaped like an API key) in every string of `value`. */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  const scrub = (s: string): string => redact(s, secrets);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** Load a transcript: null when there is none; a problem when it cannot be used (the file is moved aside). */
export async function loadTranscript(file: string): Promise<{ ok: true; transcript: Transcript | null } | { ok: false; problem: string }> {
  const text = await readText(file, 'log');
  if (text === undefined) return { ok: true, transcript: null };
  const json = parseJson(file, text);
  const parsed = json.ok ? TranscriptFile.safeParse(json.value) : null;
  if (parsed?.success) return { ok: true, transcript: parsed.data as Transcript };
  const why = !json.ok ? json.problem.message : `${parsed!.error.issues[0]!.path.join('.') || '(top)'}: ${parsed!.error.issues[0]!.message}`;
  const aside = `${file}.bad`;
  await fsp.rename(file, aside).catch(() => undefined);
  return { ok: false, problem: `transcript ${file} is unreadable (${why}); it was moved to ${path.basename(aside)} and the conversation starts fresh` };
}

/** Write a transcript atomically, scrubbed of `secrets`. */
export async function saveTranscript(file: string, t: Transcript, secrets: readonly string[]): Promise<void> {
  await ensureDir(path.dirname(file));
  await writeJson(file, scrubSecrets(t, secrets));
}
