/**
 * A team folder opened for one short CLI path, without the store's module graph (no zod): the inbox
 * of `teamux inbox read` and the board of `teamux task claim`. It owns nothing; it says whether the
 * folder is in the plain state where that is safe, and returns null for anything else (no team.json,
 * a file that does not parse, a guarded path that is a link, a folder that would be warned about, the
 * local folder of a NATS team), so the caller takes the full path, which reports each of those.
 * Its file calls are synchronous: a CLI call has nothing else to do meanwhile, and on a loaded machine
 * each thread-pool round trip of the async API waits for a CPU.
 */
import { existsSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { checkFileSync, checkFolderSync, folderWarnings, readTextSync } from './fsx.js';
import { TeamPaths } from './paths.js';

/** The version of team.json this reader knows (types.ts's PROTOCOL_VERSION; a test keeps them equal). */
export const QUICK_PROTOCOL_VERSION = 1;

/** A folder team's paths and its team.json as parsed JSON, or null when the full store must open it. */
export function quickFolder(dir: string): { paths: TeamPaths; config: unknown } | null {
  try {
    const real = realpathSync.native(path.resolve(dir));
    const paths = new TeamPaths(real);
    for (const sub of paths.guardedFolders) checkFolderSync(sub);
    for (const file of paths.guardedFiles) checkFileSync(file);
    if (folderWarnings(real).length > 0) return null;
    // A NATS team's local folder (store/select.ts's STORE_MARKER): the full path opens the server.
    if (existsSync(path.join(real, 'store.json'))) return null;
    const text = readTextSync(paths.config, 'roster');
    if (text === undefined) return null;
    return { paths, config: JSON.parse(text) as unknown };
  } catch {
    return null;
  }
}
