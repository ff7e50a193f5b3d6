/**
 * A run's worktrees, from the screen's side: made (or reused) before the panes start, recorded in
 * the team folder, and retired when the run is over (every member exited): leftover work committed
 * on its branch, the worktree removed, the branch kept unless base has it all. The decisions are the
 * ops' (ops/worktree-*.ts); this composes them for `teamux start`.
 */
import type { NormalizedLayout } from '../config/index.js';
import { branchFor } from '../config/worktrees.js';
import { execGit } from '../host/git/run.js';
import { Git } from '../host/git/repo.js';
import { retireWorktrees } from '../ops/worktree-merge.js';
import { bookWith, prepareWorktrees, type PreparedWorktree } from '../ops/worktree-prepare.js';
import { WorktreeRecord } from '../store/worktrees.js';
import type { TeamStore } from '../store/team.js';
import { UsageError } from './context.js';

/** The git teamux's verbs use. */
export function cliGit(env: NodeJS.ProcessEnv): Git {
  return new Git(execGit(env));
}

/** The layout check's view of the repository. */
export function repoProbe(env: NodeJS.ProcessEnv): { toplevel(dir: string): string | null; hasCommit(dir: string, ref: string): boolean } {
  const git = cliGit(env);
  return { toplevel: (d) => git.toplevelSync(d), hasCommit: (d, r) => git.hasCommitSync(d, r) };
}

/** Make the layout's worktrees (none without `worktrees:`); a UsageError when one cannot be made. */
export async function prepareRunWorktrees(layout: NormalizedLayout, store: TeamStore, env: NodeJS.ProcessEnv): Promise<Map<string, PreparedWorktree>> {
  const w = layout.worktrees;
  const members = [layout.lead, ...layout.teammates].filter((m) => m.worktree);
  if (!w || members.length === 0) return new Map();
  const git = cliGit(env);
  const repo = git.toplevelSync(layout.root);
  const commonDir = git.commonDirSync(layout.root);
  if (!repo || !commonDir) throw new UsageError(`root "${layout.root}" is not inside a git repository, so members cannot get worktrees`, 'run teamux validate on the layout');
  const record = new WorktreeRecord(store.dir);
  const old = await record.read();
  // The base: the layout's, else the one an earlier run of this team used, else the branch at root now.
  const base = w.base ?? (old.ok && old.book ? old.book.base : git.currentBranchSync(layout.root));
  if (!base) throw new UsageError(`root "${layout.root}" has a detached HEAD, so there is no branch for members' work to merge into`, 'check out a branch in root, or set worktrees.base in the layout');
  const plan = { repo, commonDir, team: layout.name, base, copy: w.copy, members: members.map((m) => ({ name: m.name, branch: branchFor(w.branchTemplate, layout.name, m.name) })) };
  const made = await prepareWorktrees(git, plan, (line) => store.log.info(line));
  if (!made.ok) throw new UsageError(`cannot make the worktree of ${made.member}: ${made.message}`, made.hint);
  await record.update((book) => bookWith(book, layout.name, repo, base, made.worktrees, new Date().toISOString()));
  return new Map(made.worktrees.map((x) => [x.member, x]));
}

/** Retire the run's worktrees if every member has exited; what happened goes to the team log. */
export async function retireRunWorktrees(store: TeamStore, env: NodeJS.ProcessEnv): Promise<void> {
  const record = new WorktreeRecord(store.dir);
  const book = await record.read();
  if (!book.ok || !book.book || book.book.members.every((m) => m.removedAt !== null)) return;
  const alive = (await store.roster()).filter((m) => m.reportedStatus !== 'exited');
  if (alive.length > 0) {
    store.log.info(`worktrees kept: ${alive.map((m) => m.name).join(', ')} still running`);
    return;
  }
  const r = await retireWorktrees(cliGit(env), record);
  if (!r.ok) store.log.warn(`worktrees not retired: ${r.message}`);
  else for (const x of r.value) store.log.info(`worktree of ${x.member}: ${x.removed ? 'removed' : `kept (${x.problem ?? 'unknown'})`}${x.committedFirst ? ', its uncommitted work committed first' : ''}; branch ${x.branch} ${x.branchKept ? 'kept' : 'deleted (merged)'}`);
}
