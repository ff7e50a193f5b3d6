/**
 * The spawn queue `<team>/spawn/`: the lead's requests for new teammates (format: protocol/spawn.ts),
 * written here and read here. A request is one file `<epoch-ms>-<name>.json`, written atomically (a
 * temp file whose name starts with '.', then a rename), so a reader never sees half of one. The
 * reader takes requests oldest first; a taken request is removed, a bad one renamed to `.refused`
 * so it is not read again.
 */
import { promises as fsp, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import { SpawnRequest } from '../protocol/spawn.js';
import { ensureDir, parseJson, readText, writeJson } from './fsx.js';
import type { TeamPaths } from './paths.js';

/** One file in the queue, read and checked. */
export type QueuedSpawn = { file: string; name: string } & ({ ok: true; request: SpawnRequest } | { ok: false; why: string });

/** The file name of a request made at `time` (ms) for `name`. */
export function spawnFileName(name: string, time: number): string {
  return `${time}-${name}.json`;
}

/** The spawn queue of one team folder. */
export class SpawnQueue {
  constructor(private readonly paths: TeamPaths) {}

  /** Write a spawn request into the queue; returns its path. */
  async write(req: SpawnRequest): Promise<string> {
    return writeSpawnRequest(this.paths.spawns, req);
  }

  /** Every request waiting, oldest first, each parsed and checked (a bad one says why). */
  async pending(): Promise<QueuedSpawn[]> {
    const dir = this.paths.spawns;
    await ensureDir(dir);
    const names = (await fsp.readdir(dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort();
    const out: QueuedSpawn[] = [];
    for (const name of names) {
      const file = path.join(dir, name);
      const text = await readText(file, 'record');
      if (text === undefined) continue;
      const json = parseJson(file, text);
      const parsed = json.ok ? SpawnRequest.safeParse(json.value) : null;
      if (parsed?.success) out.push({ file, name, ok: true, request: parsed.data });
      else out.push({ file, name, ok: false, why: json.ok ? parsed!.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ') : json.problem.message });
    }
    return out;
  }

  /** Remove a request that has been acted on. */
  async done(q: QueuedSpawn): Promise<void> {
    await fsp.rm(q.file, { force: true });
  }

  /** Set a refused request aside (renamed to `.refused`), so it is not read again. */
  async refuse(q: QueuedSpawn): Promise<void> {
    await fsp.rename(q.file, `${q.file}.refused`).catch(() => fsp.rm(q.file, { force: true }));
  }

  /** Call `changed` whenever something lands in the queue folder; returns the watcher to close. */
  async watch(changed: () => void): Promise<FSWatcher> {
    await ensureDir(this.paths.spawns);
    const w = watch(this.paths.spawns, changed);
    w.on('error', () => undefined);
    return w;
  }
}

/** Write a spawn request into a team's spawn folder; returns its path. */
export async function writeSpawnRequest(folder: string, req: SpawnRequest): Promise<string> {
  await ensureDir(folder);
  const file = path.join(folder, spawnFileName(req.name, Date.parse(req.time)));
  await writeJson(file, SpawnRequest.parse(req));
  return file;
}
