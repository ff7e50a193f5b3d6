/**
 * A team folder opened for one member's inbox only, without the store's module graph (no zod, no
 * locks): the short path of `teamux inbox read`. It owns nothing; it returns null when the folder is
 * not in the plain state where that is safe (store/quick-folder.ts) or the member is not on the
 * roster, so the caller takes the full path, which reports each of those with its message.
 */
import { NAME_PATTERN } from '../protocol/message-line.js';
import { Mailbox } from './inbox.js';
import { QUICK_PROTOCOL_VERSION, quickFolder } from './quick-folder.js';

export { QUICK_PROTOCOL_VERSION };

/** The mailbox of the team folder `dir` for `member`, or null when the full store must open it. */
export async function quickMailbox(dir: string, member: string): Promise<Mailbox | null> {
  if (!NAME_PATTERN.test(member)) return null;
  const folder = quickFolder(dir);
  if (!folder) return null;
  const cfg = folder.config as { version?: unknown; name?: unknown; members?: unknown } | null;
  if (cfg === null || typeof cfg !== 'object' || cfg.version !== QUICK_PROTOCOL_VERSION || typeof cfg.name !== 'string' || !Array.isArray(cfg.members)) return null;
  const members = cfg.members as Array<{ name?: unknown } | null>;
  if (!members.some((m) => m !== null && typeof m === 'object' && m.name === member)) return null;
  return new Mailbox(folder.paths);
}
