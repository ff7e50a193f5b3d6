/**
 * Archived teams: a finished team folder moved whole to `<root>/.teamux/archive/<team>-<time>/`, so
 * the next run starts fresh, CLI discovery finds one team again, and `teamux report` can still read
 * the old run. The move is one rename within `.teamux/` (same file system); nothing is copied or
 * deleted. Whether the team is finished (no screen, no member alive) is the caller's check.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { checkFolderSync, ensureDir } from './fsx.js';

/** The name of the folder under `.teamux/` that holds archived teams. */
export const ARCHIVE_FOLDER = 'archive';

/** A time as a folder-name stamp: 20261201-154703 (UTC). */
export function archiveStamp(at: Date): string {
  return at.toISOString().replace(/\.\d+Z$/, '').replace(/[-:]/g, '').replace('T', '-');
}

/**
 * Move the team folder `dir` to `<parent of dir>/archive/<team>-<stamp>/` (a `-2`, `-3`… suffix when
 * that exists already); returns the new path. The archive folder must be a real folder, not a link.
 */
export async function archiveTeamFolder(dir: string, team: string, at = new Date()): Promise<string> {
  const archive = path.join(path.dirname(dir), ARCHIVE_FOLDER);
  await ensureDir(archive);
  checkFolderSync(archive);
  const base = `${team}-${archiveStamp(at)}`;
  for (let n = 1; ; n++) {
    const target = path.join(archive, n === 1 ? base : `${base}-${n}`);
    try {
      // mkdir claims the name (atomically, against a racing archive); rename then replaces the empty folder.
      await fsp.mkdir(target, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && n < 1000) continue;
      throw err;
    }
    await fsp.rename(dir, target);
    return target;
  }
}
