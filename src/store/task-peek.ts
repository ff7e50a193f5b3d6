/**
 * A cheap look at a task file without the board lock: one synchronous read and a bare JSON parse of a
 * small file, shared by the board (store/tasks.ts) and the CLI's short claim (store/quick-claim.ts).
 * It only decides whether taking the lock is worth it; the claim under the lock checks properly.
 */
import { readTextSync } from './fsx.js';
import type { TeamPaths } from './paths.js';

/** Whether task `id` looks free to claim (pending, no owner); false for a missing or unreadable file. */
export function looksClaimable(paths: TeamPaths, id: string): boolean {
  try {
    const t = JSON.parse(readTextSync(paths.task(id), 'record') ?? 'null') as { owner?: unknown; status?: unknown };
    return t.owner === null && t.status === 'pending';
  } catch {
    return false;
  }
}
