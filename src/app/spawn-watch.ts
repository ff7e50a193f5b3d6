/**
 * Watches `<team>/spawn/` for spawn requests (see protocol/spawn.ts) while the multiplexer runs:
 * each valid request adds the member to team.json and opens its pane; a bad or duplicate request is
 * reported in the status line and the log, and moved aside so it is not read again.
 */
import { promises as fsp, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import { SpawnRequest } from '../protocol/spawn.js';
import type { Member } from '../protocol/types.js';
import { ensureDir, parseJson, readText } from '../store/fsx.js';
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
  const dir = store.paths.spawns;
  await ensureDir(dir);
  let busy: Promise<void> = Promise.resolve();
  const scan = (): void => {
    busy = busy.then(() => scanOnce(store, sink)).catch((err) => store.log.error('spawn scan failed', err));
  };
  const watcher: FSWatcher = watch(dir, scan);
  watcher.on('error', () => undefined);
  scan();
  return { dispose: () => watcher.close() };
}

async function scanOnce(store: TeamStore, sink: SpawnSink): Promise<void> {
  const dir = store.paths.spawns;
  const names = (await fsp.readdir(dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort();
  for (const name of names) {
    const file = path.join(dir, name);
    const text = await readText(file);
    if (text === undefined) continue;
    const json = parseJson(file, text);
    const parsed = json.ok ? SpawnRequest.safeParse(json.value) : null;
    if (!parsed?.success) {
      const why = json.ok ? parsed!.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ') : json.problem.message;
      await reject(file, `${name}: ${why}`, store, sink);
      continue;
    }
    const req = parsed.data;
    const member: Member = {
      name: req.name, role: req.role, kind: 'teammate', status: 'exited', pid: null, pidStart: null, joinedAt: null, exitCode: null,
      planRequired: false, planApprover: req.requestedBy, tools: null, runtime: 'agent' in req ? 'agent' : 'command', speaksProtocol: 'agent' in req,
    };
    const added = await store.addMember(member);
    if (!added.ok) {
      await reject(file, `${name}: ${added.message}`, store, sink);
      continue;
    }
    await fsp.rm(file, { force: true });
    sink.say(`${req.requestedBy} spawned ${req.name}`);
    await sink.open(req);
  }
}

async function reject(file: string, why: string, store: TeamStore, sink: SpawnSink): Promise<void> {
  store.log.warn(`spawn request refused: ${why}`);
  sink.say(`spawn request refused: ${why}`);
  await fsp.rename(file, `${file}.refused`).catch(() => fsp.rm(file, { force: true }));
}
