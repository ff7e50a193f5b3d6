/**
 * A team folder opened for one member's inbox only, without the store's module graph (no zod, no
 * locks): the short path of `teamux inbox read`. It owns nothing; it says whether the folder is in
 * the plain state where that is safe, and returns null for anything else (no team.json, a file that
 * does not parse, a member not on the roster, a guarded path that is a link, a folder that would be
 * warned about), so the caller takes the full path, which reports each of those with its message.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { NAME_PATTERN } from '../protocol/message-line.js';
import { checkFileSync, checkFolderSync, folderWarnings, readText } from './fsx.js';
import { Mailbox } from './inbox.js';
import { TeamPaths } from './paths.js';

/** The version of team.json this reader knows (types.ts's PROTOCOL_VERSION; a test keeps them equal). */
export const QUICK_PROTOCOL_VERSION = 1;

/** The mailbox of the team folder `dir` for `member`, or null when the full store must open it. */
export async function quickMailbox(dir: string, member: string): Promise<Mailbox | null> {
  if (!NAME_PATTERN.test(member)) return null;
  try {
    const real = await fsp.realpath(path.resolve(dir));
    const paths = new TeamPaths(real);
    for (const sub of paths.guardedFolders) checkFolderSync(sub);
    for (const file of paths.guardedFiles) checkFileSync(file);
    if (folderWarnings(real).length > 0) return null;
    const text = await readText(paths.config);
    if (text === undefined) return null;
    const cfg = JSON.parse(text) as { version?: unknown; name?: unknown; members?: unknown };
    if (cfg === null || typeof cfg !== 'object' || cfg.version !== QUICK_PROTOCOL_VERSION || typeof cfg.name !== 'string' || !Array.isArray(cfg.members)) return null;
    const members = cfg.members as Array<{ name?: unknown } | null>;
    if (!members.some((m) => m !== null && typeof m === 'object' && m.name === member)) return null;
    return new Mailbox(paths);
  } catch {
    return null;
  }
}
