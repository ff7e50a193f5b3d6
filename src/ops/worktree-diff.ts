/**
 * A member's work as a diff against base: committed and uncommitted changes in its worktree (tracked
 * files against the merge base of its branch and base, plus new files git does not track yet), per
 * file line counts, and on request the unified patch. The one operation the CLI (`teamux diff`), the
 * sidebar, the review view, the pipeline's verifier and the web view call. Also the overlaps: files
 * two members both changed.
 */
import { open } from 'node:fs/promises';
import * as path from 'node:path';
import { isFailure, type Git } from '../host/git/repo.js';
import type { FileChange } from '../host/git/parse.js';
import { accept, refuse, type Outcome } from '../protocol/outcome.js';
import { entryOf, type WorktreeBook, type WorktreeEntry } from '../protocol/worktrees.js';
import { NAME_PATTERN } from '../protocol/types.js';
import { visible } from '../protocol/visible.js';
import { worktreePathIn } from './worktree-place.js';

export type { FileChange };

/** A member's changes. */
export interface MemberDiff {
  member: string;
  branch: string;
  base: string;
  /** The commit the diff is taken against. */
  since: string;
  /** The branch's commit. */
  head: string;
  path: string;
  files: (FileChange & { untracked?: true })[];
  added: number;
  removed: number;
  /** Commits on the branch that base does not have. */
  commits: number;
  /** The unified diff (when asked for). */
  patch?: string;
}

/** What to compute. */
export interface DiffWanted {
  patch?: boolean;
}

/** Largest new file whose lines are counted (bigger ones count as binary). */
const COUNT_LIMIT = 8 * 1024 * 1024;

/** Lines of a new file, or null for a binary or huge one. */
async function countLines(file: string): Promise<number | null> {
  const fh = await open(file, 'r').catch(() => null);
  if (!fh) return null;
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.size > COUNT_LIMIT) return null;
    const buf = await fh.readFile();
    if (buf.includes(0)) return null;
    let n = 0;
    for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) n++;
    if (buf.length > 0 && buf[buf.length - 1] !== 10) n++;
    return n;
  } finally {
    await fh.close();
  }
}

/**
 * The member's worktree entry, or a refusal naming who has one. The record is in the team folder,
 * which members can write, so its path must be the one place a member's worktree can be
 * (worktree-place.ts): an entry edited to point elsewhere is refused, never committed or merged from.
 */
export function worktreeEntry(git: Git, book: WorktreeBook | null, member: string): Outcome<WorktreeEntry> {
  if (!book) return refuse('not_found', 'this team has no worktrees (the layout has no worktrees: section, or the team has not started)');
  const e = entryOf(book, member);
  if (!e) return refuse('not_found', `${member} has no worktree (members with one: ${book.members.map((m) => m.member).join(', ') || 'none'})`);
  const common = NAME_PATTERN.test(member) && NAME_PATTERN.test(book.team) ? git.commonDirSync(book.repo) : null;
  if (common === null || e.path !== worktreePathIn(common, book.team, member)) return refuse('not_found', `the worktree record of ${member} (${visible(e.path)}) is not where teamux puts it; worktrees.json was edited by hand`);
  return accept(e);
}

/** A member's changes against base. */
export async function memberDiff(git: Git, book: WorktreeBook | null, member: string, want: DiffWanted = {}): Promise<Outcome<MemberDiff>> {
  const entry = worktreeEntry(git, book, member);
  if (!entry.ok) return entry;
  const e = entry.value;
  const live = e.removedAt === null;
  const where = live ? e.path : book!.repo;
  if (!live) {
    // A removed worktree: its branch's committed work alone.
    const head = await git.revParse(where, e.branch);
    if (!head) return refuse('not_found', `${member}'s branch ${e.branch} is gone`);
    const since = (await git.mergeBase(where, book!.base, head)) ?? head;
    const files = await git.numstatBetween(where, since, head);
    if (isFailure(files)) return refuse('not_found', files.message);
    const patch = want.patch ? await git.patchBetween(where, since, head) : undefined;
    if (isFailure(patch)) return refuse('not_found', patch.message);
    return accept(summed({ member, branch: e.branch, base: book!.base, since, head, path: e.path, files, commits: await git.countCommits(where, since, head), ...(patch !== undefined ? { patch } : {}) }));
  }
  // One round of git commands side by side: the diff takes the merge base itself (--merge-base).
  const base = book!.base;
  const [head, since, numbers, untracked, commits, tracked] = await Promise.all([
    git.revParse(where, 'HEAD'), git.mergeBase(where, base, 'HEAD'), git.numstat(where, base), git.untracked(where), git.countCommits(where, base, 'HEAD'),
    want.patch ? git.patch(where, base) : Promise.resolve(undefined),
  ]);
  if (!head) return refuse('not_found', `${member}'s worktree has no commit (${e.path})`);
  if (isFailure(numbers)) return refuse('not_found', numbers.message);
  if (isFailure(untracked)) return refuse('not_found', untracked.message);
  if (isFailure(tracked)) return refuse('not_found', tracked.message);
  const added = await Promise.all(untracked.map(async (p) => ({ path: p, added: await countLines(path.join(where, p)), removed: 0 as number | null, untracked: true as const })));
  for (const a of added) if (a.added === null) a.removed = null;
  const files = [...numbers, ...added];
  const patch = tracked === undefined ? undefined : tracked + (await Promise.all(untracked.map((u) => git.newFilePatch(where, u)))).join('');
  return accept(summed({ member, branch: e.branch, base, since: since ?? head, head, path: e.path, files, commits, ...(patch !== undefined ? { patch } : {}) }));
}

function summed(d: Omit<MemberDiff, 'added' | 'removed'>): MemberDiff {
  let added = 0;
  let removed = 0;
  for (const f of d.files) {
    added += f.added ?? 0;
    removed += f.removed ?? 0;
  }
  return { ...d, added, removed };
}

/** A file changed by more than one member. */
export interface Overlap {
  path: string;
  members: string[];
}

/** Files two or more members changed, in path order. */
export function overlaps(diffs: readonly Pick<MemberDiff, 'member' | 'files'>[]): Overlap[] {
  const by = new Map<string, string[]>();
  for (const d of diffs) for (const f of d.files) {
    const list = by.get(f.path) ?? [];
    if (!list.includes(d.member)) list.push(d.member);
    by.set(f.path, list);
  }
  return [...by].filter(([, m]) => m.length > 1).map(([p, members]) => ({ path: p, members })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** `+120 −8 · 5 files`, the sidebar's and the list's summary of a diff. */
export function diffSummary(d: Pick<MemberDiff, 'added' | 'removed' | 'files'>): string {
  if (d.files.length === 0) return 'no changes';
  return `+${d.added} −${d.removed} · ${d.files.length} file${d.files.length === 1 ? '' : 's'}`;
}
