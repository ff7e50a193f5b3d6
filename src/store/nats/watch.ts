/**
 * Following KV buckets through reconnects: a KV watch (an ephemeral push consumer) does not outlive a
 * restart of the server, so each watch here is started again whenever the connection comes back, and
 * the caller is told (`onReset`) that it may have missed changes in between and should read afresh.
 * Owns the watch iterators and the status listener; dispose stops all of them.
 */
import { KvWatchInclude, type KV, type KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { StateChange } from '../backend.js';
import { keys, taskIdOf } from './names.js';

/** A stoppable iterator (what kv.watch and nc.status return). */
interface Stoppable {
  stop(): void;
}

/**
 * Run `onEntry` for every change to keys matching `key` in `kv` (updates only), and `onReset` after a
 * reconnect, once the watch is running again. Dispose to stop.
 */
export function followKv(nc: NatsConnection, kv: KV, key: string, onEntry: (e: KvEntry) => void, onReset: () => void): { dispose(): void } {
  let stopped = false;
  let current: Stoppable | null = null;
  const open = async (): Promise<void> => {
    current?.stop();
    current = null;
    const w = await kv.watch({ key, include: KvWatchInclude.UpdatesOnly });
    if (stopped) return w.stop();
    current = w;
    void (async () => {
      for await (const e of w) onEntry(e);
    })().catch(() => {});
  };
  const reopen = async (): Promise<void> => {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        await open();
        onReset();
        return;
      } catch {
        // JetStream may answer a moment after the connection is back.
        await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** attempt)));
      }
    }
  };
  const status = nc.status() as AsyncIterable<{ type: string }> & Stoppable;
  void (async () => {
    for await (const s of status) if (s.type === 'reconnect') void reopen();
  })().catch(() => {});
  void open().catch(() => void reopen());
  return {
    dispose: () => {
      stopped = true;
      current?.stop();
      status.stop();
    },
  };
}

/** What a change to a key of the team's state bucket is, for a watcher; null for keys it does not follow. */
export function stateChangeOf(key: string): StateChange | null {
  const task = taskIdOf(key);
  if (task) return { kind: 'task', id: task };
  if (key.startsWith('request.')) return { kind: 'request', id: key.slice('request.'.length) };
  if (key === keys.config) return { kind: 'config' };
  return null;
}
