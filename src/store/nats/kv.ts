/**
 * Small pieces every JetStream part of the store uses: JSON in and out of KV entries, telling a
 * compare-and-set conflict from a transport failure, and retrying through a reconnect. A write whose
 * acknowledgement was lost is read back before it is tried again, so nothing is written twice.
 */
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV, KvEntry } from '@nats-io/kv';

/** How long an operation keeps retrying while the server is away (a restart, a network blip). */
export const RETRY_FOR_MS = 60_000;

/** True when a KV create/update failed because the key's revision moved on (someone else wrote). */
export function isConflict(err: unknown): boolean {
  return err instanceof JetStreamApiError && (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);
}

/** True for a failure that a retry may cure: a timeout, a disconnect, no responders during a restart. */
export function isTransient(err: unknown): boolean {
  if (isConflict(err)) return false;
  const e = err as Error;
  // The cause counts too: while a restarted server's JetStream comes back, a publish fails as
  // JetStreamNotEnabled caused by "no responders" (JetStream itself was checked at connect).
  const cause = e?.cause as Error | undefined;
  const text = `${e?.name ?? ''} ${e?.message ?? ''} ${cause?.name ?? ''} ${cause?.message ?? ''}`;
  return /timeout|timed out|disconnect|reconnect|no responders|503|connection|closed|CONNECTION_REFUSED|ECONN/i.test(text) && !/ClosedConnectionError/.test(e?.name ?? '');
}

/** Wait a little, growing with the attempt, capped at one second. */
export function backoff(attempt: number): Promise<void> {
  const ms = Math.min(1_000, 10 * 2 ** Math.min(attempt, 7)) * (0.5 + Math.random());
  return new Promise((r) => setTimeout(r, ms));
}

/** Run `fn`, retrying transient failures until RETRY_FOR_MS has passed. */
export async function retrying<T>(fn: () => Promise<T>, forMs = RETRY_FOR_MS): Promise<T> {
  const deadline = Date.now() + forMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransient(err) || Date.now() > deadline) throw err;
      await backoff(attempt);
    }
  }
}

/** A live entry (not a delete marker), or null. */
export async function getLive(kv: KV, key: string): Promise<KvEntry | null> {
  const e = await retrying(() => kv.get(key));
  return e && e.operation === 'PUT' ? e : null;
}

/** The JSON of an entry, or an error message when it is not JSON. */
export function entryJson(e: KvEntry): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(e.string()) };
  } catch (err) {
    return { ok: false, message: `bad JSON: ${(err as Error).message}` };
  }
}

/**
 * Write `text` to `key` if it is still at `revision` (0: if it does not exist). Returns true when the
 * write is stored, false on a conflict. A write whose answer was lost (a timeout, a reconnect) is
 * read back: if the key now holds exactly `text`, it was this write, and it is not made again.
 */
export async function casWrite(kv: KV, key: string, text: string, revision: number): Promise<boolean> {
  const deadline = Date.now() + RETRY_FOR_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      if (revision === 0) await kv.create(key, text);
      else await kv.update(key, text, revision);
      return true;
    } catch (err) {
      if (isConflict(err)) {
        if (attempt === 0) return false;
        // A conflict on a retry: our first try may have landed after all.
        const now = await getLive(kv, key);
        return now !== null && now.string() === text;
      }
      if (!isTransient(err) || Date.now() > deadline) throw err;
      await backoff(attempt);
      const now = await getLive(kv, key).catch(() => undefined);
      if (now !== undefined && now !== null && now.string() === text) return true;
    }
  }
}

/** Every key matching `filter`. */
export async function listKeys(kv: KV, filter: string): Promise<string[]> {
  return retrying(async () => {
    const out: string[] = [];
    for await (const k of await kv.keys(filter)) out.push(k);
    return out;
  });
}
