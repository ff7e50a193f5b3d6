/**
 * Judging a member's work: merge it into base in root, discard it (keeping a backup ref), or retire
 * the worktree at the end of a run. A merge is all or nothing: it is computed in memory with `git
 * merge-tree --write-tree` (objects only) and root is touched once, by a fast-forward of its base
 * branch to the finished commit, which git refuses as a whole if it would lose anything. So a
 * conflict leaves root exactly as it was: same HEAD, same index, no markers. Uncommitted work in the
 * member's worktree is first committed on its branch, so what is merged is what the review showed.
 */
import { lstat } from 'node:fs/promises';
import { isFailure, type Git } from '../host/git/repo.js';
import { accept, refuse, type Outcome } from '../protocol/outcome.js';
import type { WorkEvent, WorktreeBook, WorktreeEntry } from '../protocol/worktrees.js';
import type { WorktreeRecord } from '../store/worktrees.js';
import { worktreeEntry } from './worktree-diff.js';

/** A merge that landed. */
export interface MergeDone {
  member: string;
  branch: string;
  base: string;
  /** Where base is now. */
  commit: string;
  /** The branch's commit that was merged. */
  merged: string;
  how: 'fast-forward' | 'merge' | 'squash' | 'nothing to merge';
  /** The member's uncommitted work was committed on its branch first. */
  committedFirst: boolean;
}

/** A merge refused because the two sides conflict, with the files. */
export type MergeOutcome = Outcome<MergeDone> | { ok: false; reason: 'conflict'; message: string; paths: string[] };

/** How to merge. */
export interface MergeWanted {
  squash?: boolean;
  message?: string;
  /** Who merges (the operator, or a member), for the record. */
  by: string;
  /** The member's task, named in the commit of its uncommitted work. */
  task?: string;
}

async function readBook(record: WorktreeRecord): Promise<Outcome<WorktreeBook | null>> {
  const r = await record.read();
  return r.ok ? accept(r.book) : refuse('not_found', r.message);
}

/** The book and the member's checked entry. */
async function bookEntry(git: Git, record: WorktreeRecord, member: string): Promise<Outcome<{ book: WorktreeBook; entry: WorktreeEntry }>> {
  const read = await readBook(record);
  if (!read.ok) return read;
  const entry = worktreeEntry(git, read.value, member);
  return entry.ok ? accept({ book: read.value!, entry: entry.value }) : entry;
}

const now = (): string => new Date().toISOString();

async function note(record: WorktreeRecord, e: WorkEvent): Promise<void> {
  await record.update((b) => ({ ...b!, events: [...(b?.events ?? []), e] }));
}

/** Commit what is uncommitted in a member's live worktree; true when there was something. */
async function commitLeftovers(git: Git, wt: string, message: string): Promise<Outcome<boolean>> {
  const before = await git.status(wt);
  if (isFailure(before)) return refuse('not_found', before.message);
  if (before.length === 0) return accept(false);
  const c = await git.commitAll(wt, message);
  return c ? refuse('not_found', c.message) : accept(true);
}

/** Merge a member's branch into base, in root. */
export async function mergeMember(git: Git, record: WorktreeRecord, member: string, want: MergeWanted): Promise<MergeOutcome> {
  const found = await bookEntry(git, record, member);
  if (!found.ok) return found;
  const { book, entry: e } = found.value;
  const root = book.repo;
  const on = git.currentBranchSync(root);
  if (on !== book.base) return refuse('wrong_branch', `root (${root}) has ${on === null ? 'a detached HEAD' : `branch ${on}`} checked out, but ${member}'s work merges into ${book.base}`);
  const dirty = await git.status(root, true);
  if (isFailure(dirty)) return refuse('not_found', dirty.message);
  if (dirty.length > 0) return refuse('dirty', `root (${root}) has uncommitted changes (${dirty.slice(0, 3).map((d) => d.path).join(', ')}${dirty.length > 3 ? ', …' : ''}); a merge would mix them in`);
  const live = e.removedAt === null && (await lstat(e.path).then(() => true, () => false));
  let committedFirst = false;
  if (live) {
    const c = await commitLeftovers(git, e.path, `teamux: ${member}'s uncommitted work${want.task ? ` on ${want.task}` : ''}, committed to merge it`);
    if (!c.ok) return c;
    committedFirst = c.value;
  }
  const head = await git.revParse(live ? e.path : root, live ? 'HEAD' : e.branch);
  const baseAt = await git.revParse(root, book.base);
  if (!head || !baseAt) return refuse('not_found', `cannot read ${!head ? `${member}'s branch ${e.branch}` : `base ${book.base}`}`);
  const done = (commit: string, how: MergeDone['how']): MergeDone => ({ member, branch: e.branch, base: book.base, commit, merged: head, how, committedFirst });
  if (await git.isAncestor(root, head, baseAt)) return accept(done(baseAt, 'nothing to merge'));
  let target: string;
  let how: MergeDone['how'];
  if (!want.squash && (await git.isAncestor(root, baseAt, head))) {
    target = head;
    how = 'fast-forward';
  } else {
    const tree = await git.mergeTree(root, baseAt, head);
    if (isFailure(tree)) return refuse('not_found', tree.message);
    if (!tree.clean) return { ok: false, reason: 'conflict', message: `${member}'s work (${e.branch}) conflicts with ${book.base} in ${tree.conflicts.length} file${tree.conflicts.length === 1 ? '' : 's'}; root is unchanged`, paths: tree.conflicts };
    const message = want.message ?? (want.squash ? `${member}: work from ${e.branch} (squashed by teamux)` : `Merge ${e.branch} (${member}) into ${book.base}`);
    const made = await git.commitTree(root, tree.tree, want.squash ? [baseAt] : [baseAt, head], message);
    if (isFailure(made)) return refuse('not_found', made.message);
    target = made;
    how = want.squash ? 'squash' : 'merge';
  }
  const ff = await git.fastForward(root, target);
  if (ff) return refuse('dirty', `root could not take the merge: ${ff.message}; root is unchanged`);
  // After a squash the branch moves onto the squash commit, so its diff is empty again (its work is in base).
  if (how === 'squash' && live) await git.resetKeep(e.path, target);
  await note(record, { member, kind: 'merged', at: now(), commit: head, result: target, squash: how === 'squash', by: want.by });
  return accept(done(target, how));
}

/** A discard that happened. */
export interface DiscardDone {
  member: string;
  branch: string;
  /** The ref keeping the discarded work. */
  backup: string;
  /** The commit the backup points at. */
  commit: string;
  /** The commit the worktree is back at. */
  base: string;
}

/** Throw a member's work away: its branch back to base, everything it had kept under a backup ref. */
export async function discardMember(git: Git, record: WorktreeRecord, member: string, by: string): Promise<Outcome<DiscardDone>> {
  const found = await bookEntry(git, record, member);
  if (!found.ok) return found;
  const { book, entry: e } = found.value;
  if (e.removedAt !== null) return refuse('not_found', `${member}'s worktree was removed; its branch ${e.branch} is kept (delete it with git branch -D if you want it gone)`);
  const c = await commitLeftovers(git, e.path, `teamux: ${member}'s uncommitted work, kept in the backup before a discard`);
  if (!c.ok) return c;
  const head = await git.revParse(e.path, 'HEAD');
  const baseAt = await git.revParse(book.repo, book.base);
  if (!head || !baseAt) return refuse('not_found', `cannot read ${!head ? `${member}'s branch` : `base ${book.base}`}`);
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const backup = `refs/teamux/backup/${book.team}/${member}/${stamp}`;
  const saved = await git.updateRef(book.repo, backup, head, `teamux: ${member}'s work before discard`);
  if (saved) return refuse('not_found', saved.message);
  const reset = await git.resetHard(e.path, baseAt);
  if (reset) return refuse('not_found', `${reset.message} (the work is kept at ${backup})`);
  await note(record, { member, kind: 'discarded', at: now(), commit: head, result: backup, squash: false, by });
  return accept({ member, branch: e.branch, backup, commit: head, base: baseAt });
}

/** What retiring did with one worktree. */
export interface Retired {
  member: string;
  branch: string;
  removed: boolean;
  /** The branch is kept (it has work base does not). */
  branchKept: boolean;
  committedFirst: boolean;
  problem?: string;
}

/**
 * The end of a run (or `teamux archive`): each live worktree's uncommitted work is committed on its
 * branch, the worktree is removed, and the branch deleted only when base already has all of it.
 */
export async function retireWorktrees(git: Git, record: WorktreeRecord): Promise<Outcome<Retired[]>> {
  const read = await readBook(record);
  if (!read.ok) return read;
  const book = read.value;
  if (!book) return accept([]);
  const out: Retired[] = [];
  for (const e of book.members) {
    if (e.removedAt !== null) continue;
    const r: Retired = { member: e.member, branch: e.branch, removed: false, branchKept: true, committedFirst: false };
    out.push(r);
    const checked = worktreeEntry(git, book, e.member);
    if (!checked.ok) {
      r.problem = checked.message;
      continue;
    }
    if (await lstat(e.path).then(() => true, () => false)) {
      const c = await commitLeftovers(git, e.path, `teamux: ${e.member}'s uncommitted work at the end of the run`);
      if (!c.ok) {
        r.problem = c.message;
        continue;
      }
      r.committedFirst = c.value;
      const gone = await git.removeWorktree(book.repo, e.path, false);
      if (gone) {
        r.problem = gone.message;
        continue;
      }
    } else await git.prune(book.repo);
    r.removed = true;
    const head = await git.revParse(book.repo, e.branch);
    if (head && (await git.isAncestor(book.repo, head, book.base)) && !(await git.deleteBranch(book.repo, e.branch, false))) r.branchKept = false;
  }
  const at = now();
  await record.update((b) => ({ ...b!, members: b!.members.map((m) => (out.some((r) => r.member === m.member && r.removed) ? { ...m, removedAt: at } : m)) }));
  return accept(out);
}
