/**
 * The team config and heartbeats on JetStream KV. The config is one key changed only by
 * compare-and-set on its revision; heartbeats live in a bucket whose entries expire after
 * HEARTBEAT_STALE_MS, so a member that stops beating (its machine died, its network went) disappears
 * and is reported exited, and `task release --stale` frees its tasks.
 */
import type { KV } from '@nats-io/kv';
import type { TeamConfig } from '../../protocol/types.js';
import type { RawConfig, SharedState } from '../backend.js';
import { casWrite, entryJson, getLive, retrying } from './kv.js';
import { keys } from './names.js';

/** The screen lease's key in the heartbeat bucket, and how often its holder renews it. */
const SCREEN_KEY = 'screen.lease';
const SCREEN_REFRESH_MS = 10_000;

/** Config and liveness of one team on a NATS server. */
export class NatsShared implements SharedState {
  readonly remoteLiveness = true;

  constructor(private readonly kv: KV, private readonly live: KV, private readonly where: string) {}

  async readRaw(): Promise<RawConfig | undefined> {
    const e = await getLive(this.kv, keys.config);
    if (!e) return undefined;
    const json = entryJson(e);
    const where = `${this.where} ${keys.config}`;
    return json.ok ? { ok: true, json: json.value, where } : { ok: false, message: `${where}: ${json.message}`, hint: 'write the config again with `teamux init LAYOUT.yaml --store URL`' };
  }

  async write(config: TeamConfig): Promise<void> {
    await retrying(() => this.kv.put(keys.config, JSON.stringify(config)));
  }

  async modify<T>(read: () => Promise<TeamConfig>, fn: (cfg: TeamConfig) => Promise<{ config?: TeamConfig; value: T }>): Promise<T> {
    for (;;) {
      const e = await getLive(this.kv, keys.config);
      const r = await fn(await read());
      if (!r.config) return r.value;
      // The config read by `read` may be newer than `e`: then the write conflicts and we go round again.
      if (e && (await casWrite(this.kv, keys.config, JSON.stringify(r.config), e.revision))) return r.value;
    }
  }

  async version(): Promise<string> {
    const e = await getLive(this.kv, keys.config);
    return e ? String(e.revision) : '';
  }

  /**
   * The screen lease: key `screen.lease` in the heartbeat bucket (no member name has a dot), created
   * only if absent and put again every SCREEN_REFRESH_MS; a screen that dies is forgotten when the
   * key expires with the bucket's max age.
   */
  async claimScreen(owner: string): Promise<{ ok: true; release(): Promise<void> } | { ok: false; holder: string }> {
    const text = JSON.stringify({ owner, at: new Date().toISOString() });
    if (!(await casWrite(this.live, SCREEN_KEY, text, 0))) {
      const e = await getLive(this.live, SCREEN_KEY);
      const json = e ? entryJson(e) : null;
      const holder = json?.ok ? String((json.value as { owner?: unknown }).owner ?? 'another screen') : 'another screen';
      // The key was deleted between the two reads: try once more.
      if (!e) return this.claimScreen(owner);
      return { ok: false, holder };
    }
    const timer = setInterval(() => void this.live.put(SCREEN_KEY, JSON.stringify({ owner, at: new Date().toISOString() })).catch(() => {}), SCREEN_REFRESH_MS);
    timer.unref();
    return {
      ok: true,
      release: async () => {
        clearInterval(timer);
        await retrying(() => this.live.delete(SCREEN_KEY), 5_000).catch(() => {});
      },
    };
  }

  async heartbeat(member: string): Promise<void> {
    await retrying(() => this.live.put(member, JSON.stringify({ pid: process.pid, at: new Date().toISOString() })));
  }

  async heartbeatAt(member: string): Promise<number | null> {
    const e = await getLive(this.live, member);
    return e ? e.created.getTime() : null;
  }
}
