/**
 * One rule for the tokens of Claude Code's responses as its transcript records them (and of Codex
 * CLI's, as its session rollout does: codexResponseUsage) (JSONL; a
 * response's `type: "assistant"` line carries `message.usage`, and one response is often written as
 * several lines with the same id): which lines count (whole lines, ended by a newline, that name
 * "usage" and "assistant" and parse as such a record), which key makes lines one response (the first
 * non-empty string of `message.id`, `requestId`), what a token field is worth (a JSON number that is a
 * whole number from 0 to 2^53 - 1; anything else, a negative, fractional or quoted one, counts 0) and
 * the model (a string). The status line (agents/claude/hook-answers.ts), the usage copy budgets count
 * (store/claude-usage.ts) and the Perl status line (agents/claude/hook-perl.ts, its field table written
 * from TOKEN_FIELDS) read by it; test/agents/claude/transcript-usage.test.ts holds all three to it.
 * Pure; imports nothing.
 */

/** Tokens of one response, as the price function reads them. */
export interface CallTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The `message.usage` field behind each count. */
export const TOKEN_FIELDS: Readonly<Record<keyof CallTokens, string>> = {
  input: 'input_tokens',
  output: 'output_tokens',
  cacheRead: 'cache_read_input_tokens',
  cacheWrite: 'cache_creation_input_tokens',
};

/** One response's usage, from one transcript line. */
export interface ResponseUsage {
  /** What makes several lines one response (null: none, each line counts). */
  key: string | null;
  model: string | null;
  tokens: CallTokens;
  /** The line's `timestamp`, when it is a string. */
  timestamp: string | null;
}

/** What a token field is worth. */
export function tokenCount(v: unknown): number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * Codex CLI's session rollout records each response as `{"type":"token_usage_record","payload":
 * {"response_id","usage":{"input_tokens","cached_input_tokens","output_tokens",…}}}`, where
 * `input_tokens` includes the cached ones (OpenAI's way): those count as cache reads, not twice.
 */
function codexResponseUsage(rec: Json): ResponseUsage | null {
  if (rec.type !== 'token_usage_record' || !isObject(rec.payload) || !isObject(rec.payload.usage)) return null;
  const u = rec.payload.usage;
  const cached = tokenCount(u.cached_input_tokens);
  const tokens = { input: Math.max(0, tokenCount(u.input_tokens) - cached), output: tokenCount(u.output_tokens), cacheRead: cached, cacheWrite: tokenCount(u.cache_write_input_tokens) };
  return { key: text(rec.payload.response_id), model: null, tokens, timestamp: typeof rec.timestamp === 'string' ? rec.timestamp : null };
}

/** The usage of one transcript line (without its newline), or null when the line is not a response's. */
export function responseUsage(line: string): ResponseUsage | null {
  if (line.includes('"token_usage_record"')) {
    try {
      const rec: unknown = JSON.parse(line);
      return isObject(rec) ? codexResponseUsage(rec) : null;
    } catch {
      return null;
    }
  }
  if (!line.includes('"usage"') || !line.includes('"assistant"')) return null;
  let rec: unknown;
  try {
    rec = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObject(rec) || rec.type !== 'assistant' || !isObject(rec.message) || !isObject(rec.message.usage)) return null;
  const u = rec.message.usage;
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const k of Object.keys(TOKEN_FIELDS) as Array<keyof CallTokens>) tokens[k] = tokenCount(u[TOKEN_FIELDS[k]]);
  return { key: text(rec.message.id) ?? text(rec.requestId), model: typeof rec.message.model === 'string' ? rec.message.model : null, tokens, timestamp: typeof rec.timestamp === 'string' ? rec.timestamp : null };
}

/**
 * The responses in `text`'s whole lines (a last line without its newline is not read yet), each
 * once: a key already in `seen` is skipped, and every new key is added to it.
 */
export function transcriptResponses(text: string, seen: Set<string>): ResponseUsage[] {
  const out: ResponseUsage[] = [];
  const end = text.lastIndexOf('\n');
  if (end < 0) return out;
  for (const line of text.slice(0, end).split('\n')) {
    const r = responseUsage(line);
    if (!r) continue;
    if (r.key !== null) {
      if (seen.has(r.key)) continue;
      seen.add(r.key);
    }
    out.push(r);
  }
  return out;
}
