/**
 * Making members' worktrees at the start of a run: each is created once (a new branch from base, or
 * the member's branch if an earlier run left it), reused while it stands, and a stale one a crash
 * left behind (registered but gone, or a folder git no longer knows) is pruned or moved aside and
 * made again. New worktrees get the layout's `copy:` files. Setup commands run later, in the
 * member's pane (worktree-setup.ts), so this returns what the pane needs to know.
 */
import { copyFile, lstat, mkdir, rename, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { isFailure, type Git } from '../host/git/repo.js';
import type { WorktreeBook, WorktreeEntry } from '../protocol/worktrees.js';
import { visible } from '../protocol/visible.js';
import { worktreePathIn } from './worktree-place.js';

/** What a run's worktrees are made from. */
export interface WorktreePlan {
  /** The repository's top folder. */
  repo: string;
  /** Its common git folder. */
  commonDir: string;
  team: string;
  /** The branch (or commit) new branches start from. */
  base: string;
  copy: string[];
  /** Members that get a worktree, with their branch names. */
  members: { name: string; branch: string }[];
}

/** One member's worktree, ready for its pane. */
export interface PreparedWorktree {
  member: string;
  path: string;
  branch: string;
  how: 'created' | 'reused' | 'restored';
  /** Where the pane's setup step marks that setup finished (in the worktree's own git folder). */
  setupDone: string;
  /** Things the member should be told in its pane (submodules not checked out, LFS pointers). */
  notes: string[];
}

/** The worktrees, or the first one that could not be made (nothing is started then). */
export type Prepared = { ok: true; worktrees: PreparedWorktree[] } | { ok: false; member: string; message: string; hint: string };

async function exists(p: string): Promise<boolean> {
  return lstat(p).then(() => true, () => false);
}

/** Make or reuse every member's worktree. */
export async function prepareWorktrees(git: Git, plan: WorktreePlan, log: (line: string) => void): Promise<Prepared> {
  const out: PreparedWorktree[] = [];
  const [notes, first] = await Promise.all([repositoryNotes(git, plan.repo), git.worktrees(plan.repo)]);
  let listed = first;
  if (isFailure(listed)) return { ok: false, member: plan.members[0]?.name ?? '', message: listed.message, hint: 'is root a readable git repository?' };
  if (listed.some((w) => w.prunable)) {
    await git.prune(plan.repo);
    listed = await git.worktrees(plan.repo);
    if (isFailure(listed)) return { ok: false, member: plan.members[0]?.name ?? '', message: listed.message, hint: 'is root a readable git repository?' };
  }
  for (const m of plan.members) {
    const where = worktreePathIn(plan.commonDir, plan.team, m.name);
    const known = listed.find((w) => w.path === where);
    let how: PreparedWorktree['how'];
    let branch = m.branch;
    if (known && (await exists(where))) {
      how = 'reused';
      if (known.branch?.startsWith('refs/heads/')) branch = known.branch.slice('refs/heads/'.length);
    } else {
      if (await exists(where)) {
        // A folder git does not know (a crash inside `worktree add`): keep it aside rather than delete what may be work.
        const aside = `${where}.stale-${Date.now()}`;
        await rename(where, aside);
        log(`worktree of ${m.name}: ${where} was not a worktree git knows; moved it to ${aside}`);
      }
      await mkdir(path.dirname(where), { recursive: true, mode: 0o700 });
      if (!(await git.validBranch(plan.repo, m.branch))) return { ok: false, member: m.name, message: `"${visible(m.branch)}" is not a valid branch name (git check-ref-format: no spaces, control characters, "..", "~^:?*[\\")`, hint: 'change worktrees.branch in the layout' };
      const had = await git.branchExists(plan.repo, m.branch);
      const added = await git.addWorktree(plan.repo, where, m.branch, had ? null : plan.base);
      if (added) return { ok: false, member: m.name, message: added.message, hint: had ? `branch ${m.branch} may be checked out elsewhere (git worktree list)` : `check that base ${plan.base} exists` };
      how = had ? 'restored' : 'created';
      await copyInto(plan.repo, where, plan.copy, log);
    }
    log(`worktree of ${m.name}: ${how} at ${where} on branch ${branch}`);
    const gitDir = await git.runner.run(['rev-parse', '--absolute-git-dir'], { cwd: where });
    out.push({ member: m.name, path: where, branch, how, setupDone: path.join(gitDir.stdout.trim() || where, 'teamux-setup-done'), notes });
  }
  return { ok: true, worktrees: out };
}

/** Copy the layout's `copy:` files from root into a new worktree; missing ones, folders and links are skipped. */
async function copyInto(repo: string, worktree: string, files: string[], log: (line: string) => void): Promise<void> {
  for (const rel of files) {
    const from = path.join(repo, rel);
    const st = await lstat(from).catch(() => null);
    if (!st?.isFile()) {
      if (st) log(`worktree copy: skipped ${rel} (not a regular file)`);
      continue;
    }
    const to = path.join(worktree, rel);
    await mkdir(path.dirname(to), { recursive: true });
    await copyFile(from, to);
    await stat(to);
  }
}

/** What a worktree of this repository lacks, said once in each member's pane. */
async function repositoryNotes(git: Git, repo: string): Promise<string[]> {
  const notes: string[] = [];
  const [subs, lfsListed] = await Promise.all([git.submodulePaths(repo), git.runner.run(['grep', '-q', '--cached', '-e', 'filter=lfs', '--', '.gitattributes', '**/.gitattributes'], { cwd: repo })]);
  if (subs.length) notes.push(`this repository has submodules (${subs.slice(0, 3).join(', ')}${subs.length > 3 ? ', …' : ''}); they are not checked out in worktrees: add "git submodule update --init" to worktrees.setup if the member needs them`);
  if (lfsListed.code === 0) {
    const lfs = await git.runner.run(['lfs', 'version'], { cwd: repo });
    if (lfs.code !== 0) notes.push('this repository stores files with Git LFS, which is not installed here: LFS files are checked out as pointer files (install git-lfs and run "git lfs pull" in the worktree)');
  }
  return notes;
}

/** The book after a run made its worktrees: entries for them, earlier entries and events kept. */
export function bookWith(book: WorktreeBook | null, team: string, repo: string, base: string, made: readonly PreparedWorktree[], now: string): WorktreeBook {
  const members: WorktreeEntry[] = (book?.members ?? []).filter((e) => !made.some((w) => w.member === e.member));
  for (const w of made) {
    const old = book?.members.find((e) => e.member === w.member);
    members.push({ member: w.member, path: w.path, branch: w.branch, createdAt: w.how === 'reused' && old ? old.createdAt : now, removedAt: null });
  }
  return { version: 1, team, repo, base, members, events: book?.events ?? [] };
}
