/**
 * Asking a member to change its work: the reviewer's comments (each on a file, maybe a line) become
 * one message in the member's inbox naming its branch, the files and the lines, so the member reads
 * the whole review at once. The review view, `teamux request-changes` and a verifier all send it
 * through here. Pure text building, then one store send.
 */
import { accept, refuse, type Message, type Outcome } from '../protocol/types.js';
import type { TeamStore } from '../store/team.js';

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
