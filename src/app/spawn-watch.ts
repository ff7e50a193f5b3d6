/**
 * Acts on spawn requests (see protocol/spawn.ts) while the multiplexer runs: each valid request adds
 * the member to team.json and opens its pane; a bad or duplicate request is reported in the status
 * line and the log, and set aside. The queue folder is read only by store/spawns.ts.
 */
import { checkSpawn, type SpawnRequest } from '../protocol/spawn.js';
import type { Member } from '../protocol/types.js';
import { SpawnQueue, type QueuedSpawn } from '../store/spawns.js';
import type { TeamStore } from '../store/team.js';

/** What the watcher asks its owner to do. */
export interface SpawnSink {
  /** Open a pane for an accepted request. */
  open(req: SpawnRequest): Promise<void>;
  /** Tell the user something. */
  say(text: string): void;
}

/** Start watching; returns a disposer. */
export async function watchSpawns(store: TeamStore, sink: SpawnSink): Promise<{ dispose(): void }> {
  const queue = new SpawnQueue(store.paths);
  let busy: Promise<void> = Promise.resolve();
  const scan = (): void => {
    busy = busy.then(() => scanOnce(store, queue, sink)).catch((err) => store.log.error('spawn scan failed', err));
  };
  const watcher = await queue.watch(scan);
  scan();
  return { dispose: () => watcher.close() };
}

async function scanOnce(store: TeamStore, queue: SpawnQueue, sink: SpawnSink): Promise<void> {
  for (const q of await queue.pending()) {
    if (!q.ok) {
      await reject(q, `${q.name}: ${q.why}`, store, queue, sink);
      continue;
    }
    const allowed = checkSpawn(q.request, q.name, (await store.config()).members);
    if (!allowed.ok) {
      await reject(q, `${q.name}: ${allowed.message}`, store, queue, sink);
      continue;
    }
    const req = allowed.value;
    const member: Member = {
      name: req.name, role: req.role, kind: 'teammate', status: 'exited', pid: null, pidStart: null, joinedAt: null, exitCode: null,
      planRequired: false, planApprover: req.requestedBy, tools: null, runtime: 'agent' in req ? 'agent' : 'command', speaksProtocol: 'agent' in req,
    };
    const added = await store.addMember(member);
    if (!added.ok) {
      await reject(q, `${q.name}: ${added.message}`, store, queue, sink);
      continue;
    }
    await queue.done(q);
    sink.say(`${req.requestedBy} spawned ${req.name}`);
    await sink.open(req);
  }
}

async function reject(q: QueuedSpawn, why: string, store: TeamStore, queue: SpawnQueue, sink: SpawnSink): Promise<void> {
  store.log.warn(`spawn request refused: ${why}`);
  sink.say(`spawn request refused: ${why}`);
  await queue.refuse(q);
}
