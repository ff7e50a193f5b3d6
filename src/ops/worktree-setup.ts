/**
 * A member's pane when it has a worktree: it starts in the worktree (its `cwd:` taken relative to
 * it), and when the layout has setup commands, the pane first runs them there, their output on the
 * pane, under a small sh wrapper that then `exec`s the member's own command (same process, same pid,
 * so signals and the shutdown handshake are unchanged). Setup runs once per worktree: the wrapper
 * marks it done in the worktree's git folder, and a setup that failed (or was cut off) runs again on
 * the next start. A failing command stops the pane there with the failure said; the member is not
 * started on a half-made worktree. Command texts, names and paths reach sh as arguments, never as
 * script text.
 */
import * as path from 'node:path';
import type { PreparedWorktree } from './worktree-prepare.js';

/** The part of a launch this rewrites. */
export interface LaunchLine {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/** The exit code of a pane whose setup failed. */
export const SETUP_FAILED_EXIT = 97;

/**
 * $1: notes to print, $2: how many setup commands follow, then the commands, then the member's argv.
 * TEAMUX_WORKTREE is the worktree, TEAMUX_SETUP_DONE the mark.
 */
export const SETUP_SCRIPT = [
  'notes=$1; n=$2; shift 2',
  '[ -n "$notes" ] && printf "teamux: %s\\n" "$notes"',
  'if [ -e "$TEAMUX_SETUP_DONE" ]; then shift "$n"; else',
  '  [ "$n" -gt 0 ] && printf "teamux: setting up the worktree of %s (%s command(s))\\n" "$TEAMUX_MEMBER" "$n"',
  '  i=0',
  '  while [ "$i" -lt "$n" ]; do',
  '    i=$((i + 1)); c=$1; shift',
  '    printf "teamux: $ %s\\n" "$c"',
  '    (cd "$TEAMUX_WORKTREE" && sh -c "$c"); rc=$?',
  `    if [ "$rc" -ne 0 ]; then printf "teamux: setup failed: \\"%s\\" exited %s; %s was not started (fix it, then restart the member)\\n" "$c" "$rc" "$TEAMUX_MEMBER"; exit ${SETUP_FAILED_EXIT}; fi`,
  '  done',
  '  : > "$TEAMUX_SETUP_DONE" || exit 1',
  'fi',
  'exec "$@"',
].join('\n');

/** Where a member starts in its worktree: its root-relative cwd, moved into the worktree. */
export function cwdInWorktree(cwd: string, root: string, worktree: string): string {
  const rel = path.relative(root, cwd);
  return rel.startsWith('..') || path.isAbsolute(rel) ? cwd : path.join(worktree, rel);
}

/** The member's launch in its worktree, with the setup step in front when there is anything to do or say. */
export function launchInWorktree<L extends LaunchLine>(launch: L, root: string, wt: PreparedWorktree, setup: readonly string[]): L {
  const cwd = cwdInWorktree(launch.cwd, root, wt.path);
  const env = { ...launch.env, TEAMUX_WORKTREE: wt.path, TEAMUX_SETUP_DONE: wt.setupDone, TEAMUX_BRANCH: wt.branch };
  if (setup.length === 0 && wt.notes.length === 0) return { ...launch, cwd, env };
  const args = ['-c', SETUP_SCRIPT, 'teamux-setup', wt.notes.join('\nteamux: '), String(setup.length), ...setup, launch.command, ...launch.args];
  return { ...launch, command: '/bin/sh', args, cwd, env };
}
