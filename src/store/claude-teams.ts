/**
 * Claude Code's own agent teams (a `native_teams` lead), as far as teamux's files go: the `tmux`
 * stand-in script teamux puts first on the lead's PATH (`<exec folder>/tmux/tmux`, outside the team folder), and the folder of its
 * socket when that has to live outside the team folder. Claude Code's own team files under the
 * lead's HOME are read (never written) by claude-team-files.ts.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { claudeFilesOf } from './claude.js';
import { writeExecScript } from './exec-folder.js';
import { DIR_MODE, ensureDir, writeJson } from './fsx.js';
import type { TeamPaths } from './paths.js';

/** Write the stand-in script (mode 0500, alone in its folder of the exec folder) and return its path. */
export async function writeTmuxShim(paths: TeamPaths, script: string): Promise<string> {
  return (await writeExecScript(paths.exec, tmuxShimFile(paths), script)).file;
}

/** The stand-in's path. */
export function tmuxShimFile(paths: TeamPaths): string {
  return path.join(paths.tmuxShimBin, 'tmux');
}

/** Make the private folder a socket outside the team folder lives in (see tmux-shim/socket.ts). */
export async function ensureSocketFolder(socket: string): Promise<void> {
  await fsp.mkdir(path.dirname(socket), { recursive: true, mode: DIR_MODE });
}

/** Write a Claude Code teammate's own MCP config (`teamux mcp` speaking as it) and return its path. */
export async function writeTeammateMcp(paths: TeamPaths, member: string, mcp: unknown): Promise<string> {
  const file = claudeFilesOf(paths, member).mcp;
  await ensureDir(paths.claude);
  await ensureDir(path.dirname(file));
  await writeJson(file, mcp);
  return file;
}
