/**
 * Asking a member to change its work: the reviewer's comments (each on a file, maybe a line) become
 * one message in the member's inbox naming its branch, the files and the lines, so the member reads
 * the whole review at once. The review view, `teamux request-changes` and a verifier all send it
 * through here. Pure text building, then one store send. Also `member_diff`, the model-facing form
 * of the diff op, with which a pipeline's verifier reads the author's work.
 */
import { Git } from '../host/git/repo.js';
import { execGit } from '../host/git/run.js';
import { z } from '../protocol/zod.js';
import { accept, Name, refuse, type Message, type Outcome } from '../protocol/types.js';
import type { TeamStore } from '../store/team.js';
import { WorktreeRecord } from '../store/worktrees.js';
import { defineOp } from './op.js';
import { diffSummary, memberDiff, type MemberDiff } from './worktree-diff.js';

/** One review comment. */
export interface ReviewComment {
  path: string;
  /** A line of the new file, when the comment is about one. */
  line?: number;
  text: string;
}

/** `path:line: text`, `path: text` (the CLI's and the review view's typed form), or null. */
export function parseComment(s: string): ReviewComment | null {
  const m = /^([^:\n]+?)(?::(\d+))?:\s*([\s\S]+)$/.exec(s.trim());
  if (!m || m[3]!.trim() === '') return null;
  return { path: m[1]!, ...(m[2] !== undefined ? { line: Number(m[2]) } : {}), text: m[3]!.trim() };
}

/** The one message a review sends, grouped by file in the order comments were given. */
export function reviewText(branch: string, comments: readonly ReviewComment[]): string {
  const files: string[] = [];
  for (const c of comments) if (!files.includes(c.path)) files.push(c.path);
  const lines = [`Changes requested on your work (branch ${branch}), ${comments.length} comment${comments.length === 1 ? '' : 's'} on ${files.length} file${files.length === 1 ? '' : 's'}:`];
  for (const f of files) {
    lines.push('', `${f}:`);
    for (const c of comments.filter((x) => x.path === f)) lines.push(`  - ${c.line !== undefined ? `line ${c.line}: ` : ''}${c.text}`);
  }
  lines.push('', 'Change these in your worktree and commit; the reviewer sees the new diff.');
  return lines.join('\n');
}

/** Send the review to `member` as one message from `from`. */
export async function requestChanges(store: TeamStore, from: string, member: string, branch: string, comments: readonly ReviewComment[]): Promise<Outcome<Message>> {
  if (comments.length === 0) return refuse('invalid_input', 'a change request needs at least one comment');
  if (from === member) return refuse('invalid_input', 'a member cannot request changes of its own work');
  const r = await store.send({ from, to: member, type: 'message', text: reviewText(branch, comments) });
  return r.ok ? accept(r.value) : r;
}

/** The longest patch a model gets in one reply (the stat always comes whole). */
export const PATCH_LIMIT = 60_000;

/**
 * `member_diff`: a member's work against base, for a model (a verifier reading the author's work, the
 * lead reviewing): the same diff op the CLI and the review view call, as text.
 */
export const memberDiffOp = defineOp({
  name: 'member_diff',
  description: "Read a teammate's work in its git worktree against base: changed files with line counts, and (unless stat) the unified diff. Use it to verify or review what an author did.",
  input: z.strictObject({ member: Name, stat: z.boolean().default(false).describe('only the files and counts') }),
  summary: (i) => `${i.member}${i.stat ? ' (stat)' : ''}`,
  async run(i, ctx) {
    const git = new Git(execGit());
    const book = await new WorktreeRecord(ctx.store.dir).read();
    if (!book.ok) return refuse('not_found', book.message);
    return memberDiff(git, book.book, i.member, { patch: !i.stat });
  },
  text: (d: MemberDiff) => {
    const head = `${d.member} on ${d.branch} (${d.head.slice(0, 12)}): ${diffSummary(d)}, ${d.commits} commit${d.commits === 1 ? '' : 's'} ahead of ${d.base}`;
    const files = d.files.map((f) => `  ${f.from ? `${f.from} => ` : ''}${f.path}${f.untracked ? ' (new, uncommitted)' : ''}  ${f.added === null ? 'binary' : `+${f.added} -${f.removed}`}`);
    const patch = d.patch === undefined ? [] : ['', d.patch.length > PATCH_LIMIT ? `${d.patch.slice(0, PATCH_LIMIT)}\n… (${d.patch.length - PATCH_LIMIT} more characters: read the files in the worktree)` : d.patch];
    return [head, ...files, ...patch].join('\n');
  },
});
