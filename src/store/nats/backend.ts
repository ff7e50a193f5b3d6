/**
 * The JetStream backend: one connection, and per team a state bucket (config, tasks, counter,
 * requests), a heartbeat bucket with a max age, an inbox stream and an event stream, all with file
 * storage so a server restart loses nothing acknowledged. It tracks the connection for the status
 * line; the client reconnects on its own and the parts retry through the gap.
 */
import { jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import type { StoreBackend } from '../backend.js';
import { HEARTBEAT_STALE_MS } from '../liveness.js';
import { connectStore, type ConnectProblem } from './connect.js';
import { NatsEventLog } from './events.js';
import { NatsMailbox } from './inbox.js';
import { retrying } from './kv.js';
import { eventStream, eventSubject, inboxStream, inboxSubject, keys, liveBucket, stateBucket } from './names.js';
import { NatsRequestBook } from './requests.js';
import { NatsShared } from './shared.js';
import { NatsTaskBoard } from './tasks.js';
import { followKv, stateChangeOf } from './watch.js';

/** How long a retried publish is recognised as a duplicate. */
const DUPLICATE_WINDOW_MS = 2 * 60_000;

/** Create the team's streams if missing (an existing one is left as it is). */
async function ensureStream(jsm: JetStreamManager, name: string, subject: string): Promise<void> {
  try {
    await jsm.streams.info(name);
  } catch {
    await jsm.streams.add({ name, subjects: [subject], storage: StorageType.File, retention: RetentionPolicy.Limits, duplicate_window: nanos(DUPLICATE_WINDOW_MS) });
  }
}

/** Open (creating if missing) the JetStream side of team `team` on connection `nc`. */
export async function natsBackend(nc: NatsConnection, team: string, where: string): Promise<StoreBackend> {
  const js = jetstream(nc, { timeout: 5_000 });
  const jsm = await jetstreamManager(nc, { timeout: 5_000 });
  const kvm = new Kvm(js);
  const kv = await retrying(() => kvm.create(stateBucket(team), { history: 1, storage: StorageType.File }));
  const live = await retrying(() => kvm.create(liveBucket(team), { history: 1, storage: StorageType.File, ttl: HEARTBEAT_STALE_MS }));
  await retrying(() => ensureStream(jsm, inboxStream(team), inboxSubject(team, '*')));
  await retrying(() => ensureStream(jsm, eventStream(team), eventSubject(team)));
  const events = new NatsEventLog(js, jsm, team);
  let state: 'connected' | 'reconnecting' | 'closed' = 'connected';
  let detail = where;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnecting') {
        state = 'reconnecting';
        detail = `lost ${where}, reconnecting`;
      } else if (s.type === 'reconnect') {
        state = 'connected';
        detail = where;
      }
    }
  })().catch(() => {});
  void nc.closed().then(() => {
    state = 'closed';
    detail = `closed ${where}`;
  });
  return {
    kind: 'nats',
    where,
    tasks: new NatsTaskBoard(kv, js, events, where),
    mail: new NatsMailbox(nc, js, jsm, team),
    events,
    requests: new NatsRequestBook(kv),
    shared: new NatsShared(kv, live, where),
    eventFeed: () => events.feed(),
    // A watch is started again after a reconnect, and a wake then covers what the gap may have hidden.
    watchTasks: (wake) => followKv(nc, kv, keys.allTasks, () => wake(), wake),
    watchState: (onChange) => {
      const state = followKv(nc, kv, '>', (e) => {
        const change = stateChangeOf(e.key);
        if (change) onChange(change);
      }, () => onChange({ kind: 'reset' }));
      const beats = followKv(nc, live, '>', (e) => { if (!e.key.includes('.')) onChange({ kind: 'heartbeat', member: e.key }); }, () => {});
      return { dispose: () => { state.dispose(); beats.dispose(); } };
    },
    connection: () => ({ state, detail }),
    close: async () => {
      await nc.drain().catch(() => {});
    },
  };
}

/** Connect to `url` and open team `team` there; a problem (unreachable, refused, no JetStream) is a value. */
export async function openNatsBackend(url: string, team: string, env: NodeJS.ProcessEnv, who: string): Promise<{ ok: true; backend: StoreBackend } | { ok: false; problem: ConnectProblem }> {
  const c = await connectStore(url, env, `teamux ${team} ${who}`);
  if (!c.ok) return c;
  const where = `nats://${c.url.servers.join(',')}`;
  try {
    return { ok: true, backend: await natsBackend(c.nc, team, where) };
  } catch (err) {
    await c.nc.close().catch(() => {});
    return { ok: false, problem: { message: `cannot open team ${team} on ${where}: ${(err as Error).message}`, hint: 'check that this account may create streams and KV buckets (JetStream limits, permissions)' } };
  }
}
