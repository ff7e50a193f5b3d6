/**
 * One model reply, streamed, with teamux's own retries. The SDK client is made with maxRetries 0 so
 * that every retry is visible in the pane ("API overloaded (529), retrying in 2s (attempt 2/6)").
 * 429, 529 and 5xx answers, connection failures and an SSE error event in the middle of a stream are
 * retried with exponential backoff (a server's retry-after wins when longer); anything else fails
 * at once with a message for the pane. An abort (Esc) ends the call and any backoff immediately.
 * Deciding what to do with a failure is pure (`failureOf`, `retryDecision`).
 */
import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Endpoint, RetryPolicy } from './options.js';

/** The parts of a failed call that decide a retry. */
export interface Failure {
  status: number | undefined;
  type: string | null;
  message: string;
  retryAfterMs: number | null;
  connection: boolean;
}

/** What to do after attempt number `attempt` failed. */
export type RetryDecision = { retry: true; delayMs: number; notice: string } | { retry: false; message: string };

/** How a reply ended. */
export type ReplyOutcome =
  | { kind: 'reply'; message: Anthropic.Message }
  | { kind: 'aborted' }
  | { kind: 'failed'; message: string; failure: Failure };

/** Hooks for the pane. `onRetry` says whether text of the failed attempt was already shown. */
export interface ReplyHooks {
  onText?(delta: string): void;
  onRetry?(notice: string, shownText: boolean): void;
}

/** A client for an endpoint, retrying nothing itself. */
export function makeClient(endpoint: Extract<Endpoint, { ok: true }>): Anthropic {
  return new Anthropic({ apiKey: endpoint.apiKey, baseURL: endpoint.baseURL ?? null, maxRetries: 0, defaultHeaders: endpoint.headers });
}

/** Read the retry-relevant facts off an SDK error (or anything thrown). */
export function failureOf(err: unknown): Failure {
  if (err instanceof APIConnectionError) return { status: undefined, type: null, message: err.message, retryAfterMs: null, connection: true };
  if (err instanceof APIError) {
    const headers = err.headers;
    const ms = headers?.get('retry-after-ms');
    const s = headers?.get('retry-after');
    const retryAfterMs = ms && Number.isFinite(Number(ms)) ? Number(ms) : s && Number.isFinite(Number(s)) ? Number(s) * 1000 : null;
    return { status: err.status, type: err.type ?? null, message: err.apiMessage ?? err.message, retryAfterMs, connection: false };
  }
  return { status: undefined, type: null, message: err instanceof Error ? err.message : String(err), retryAfterMs: null, connection: false };
}

const RETRY_TYPES = new Set(['overloaded_error', 'rate_limit_error', 'api_error', 'timeout_error']);

/** True for failures worth another attempt. */
export function retryable(f: Failure): boolean {
  if (f.connection) return true;
  if (f.status !== undefined) return f.status === 429 || f.status === 529 || f.status >= 500;
  return f.type !== null && RETRY_TYPES.has(f.type);
}

/** A short name for a failure: "API overloaded (529)", "rate limited (429)", "API overloaded (mid-stream)". */
export function describeFailure(f: Failure): string {
  if (f.connection) return 'connection to the API failed';
  const code = f.status ?? 'mid-stream';
  if (f.status === 529 || f.type === 'overloaded_error') return `API overloaded (${code})`;
  if (f.status === 429 || f.type === 'rate_limit_error') return `rate limited (${code})`;
  if (f.status === 401 || f.type === 'authentication_error') return `authentication failed (${code}): check ANTHROPIC_API_KEY`;
  if (f.status === 403) return `permission denied (${code})`;
  if (f.status === 404) return `not found (${code})`;
  if (f.status === 400 || f.status === 413) return `request rejected (${code})`;
  return `API error (${f.status ?? f.type ?? 'mid-stream'})`;
}

/** A delay for display: 250 → "250ms", 2000 → "2s", 1500 → "1.5s". */
export function formatDelay(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${Number((ms / 1000).toFixed(1))}s`;
}

/** Retry or give up after attempt `attempt` (1-based) failed with `f`. */
export function retryDecision(f: Failure, attempt: number, policy: RetryPolicy): RetryDecision {
  const what = describeFailure(f);
  if (!retryable(f)) return { retry: false, message: `${what}: ${f.message}` };
  if (attempt >= policy.attempts) return { retry: false, message: `${what}: gave up after ${attempt} attempts (${f.message})` };
  const backoff = policy.baseMs * 2 ** (attempt - 1);
  const delayMs = Math.min(policy.maxMs, Math.max(backoff, f.retryAfterMs ?? 0));
  return { retry: true, delayMs, notice: `${what}, retrying in ${formatDelay(delayMs)} (attempt ${attempt + 1}/${policy.attempts})` };
}

/** Stream one reply, retrying what is worth retrying; never throws for API trouble. */
export async function streamReply(
  client: Anthropic,
  params: Anthropic.MessageCreateParamsNonStreaming,
  hooks: ReplyHooks,
  signal: AbortSignal,
  policy: RetryPolicy,
): Promise<ReplyOutcome> {
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) return { kind: 'aborted' };
    let shown = false;
    const stream = client.messages.stream(params, { signal });
    stream.on('text', (delta) => {
      shown = true;
      hooks.onText?.(delta);
    });
    try {
      return { kind: 'reply', message: await stream.finalMessage() };
    } catch (err) {
      if (signal.aborted || err instanceof APIUserAbortError) return { kind: 'aborted' };
      const failure = failureOf(err);
      const decision = retryDecision(failure, attempt, policy);
      if (!decision.retry) return { kind: 'failed', message: decision.message, failure };
      hooks.onRetry?.(decision.notice, shown);
      try {
        await sleep(decision.delayMs, undefined, { signal });
      } catch {
        return { kind: 'aborted' };
      }
    }
  }
}
