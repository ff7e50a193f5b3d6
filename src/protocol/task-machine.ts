/**
 * The task state machine: which transitions exist, from which statuses each may start, and what each
 * does to a task and its attempts. Pure: the store applies these under the task's lock (§4 of
 * docs/protocol.md); ownership and readiness checks that need more than the task itself live in
 * protocol/tasks.ts and call in here.
 *
 *   pending ──claim──▶ in_progress ──complete──▶ completed ──reopen──▶ pending
 *      ▲                │  │  └──reassign (owner A → B, one write)──┘
 *      └──release/fail──┘  └──fail (N-th failure)──▶ blocked ──reopen──▶ pending
 *   pending, blocked ──delete──▶ deleted (final);  edit: pending, in_progress, blocked
 */
import { accept, refuse, type Outcome } from './outcome.js';
import type { Attempt, AttemptOutcome, ProcessRef, Task, TaskStatus } from './types.js';

/** The transitions of a task. */
export const TRANSITIONS = {
  claim: { from: ['pending'], to: 'in_progress' },
  complete: { from: ['in_progress'], to: 'completed' },
  release: { from: ['in_progress'], to: 'pending' },
  fail: { from: ['in_progress'], to: 'pending' },
  reopen: { from: ['completed', 'blocked'], to: 'pending' },
  reassign: { from: ['in_progress'], to: 'in_progress' },
  edit: { from: ['pending', 'in_progress', 'blocked'], to: null },
  delete: { from: ['pending', 'blocked'], to: 'deleted' },
} as const satisfies Record<string, { from: readonly TaskStatus[]; to: TaskStatus | null }>;
export type Transition = keyof typeof TRANSITIONS;
export const TRANSITION_NAMES = Object.keys(TRANSITIONS) as Transition[];

/** Failed attempts (since the last reopen) after which `fail` blocks the task instead of putting it back. */
export const DEFAULT_MAX_FAILURES = 3;

/** What to do instead, when `t` is refused from `status`. */
function instead(t: Transition, status: TaskStatus): string {
  if (status === 'deleted') return 'a deleted task is final';
  if (status === 'completed' || status === 'blocked') return 'reopen it first';
  if (t === 'reopen') return 'it is open already';
  return status === 'pending' ? 'claim it first' : 'release it first';
}

/** The statuses a transition may start from. */
export function legalFrom(t: Transition): readonly TaskStatus[] {
  return TRANSITIONS[t].from;
}

/**
 * Check that `t` may start from the task's status. A refusal names the states. Two reasons that
 * scripts already rely on are kept for the moves they always described: claiming a claimed task is
 * `already_claimed` (a lost race), and claiming, completing or releasing a completed one is
 * `already_completed`; every other illegal move is `illegal_transition`.
 */
export function checkTransition(task: Task, id: string, t: Transition): Outcome<Task> {
  const from = TRANSITIONS[t].from as readonly TaskStatus[];
  if (from.includes(task.status)) return accept(task);
  if (t === 'claim' && task.status === 'in_progress') return refuse('already_claimed', `task ${id} is already claimed by ${task.owner ?? 'someone'}`);
  if ((t === 'claim' || t === 'complete' || t === 'release') && task.status === 'completed') return refuse('already_completed', `task ${id} is already completed`);
  const to = TRANSITIONS[t].to ?? task.status;
  const hint = instead(t, task.status);
  return refuse('illegal_transition', `cannot ${t} task ${id}: it is ${task.status}, and ${t} goes from ${from.join(' or ')} to ${to} (${hint})`);
}

/** The attempt in progress (the last, when open), or null. */
export function openAttempt(task: Task): Attempt | null {
  const last = task.attempts[task.attempts.length - 1];
  return last && last.endedAt === null ? last : null;
}

/**
 * The attempts with the open one ended. A task claimed before attempts existed (version 1) has none
 * open: one is made up from its owner and claimedAt so the record is never lost.
 */
export function endAttempt(task: Task, outcome: AttemptOutcome, now: string, note: string | null): Attempt[] {
  const attempts = [...task.attempts];
  let open = openAttempt(task);
  if (open) attempts.pop();
  else if (task.owner !== null) open = { owner: task.owner, startedAt: task.claimedAt ?? task.updatedAt, endedAt: null, outcome: null, note: null };
  if (open) attempts.push({ ...open, endedAt: now, outcome, note });
  return attempts;
}

/** Attempts that failed since the task was last reopened. */
export function failuresSinceReopen(task: Task): number {
  const since = task.reopenedAt ?? '';
  return task.attempts.filter((a) => a.outcome === 'failed' && a.startedAt >= since).length;
}

/** A task after a write: its version is the current one, its revision one higher. */
function written(task: Task, now: string): Task {
  return { ...task, version: 2, updatedAt: now, revision: task.revision + 1 };
}

/** The claimed version of a task: in_progress, owned by `by`, with a new open attempt. */
export function claimedBy(task: Task, by: string, now: string, holder: ProcessRef | null): Task {
  const attempt: Attempt = { owner: by, startedAt: now, endedAt: null, outcome: null, note: null };
  return written({ ...task, status: 'in_progress', owner: by, holder, claimedAt: now, attempts: [...task.attempts, attempt] }, now);
}

/** The completed version of an in_progress task; the attempt ends `completed` with the result. */
export function completedBy(task: Task, by: string, result: string | null, now: string): Task {
  const attempts = endAttempt({ ...task, owner: task.owner ?? by }, 'completed', now, result);
  return written({ ...task, status: 'completed', owner: task.owner ?? by, holder: null, completedAt: now, result, attempts }, now);
}

/** An in_progress task put back on the board; the attempt ends `released` (by its owner) or `abandoned` (its owner gone). */
export function releasedAs(task: Task, outcome: 'released' | 'abandoned', why: string | null, now: string): Task {
  const attempts = endAttempt(task, outcome, now, why);
  return written({ ...task, status: 'pending', owner: null, holder: null, claimedAt: null, attempts }, now);
}

/**
 * An in_progress task whose attempt failed: back to pending, or `blocked` once `maxFailures` attempts
 * have failed since it was last reopened (the reason says so and quotes the last one).
 */
export function failed(task: Task, why: string, now: string, maxFailures = DEFAULT_MAX_FAILURES): Task {
  const attempts = endAttempt(task, 'failed', now, why);
  const next: Task = { ...task, status: 'pending', owner: null, holder: null, claimedAt: null, attempts };
  const count = failuresSinceReopen(next);
  if (count >= maxFailures) {
    next.status = 'blocked';
    next.blockedReason = `${count} attempt${count === 1 ? '' : 's'} failed; the last: ${why}`;
  }
  return written(next, now);
}

/** A completed or blocked task back to pending, unowned, its result and block cleared (the attempts keep them). */
export function reopened(task: Task, now: string): Task {
  return written({ ...task, status: 'pending', owner: null, holder: null, claimedAt: null, completedAt: null, result: null, blockedReason: null, reopenedAt: now }, now);
}

/**
 * An in_progress task handed from its owner to `to` in one write: the old attempt ends `reassigned`
 * and the new owner's starts, so the task is never ownerless in between.
 */
export function reassignedTo(task: Task, to: string, holder: ProcessRef | null, now: string, why: string | null): Task {
  const attempts = endAttempt(task, 'reassigned', now, why ?? `reassigned to ${to}`);
  attempts.push({ owner: to, startedAt: now, endedAt: null, outcome: null, note: null });
  return written({ ...task, owner: to, holder, claimedAt: now, attempts }, now);
}

/** Fields an edit may change. */
export interface TaskEdit {
  subject?: string;
  description?: string;
  result?: string | null;
}

/** The task with an edit applied (status and owner unchanged). */
export function edited(task: Task, edit: TaskEdit, now: string): Task {
  const next: Task = { ...task };
  if (edit.subject !== undefined) next.subject = edit.subject;
  if (edit.description !== undefined) next.description = edit.description;
  if (edit.result !== undefined) next.result = edit.result;
  return written(next, now);
}

/** The deleted tombstone of a task: its file stays (the history), its dependency edges go. */
export function deleted(task: Task, now: string): Task {
  return written({ ...task, status: 'deleted', owner: null, holder: null, claimedAt: null, blocks: [], blockedBy: [], blockedReason: null }, now);
}
