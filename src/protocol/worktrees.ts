/**
 * The team's worktrees as the run records them in the team folder (`worktrees.json`): the
 * repository, the base branch merges go into, and per member its worktree's folder and branch, plus
 * what became of its work (merged, discarded, approved by a verifier). The screen writes it when it
 * makes the worktrees; the CLI, the review view and the pipeline read it. Pure schema and rules.
 */
import { z } from './zod.js';

/** One member's worktree. */
export const WorktreeEntry = z.object({
  member: z.string(),
  path: z.string(),
  branch: z.string(),
  createdAt: z.string(),
  /** Removed by a finished run or `teamux archive` (its branch is kept). */
  removedAt: z.string().nullable().default(null),
});
export type WorktreeEntry = z.infer<typeof WorktreeEntry>;

/** What happened to a member's work: merged into base (commit), discarded (backup ref), or approved. */
export const WorkEvent = z.object({
  member: z.string(),
  kind: z.enum(['merged', 'discarded', 'approved']),
  at: z.string(),
  /** The branch's commit the event is about. */
  commit: z.string(),
  /** merged: the commit base moved to; discarded: the backup ref. */
  result: z.string().nullable().default(null),
  squash: z.boolean().default(false),
  by: z.string().nullable().default(null),
});
export type WorkEvent = z.infer<typeof WorkEvent>;

export const WorktreeBook = z.object({
  version: z.literal(1),
  team: z.string(),
  /** The repository's top folder (the team's root is in it). */
  repo: z.string(),
  /** The branch members' worktrees start from and merges go into. */
  base: z.string(),
  members: z.array(WorktreeEntry),
  events: z.array(WorkEvent).default([]),
});
export type WorktreeBook = z.infer<typeof WorktreeBook>;

/** A member's entry, if it has a worktree. */
export function entryOf(book: WorktreeBook, member: string): WorktreeEntry | undefined {
  return book.members.find((m) => m.member === member);
}

/** The last merge of a member's work, if any. */
export function lastMerge(book: WorktreeBook, member: string): WorkEvent | undefined {
  return book.events.filter((e) => e.member === member && e.kind === 'merged').at(-1);
}

/** What the sidebar shows of the team's work: per member its counts, and files two members changed. */
export interface WorkSummary {
  members: Readonly<Record<string, { added: number; removed: number; files: number }>>;
  overlaps: readonly { path: string; members: readonly string[] }[];
}
