/**
 * One multiplexer per team: `mux.json` in the team folder records the pid of the teamux process
 * that owns the screen. A second `teamux start` on a live team is refused with a hint; a stale
 * file (its pid gone) is taken over.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { parseJson, readText, writeJson } from '../store/fsx.js';
import { pidAlive, processStartTime } from '../store/liveness.js';
import type { TeamStore } from '../store/team.js';

/** The owner record. */
export interface MuxRecord {
  pid: number;
  pidStart: number | null;
  backend: 'pty' | 'tmux';
  startedAt: string;
}

/** Path of the owner record. */
export function muxFile(store: TeamStore): string {
  return path.join(store.dir, 'mux.json');
}

/** Read the owner record if its process is alive. */
export async function liveMux(store: TeamStore): Promise<MuxRecord | null> {
  const text = await readText(muxFile(store));
  if (text === undefined) return null;
  const json = parseJson(muxFile(store), text);
  if (!json.ok) return null;
  const rec = json.value as MuxRecord;
  return typeof rec.pid === 'number' && pidAlive(rec.pid, rec.pidStart ?? null) && rec.pid !== process.pid ? rec : null;
}

/** Become the team's multiplexer, or say who already is. */
export async function claimMuxLock(store: TeamStore, backend: 'pty' | 'tmux'): Promise<{ ok: true; release: () => Promise<void> } | { ok: false; message: string; hint: string }> {
  const other = await liveMux(store);
  if (other) {
    return {
      ok: false,
      message: `team is already running in another teamux (pid ${other.pid}, ${other.backend} backend, since ${other.startedAt})`,
      hint: other.backend === 'tmux' ? 'use `teamux attach` to open it here' : 'switch to that terminal, or quit it first',
    };
  }
  await writeJson(muxFile(store), { pid: process.pid, pidStart: processStartTime(process.pid), backend, startedAt: new Date().toISOString() } satisfies MuxRecord);
  return {
    ok: true,
    release: async () => {
      const text = await readText(muxFile(store));
      if (text && text.includes(`"pid": ${process.pid},`)) await fsp.rm(muxFile(store), { force: true });
    },
  };
}
