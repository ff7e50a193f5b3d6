/**
 * One tmux stand-in bridge process per team: `tmux-bridge.pid` in the team folder holds the pid (and
 * its kernel start time) of the process serving the stand-in's socket. The file is created
 * exclusively, so two bridges starting at once cannot both win; a file whose process is gone (a crash)
 * is taken over. Owns that file only.
 */
import { promises as fsp } from 'node:fs';
import { pidAlive, processStartTime } from './liveness.js';
import { readText } from './fsx.js';

/** Who holds the lock. */
export interface BridgeHolder {
  pid: number;
  pidStart: number | null;
}

/** The live holder recorded in `file`, or null. */
export async function bridgeHolder(file: string): Promise<BridgeHolder | null> {
  const text = await readText(file, 'record').catch(() => undefined) ?? '';
  const [pid, start] = text.trim().split(' ').map(Number);
  if (!pid || !Number.isInteger(pid)) return null;
  const holder = { pid, pidStart: Number.isFinite(start) && start! > 0 ? start! : null };
  return pidAlive(holder.pid, holder.pidStart) ? holder : null;
}

/** Take the lock for this process, or say who holds it; release removes the file if it is still ours. */
export async function claimBridgeLock(file: string): Promise<{ ok: true; release: () => Promise<void> } | { ok: false; holder: BridgeHolder }> {
  const mine = `${process.pid} ${processStartTime(process.pid) ?? 0}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await fsp.writeFile(file, mine, { flag: 'wx', mode: 0o600 });
      return {
        ok: true,
        release: async () => {
          if ((await readText(file, 'record').catch(() => undefined) ?? '') === mine) await fsp.rm(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = await bridgeHolder(file);
    if (holder) return { ok: false, holder };
    // A crashed bridge's file: remove it and try again (another starter may win the next round).
    await fsp.rm(file, { force: true });
  }
  const holder = await bridgeHolder(file);
  if (holder) return { ok: false, holder };
  throw new Error(`${file} could not be taken (it keeps coming back)`);
}
