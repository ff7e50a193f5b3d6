/**
 * A Codex CLI member's files in the team folder: under `codex/<member>/`, `home/` is its CODEX_HOME
 * (config.toml and hooks.json written by teamux at every start; Codex keeps its sessions, rollouts
 * and state there too) and `tmp/` its TMPDIR. Nothing is written to the user's ~/.codex or the
 * project's .codex/.
 */
import * as path from 'node:path';
import { atomicWrite, ensureDir, writeJson } from './fsx.js';
import type { TeamPaths } from './paths.js';

/** Where a member's Codex folders are. */
export function codexDirsOf(paths: TeamPaths, member: string): { home: string; tmp: string } {
  const dir = paths.codexMember(member);
  return { home: path.join(dir, 'home'), tmp: path.join(dir, 'tmp') };
}

/** Write a member's config.toml and hooks.json (its folders made first). */
export async function writeCodexFiles(paths: TeamPaths, member: string, content: { configToml: string; hooks: unknown }): Promise<{ home: string; tmp: string }> {
  const dirs = codexDirsOf(paths, member);
  await ensureDir(dirs.home);
  await ensureDir(dirs.tmp);
  await atomicWrite(path.join(dirs.home, 'config.toml'), content.configToml);
  await writeJson(path.join(dirs.home, 'hooks.json'), content.hooks);
  return dirs;
}
