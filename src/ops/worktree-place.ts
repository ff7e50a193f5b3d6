/**
 * Where a member's worktree lives, the one rule every part uses (the screen that makes it, the CLI,
 * the sandbox that lets the member write only there): under the repository's shared git folder,
 * `<git common dir>/teamux/worktrees/<team>/<member>`, outside the checkout's tree, so tools that
 * walk the repository (and the team folder under root) never see another member's copy.
 */
import * as path from 'node:path';
import { NAME_PATTERN } from '../protocol/types.js';
import type { Git } from '../host/git/repo.js';

/** The folder holding a team's worktrees, given the repository's common git folder. */
export function teamWorktreesDir(commonDir: string, team: string): string {
  if (!NAME_PATTERN.test(team)) throw new Error(`unsafe team name ${JSON.stringify(team)}`);
  return path.join(commonDir, 'teamux', 'worktrees', team);
}

/** A member's worktree folder, given the repository's common git folder. */
export function worktreePathIn(commonDir: string, team: string, member: string): string {
  if (!NAME_PATTERN.test(member)) throw new Error(`unsafe member name ${JSON.stringify(member)}`);
  return path.join(teamWorktreesDir(commonDir, team), member);
}

/**
 * The worktree folder of `member` of `team` whose root is `root` (whether or not it exists yet), or
 * null when root is in no git repository. The sandbox makes this the only part of the repository
 * the member can write (with the git folder parts a commit writes: see docs/worktrees.md).
 */
export function memberWorktreePath(git: Git, root: string, team: string, member: string): string | null {
  const common = git.commonDirSync(root);
  return common === null ? null : worktreePathIn(common, team, member);
}
