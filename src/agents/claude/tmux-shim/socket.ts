/**
 * Where the tmux stand-in's unix socket (and the screen's enrolment socket) lives: `tmux.sock` in the team folder, unless that path is
 * too long for a unix socket address (108 bytes on Linux, counting the final NUL); then a short
 * name under a private folder in the temp directory, derived from the team folder so it is stable.
 * Pure: the caller creates the folder.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';

/** The longest socket path that fits sockaddr_un on Linux and macOS (104) alike. */
export const MAX_SOCKET_PATH = 103;

/** The socket path for a team folder; `tag` tells a team's sockets apart in the short form (`<hash>-<tag>.sock`). */
export function shimSocketPath(inTeamFolder: string, teamDir: string, tmpdir: string, uid: number, tag = ''): string {
  if (Buffer.byteLength(inTeamFolder) <= MAX_SOCKET_PATH) return inTeamFolder;
  const hash = createHash('sha256').update(teamDir).digest('hex').slice(0, 16);
  return path.join(tmpdir, `teamux-${uid}`, `${hash}${tag ? `-${tag}` : ''}.sock`);
}
