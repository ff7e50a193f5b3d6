/**
 * What became of each member's work, for `teamux report`: its branch, commits and files ahead of
 * base, and whether base has it (a merge recorded and nothing new since), from the same diff
 * operation the CLI and the review view use.
 */
import type { Git } from '../host/git/repo.js';
import { lastMerge, type WorktreeBook } from '../protocol/worktrees.js';
import { memberDiff } from './worktree-diff.js';

/** One member's work. */
export interface WorkRow {
  member: string;
  branch: string;
  commits: number;
  files: number;
  added: number;
  removed: number;
  /** Base has all of it (or took it squashed and the branch was not changed since). */
  merged: boolean;
  /** The worktree is gone (the branch may be kept). */
  retired: boolean;
  /** Why the numbers could not be read (a branch deleted once merged, say). */
  note?: string;
}

/** Every member's work in the book. */
export async function workRows(git: Git, book: WorktreeBook): Promise<WorkRow[]> {
  return Promise.all(book.members.map(async (e): Promise<WorkRow> => {
    const merge = lastMerge(book, e.member);
    const d = await memberDiff(git, book, e.member);
    const base = { member: e.member, branch: e.branch, retired: e.removedAt !== null };
    if (!d.ok) return { ...base, commits: 0, files: 0, added: 0, removed: 0, merged: merge !== undefined, note: merge ? 'merged; branch deleted' : d.message };
    const v = d.value;
    // Merged: a merge was recorded and nothing changed since (work after a merge is new work).
    return { ...base, commits: v.commits, files: v.files.length, added: v.added, removed: v.removed, merged: merge !== undefined && v.files.length === 0 };
  }));
}
