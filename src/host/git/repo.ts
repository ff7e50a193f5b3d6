/**
 * The git commands teamux's worktree features are made of, one method each, on a `GitRunner` (real
 * git in tests, as everywhere). A method returns parsed values or a `GitFailure` carrying git's own
 * words; nothing throws for what a repository can be in. Arguments that may be a user's or a
 * model's (branches, paths) are always passed after `--` or as option values, never to a shell.
 */
import { parseMergeTree, parseNumstat, parseStatus, parseWorktreeList, type FileChange, type ListedWorktree, type MergeTree, type StatusEntry } from './parse.js';
import type { GitCall, GitResult, GitRunner } from './run.js';

/** A git command that failed, in git's words. */
export interface GitFailure {
  failed: true;
  message: string;
}

/** Whether a value is a failure. */
export function isFailure(v: unknown): v is GitFailure {
  return typeof v === 'object' && v !== null && (v as GitFailure).failed === true;
}

function failure(what: string, r: GitResult): GitFailure {
  const said = (r.stderr || r.stdout).trim().split('\n').filter(Boolean).slice(-3).join('; ');
  return { failed: true, message: `${what}: ${said || `git exited ${r.code}`}` };
}

/** Who commits when the repository names nobody (git refuses to guess on many machines). */
const FALLBACK_IDENTITY = { GIT_AUTHOR_NAME: 'teamux', GIT_AUTHOR_EMAIL: 'teamux@localhost', GIT_COMMITTER_NAME: 'teamux', GIT_COMMITTER_EMAIL: 'teamux@localhost' };

/** git, on one runner. */
export class Git {
  constructor(readonly runner: GitRunner) {}

  private run(args: string[], call: GitCall): Promise<GitResult> {
    return this.runner.run(args, call);
  }

  /** The top of the work tree `dir` is in, or null outside a repository. */
  toplevelSync(dir: string): string | null {
    const r = this.runner.runSync(['rev-parse', '--show-toplevel'], { cwd: dir });
    return r.code === 0 ? r.stdout.trim() : null;
  }

  /** Shared git folders already asked for, by folder (it does not change while teamux runs). */
  private readonly commonDirs = new Map<string, string>();

  /** The repository's shared git folder (`.git` of the main checkout), absolute. */
  commonDirSync(dir: string): string | null {
    const known = this.commonDirs.get(dir);
    if (known !== undefined) return known;
    const r = this.runner.runSync(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: dir });
    if (r.code !== 0) return null;
    this.commonDirs.set(dir, r.stdout.trim());
    return r.stdout.trim();
  }

  /** Whether `ref` names a commit. */
  hasCommitSync(dir: string, ref: string): boolean {
    return this.runner.runSync(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { cwd: dir }).code === 0;
  }

  /** The branch checked out at `dir` (short name), or null when HEAD is detached. */
  currentBranchSync(dir: string): string | null {
    const r = this.runner.runSync(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: dir });
    return r.code === 0 ? r.stdout.trim() : null;
  }

  /** Whether `name` is a valid branch name. */
  async validBranch(dir: string, name: string): Promise<boolean> {
    return (await this.run(['check-ref-format', '--branch', name], { cwd: dir })).code === 0 && !name.startsWith('-');
  }

  /** The commit `ref` names, or null. */
  async revParse(dir: string, ref: string): Promise<string | null> {
    const r = await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { cwd: dir });
    return r.code === 0 ? r.stdout.trim() : null;
  }

  /** Whether branch `name` exists. */
  async branchExists(dir: string, name: string): Promise<boolean> {
    return (await this.run(['show-ref', '--verify', '--quiet', `refs/heads/${name}`], { cwd: dir })).code === 0;
  }

  /** The worktrees git knows of. */
  async worktrees(dir: string): Promise<ListedWorktree[] | GitFailure> {
    const r = await this.run(['worktree', 'list', '--porcelain', '-z'], { cwd: dir });
    return r.code === 0 ? parseWorktreeList(r.stdout) : failure('git worktree list', r);
  }

  /** Add a worktree at `path` on `branch`: a new branch from `base`, or (base null) the existing branch. */
  async addWorktree(dir: string, path: string, branch: string, base: string | null): Promise<GitFailure | null> {
    const args = base === null ? ['worktree', 'add', '--quiet', '--', path, branch] : ['worktree', 'add', '--quiet', '-b', branch, '--', path, base];
    const r = await this.run(args, { cwd: dir });
    return r.code === 0 ? null : failure('git worktree add', r);
  }

  /** Remove the worktree at `path` (force: even with changes in it). */
  async removeWorktree(dir: string, path: string, force: boolean): Promise<GitFailure | null> {
    const r = await this.run(['worktree', 'remove', ...(force ? ['--force', '--force'] : []), '--', path], { cwd: dir });
    return r.code === 0 ? null : failure('git worktree remove', r);
  }

  /** Forget worktrees whose folders are gone. */
  async prune(dir: string): Promise<void> {
    await this.run(['worktree', 'prune'], { cwd: dir });
  }

  /** The best common ancestor of two commits, or null. */
  async mergeBase(dir: string, a: string, b: string): Promise<string | null> {
    const r = await this.run(['merge-base', '--end-of-options', a, b], { cwd: dir });
    return r.code === 0 ? r.stdout.trim() : null;
  }

  /** Whether `a` is an ancestor of (or is) `b`. */
  async isAncestor(dir: string, a: string, b: string): Promise<boolean> {
    return (await this.run(['merge-base', '--is-ancestor', '--end-of-options', a, b], { cwd: dir })).code === 0;
  }

  /** How many commits `to` has that `from` does not. */
  async countCommits(dir: string, from: string, to: string): Promise<number> {
    const r = await this.run(['rev-list', '--count', `${from}..${to}`], { cwd: dir });
    return r.code === 0 ? Number(r.stdout.trim()) : 0;
  }

  /** Per-file line counts of the work tree at `dir` against its merge base with `base` (tracked files, renames found). */
  async numstat(dir: string, base: string): Promise<FileChange[] | GitFailure> {
    const r = await this.run(['diff', '--no-ext-diff', '--no-textconv', '-M', '-z', '--numstat', '--merge-base', base, '--'], { cwd: dir });
    return r.code === 0 ? parseNumstat(r.stdout) : failure('git diff --numstat', r);
  }

  /** Per-file line counts between two commits. */
  async numstatBetween(dir: string, a: string, b: string): Promise<FileChange[] | GitFailure> {
    const r = await this.run(['diff', '--no-ext-diff', '--no-textconv', '-M', '-z', '--numstat', a, b, '--'], { cwd: dir });
    return r.code === 0 ? parseNumstat(r.stdout) : failure('git diff --numstat', r);
  }

  /** The unified diff between two commits. */
  async patchBetween(dir: string, a: string, b: string): Promise<string | GitFailure> {
    const r = await this.run(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', a, b, '--'], { cwd: dir });
    return r.code === 0 ? r.stdout : failure('git diff', r);
  }

  /** Untracked files that are not ignored. */
  async untracked(dir: string): Promise<string[] | GitFailure> {
    const r = await this.run(['ls-files', '-z', '--others', '--exclude-standard'], { cwd: dir });
    return r.code === 0 ? r.stdout.split('\0').filter(Boolean) : failure('git ls-files', r);
  }

  /** The unified diff of the work tree at `dir` against its merge base with `base`, for tracked files. */
  async patch(dir: string, base: string): Promise<string | GitFailure> {
    const r = await this.run(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', '--merge-base', base, '--'], { cwd: dir });
    return r.code === 0 ? r.stdout : failure('git diff', r);
  }

  /** A new file's diff (`/dev/null` to `path`); git exits 1 when they differ, which they do. */
  async newFilePatch(dir: string, path: string): Promise<string> {
    const r = await this.run(['diff', '--no-color', '--no-ext-diff', '--no-index', '--', '/dev/null', path], { cwd: dir });
    return r.code <= 1 ? r.stdout : '';
  }

  /** `status --porcelain`: changes staged and unstaged (untracked files too unless `tracked`). */
  async status(dir: string, tracked = false): Promise<StatusEntry[] | GitFailure> {
    const r = await this.run(['status', '--porcelain', '-z', ...(tracked ? ['--untracked-files=no'] : [])], { cwd: dir });
    return r.code === 0 ? parseStatus(r.stdout) : failure('git status', r);
  }

  /** The environment a commit needs: none when the repository names who commits, else teamux's. */
  private async identity(dir: string): Promise<Record<string, string>> {
    return (await this.run(['var', 'GIT_COMMITTER_IDENT'], { cwd: dir })).code === 0 ? {} : FALLBACK_IDENTITY;
  }

  /** Commit everything in the work tree at `dir` (new files too); null also when there was nothing to commit. */
  async commitAll(dir: string, message: string): Promise<GitFailure | null> {
    const add = await this.run(['add', '-A', '--', '.'], { cwd: dir });
    if (add.code !== 0) return failure('git add', add);
    const staged = await this.run(['diff', '--cached', '--quiet'], { cwd: dir });
    if (staged.code === 0) return null;
    const r = await this.run(['commit', '--quiet', '--no-verify', '-F', '-'], { cwd: dir, input: message, env: await this.identity(dir) });
    return r.code === 0 ? null : failure('git commit', r);
  }

  /** Merge two commits in memory (writes objects only; no work tree, index or ref is touched). */
  async mergeTree(dir: string, ours: string, theirs: string): Promise<MergeTree | GitFailure> {
    const r = await this.run(['merge-tree', '--write-tree', '--name-only', '-z', '--end-of-options', ours, theirs], { cwd: dir });
    const parsed = r.code <= 1 ? parseMergeTree(r.stdout, r.code) : null;
    return parsed ?? failure('git merge-tree', r);
  }

  /** A commit of `tree` with these parents. */
  async commitTree(dir: string, tree: string, parents: string[], message: string): Promise<string | GitFailure> {
    const r = await this.run(['commit-tree', ...parents.flatMap((p) => ['-p', p]), '-F', '-', tree], { cwd: dir, input: message, env: await this.identity(dir) });
    return r.code === 0 ? r.stdout.trim() : failure('git commit-tree', r);
  }

  /** Move the checked-out branch at `dir` forward to `commit`, updating index and files (refused if that would lose anything). */
  async fastForward(dir: string, commit: string): Promise<GitFailure | null> {
    const r = await this.run(['merge', '--ff-only', '--quiet', '--no-edit', commit], { cwd: dir });
    return r.code === 0 ? null : failure('git merge --ff-only', r);
  }

  /** Point `ref` at `commit`. */
  async updateRef(dir: string, ref: string, commit: string, message: string): Promise<GitFailure | null> {
    const r = await this.run(['update-ref', '-m', message, ref, commit], { cwd: dir });
    return r.code === 0 ? null : failure('git update-ref', r);
  }

  /** Make the work tree at `dir` exactly `commit`: index, tracked files, and no untracked (unignored) files. */
  async resetHard(dir: string, commit: string): Promise<GitFailure | null> {
    const r = await this.run(['reset', '--quiet', '--hard', commit], { cwd: dir });
    if (r.code !== 0) return failure('git reset --hard', r);
    const c = await this.run(['clean', '-fdq'], { cwd: dir });
    return c.code === 0 ? null : failure('git clean', c);
  }

  /** Move the branch at `dir` to `commit`, keeping uncommitted changes (refused where they would be lost). */
  async resetKeep(dir: string, commit: string): Promise<GitFailure | null> {
    const r = await this.run(['reset', '--quiet', '--keep', commit], { cwd: dir });
    return r.code === 0 ? null : failure('git reset --keep', r);
  }

  /** Delete branch `name` (force: even if not merged). */
  async deleteBranch(dir: string, name: string, force: boolean): Promise<GitFailure | null> {
    const r = await this.run(['branch', '--quiet', force ? '-D' : '-d', '--', name], { cwd: dir });
    return r.code === 0 ? null : failure('git branch -d', r);
  }

  /** Refs under `prefix`, with their commits. */
  async refsUnder(dir: string, prefix: string): Promise<{ ref: string; commit: string }[]> {
    const r = await this.run(['for-each-ref', '--format=%(objectname) %(refname)', prefix], { cwd: dir });
    if (r.code !== 0) return [];
    return r.stdout.split('\n').filter(Boolean).map((l) => ({ commit: l.slice(0, l.indexOf(' ')), ref: l.slice(l.indexOf(' ') + 1) }));
  }

  /** Whether the repository has submodules (a .gitmodules at `dir`'s top). */
  async submodulePaths(dir: string): Promise<string[]> {
    const r = await this.run(['config', '--file', '.gitmodules', '--get-regexp', '^submodule\\..*\\.path$'], { cwd: dir });
    return r.code === 0 ? r.stdout.split('\n').filter(Boolean).map((l) => l.slice(l.indexOf(' ') + 1)) : [];
  }
}
