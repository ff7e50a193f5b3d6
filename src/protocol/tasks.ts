/**
 * Pure rules of the task board: readiness, dependency cycles, claims, compare-and-set updates and
 * the checks (existence, ownership, blockers) around every transition of the state machine
 * (protocol/task-machine.ts). The store applies these to files under a lock; nothing here touches the
 * disk, so every rule is unit-tested on plain values.
 */
import {
  checkTransition, claimedBy, completedBy, DEFAULT_MAX_FAILURES, deleted, edited, failed, reassignedTo, releasedAs, reopened, type TaskEdit, type Transition,
} from './task-machine.js';
import { accept, refuse, type Outcome } from './outcome.js';
import { overLimit } from './limits.js';
import type { ProcessRef, Task, TaskStatus } from './types.js';

/** A read-only view of the board: id -> task. */
export type TaskIndex = ReadonlyMap<string, Task>;

/** True when the task is pending, unowned, and every task it is blocked by is completed. */
export function isReady(task: Task, index: TaskIndex): boolean {
  if (task.status !== 'pending' || task.owner !== null) return false;
  return task.blockedBy.every((id) => index.get(id)?.status === 'completed');
}

/** The ids in task.blockedBy that are not completed yet (missing ones count as open). */
export function openBlockers(task: Task, index: TaskIndex): string[] {
  return task.blockedBy.filter((id) => index.get(id)?.status !== 'completed');
}

/** Most task ids a refusal names; a task waiting on thousands names these and counts the rest. */
const NAMED_IDS = 10;

/** Task ids for a message: all of them, or the first NAMED_IDS and how many more. */
export function idList(ids: readonly string[]): string {
  if (ids.length <= NAMED_IDS) return ids.join(', ');
  return `${ids.slice(0, NAMED_IDS).join(', ')} and ${(ids.length - NAMED_IDS).toLocaleString('en-US')} more`;
}

/** Would making `task` blocked by `blocker` close a cycle? True if `task` is reachable from blocker's blockedBy chain back to task. */
export function wouldCycle(index: TaskIndex, task: string, blocker: string): boolean {
  if (task === blocker) return true;
  // A cycle exists if `task` is already an (indirect) blocker of `blocker`.
  const stack = [blocker];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === task) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const up of index.get(id)?.blockedBy ?? []) stack.push(up);
  }
  return false;
}

/** The one refusal for a task that is missing or unreadable, whatever the verb (exit 3, reason not_found). */
export function missingTask(id: string, unreadable?: string): Outcome<never> {
  return refuse('not_found', unreadable !== undefined ? `task ${id} cannot be read: ${unreadable}` : `task ${id} does not exist`);
}

/**
 * What "id is blocked by blocker" asks of the board: one of the two is missing, the answer is already
 * settled (the edge exists, or it would close a cycle), or the two tasks are to be linked.
 */
export type DependencyStep =
  | { step: 'missing'; id: string }
  | { step: 'settled'; outcome: Outcome<Task> }
  | { step: 'link'; task: Task; blocker: Task };

/** The checks before adding a dependency, the same on every backend. */
export function checkDependency(index: TaskIndex, id: string, blocker: string): DependencyStep {
  const task = index.get(id);
  const up = index.get(blocker);
  if (!task) return { step: 'missing', id };
  if (!up) return { step: 'missing', id: blocker };
  if (task.blockedBy.includes(blocker)) return { step: 'settled', outcome: accept(task) };
  if (wouldCycle(index, id, blocker)) return { step: 'settled', outcome: refuse('cycle', `task ${id} blocked by ${blocker} would make a dependency cycle`) };
  return { step: 'link', task, blocker: up };
}

/** `task` with `blocker` added to its blockedBy (write this side first: a crash leaves it blocked, never wrongly ready). */
export function withBlocker(task: Task, blocker: string, now: string): Task {
  return { ...task, blockedBy: [...new Set([...task.blockedBy, blocker])].sort(byId), revision: task.revision + 1, updatedAt: now };
}

/** `up` with `id` added to the tasks it blocks. */
export function withBlocked(up: Task, id: string, now: string): Task {
  return { ...up, blocks: [...new Set([...up.blocks, id])].sort(byId), revision: up.revision + 1, updatedAt: now };
}

/** Check whether `by` may claim `task` now. */
export function checkClaim(task: Task | undefined, index: TaskIndex, id: string): Outcome<Task> {
  if (!task) return refuse('not_found', `task ${id} does not exist`);
  const legal = checkTransition(task, id, 'claim');
  if (!legal.ok) return legal;
  if (task.owner !== null) return refuse('already_claimed', `task ${id} is already claimed by ${task.owner}`);
  const open = openBlockers(task, index);
  if (open.length > 0) return refuse('blocked', `task ${id} is blocked by ${idList(open)}`);
  return accept(task);
}

/** The claimed version of a task: in_progress, owned by `by`, a new attempt started. */
export function claimed(task: Task, by: string, now: string, holder: ProcessRef | null = null): Task {
  return claimedBy(task, by, now, holder);
}

/** Fields a caller may change with a compare-and-set update. */
export interface TaskPatch {
  subject?: string;
  description?: string;
  status?: TaskStatus;
  result?: string | null;
}

/** The transition a compare-and-set status change stands for (claim, release, complete), if any. */
function updateTransition(from: TaskStatus, to: TaskStatus): Transition | null {
  if (from === 'pending' && to === 'in_progress') return 'claim';
  if (from === 'in_progress' && to === 'pending') return 'release';
  if (from === 'in_progress' && to === 'completed') return 'complete';
  return null;
}

/** Where a status change an update cannot make is made instead. */
const UPDATE_INSTEAD: Partial<Record<TaskStatus, string>> = {
  pending: 'use reopen for a completed or blocked task',
  completed: 'claim it first, then complete it',
  blocked: 'use fail',
  deleted: 'use delete',
};

/**
 * Apply a compare-and-set update made by `by` who read `revision`. A stale revision is a conflict and
 * never overwrites the newer task. A status change must be one of the machine's transitions (claim,
 * release, complete); without one, the update is an edit.
 */
export function applyUpdate(
  task: Task | undefined,
  id: string,
  by: string,
  revision: number,
  patch: TaskPatch,
  index: TaskIndex,
  now: string,
): Outcome<Task> {
  if (!task) return refuse('not_found', `task ${id} does not exist`);
  const long = overLimit({ subject: patch.subject, description: patch.description, result: patch.result });
  if (long) return long;
  if (task.revision !== revision) {
    return refuse('conflict', `task ${id} is at revision ${task.revision}, not ${revision}; re-read it and try again`);
  }
  const to = patch.status !== undefined && patch.status !== task.status ? patch.status : null;
  if (task.status === 'completed' && to !== null) {
    return refuse('already_completed', `task ${id} is completed; reopen it first (a lead tool and \`teamux task reopen\`)`);
  }
  if (task.owner !== null && task.owner !== by) {
    return refuse('not_owner', `task ${id} is owned by ${task.owner}, not ${by}`);
  }
  if (to === null) {
    const legal = checkTransition(task, id, 'edit');
    return legal.ok ? accept(edited(task, patch, now)) : legal;
  }
  const t = updateTransition(task.status, to);
  if (t === null) {
    return refuse('illegal_transition', `cannot move task ${id} from ${task.status} to ${to} with an update (${UPDATE_INSTEAD[to] ?? `${to} is reached by another transition`})`);
  }
  let next: Task;
  if (t === 'claim') {
    const check = checkClaim(task, index, id);
    if (!check.ok) return check;
    // A claim made by an update names no holding process: liveness falls back to the owner's.
    next = claimedBy(task, by, now, null);
  } else if (t === 'release') {
    next = releasedAs(task, 'released', 'released by an update', now);
  } else {
    const open = openBlockers(task, index);
    if (open.length > 0) return refuse('blocked', `task ${id} is blocked by ${idList(open)}`);
    next = completedBy(task, by, patch.result !== undefined ? patch.result : task.result, now);
  }
  if (patch.subject !== undefined) next.subject = patch.subject;
  if (patch.description !== undefined) next.description = patch.description;
  if (patch.result !== undefined) next.result = patch.result;
  return accept(next);
}

/** Complete a task owned by `by`. */
export function completed(task: Task | undefined, id: string, by: string, result: string | null, index: TaskIndex, now: string): Outcome<Task> {
  if (!task) return refuse('not_found', `task ${id} does not exist`);
  const legal = checkTransition(task, id, 'complete');
  if (!legal.ok) return legal;
  if (task.owner !== by) return refuse('not_owner', `task ${id} is owned by ${task.owner ?? 'nobody'}, not ${by}`);
  return applyUpdate(task, id, by, task.revision, { status: 'completed', result }, index, now);
}

/**
 * Release a claimed task back to pending: by its owner (the attempt ends `released`), or with `by`
 * null by cold recovery, when the owner is gone (the attempt ends `abandoned`).
 */
export function released(task: Task | undefined, id: string, by: string | null, now: string, why: string | null = null): Outcome<Task> {
  if (!task) return refuse('not_found', `task ${id} does not exist`);
  const long = overLimit({ reason: why });
  if (long) return long;
  const legal = checkTransition(task, id, 'release');
  if (!legal.ok) return legal;
  if (by !== null && task.owner !== by) return refuse('not_owner', `task ${id} is owned by ${task.owner ?? 'nobody'}, not ${by}`);
  return accept(releasedAs(task, by === null ? 'abandoned' : 'released', why, now));
}

/**
 * The owner (or, with `by` null, the team's own routing) gives up on an attempt: the task goes back to
 * pending, or to blocked once `maxFailures` attempts have failed since it was last reopened.
 */
export function failedBy(task: Task | undefined, id: string, by: string | null, why: string, now: string, maxFailures = DEFAULT_MAX_FAILURES): Outcome<Task> {
  if (!task) return refuse('not_found', `task ${id} does not exist`);
  const long = overLimit({ reason: why });
  if (long) return long;
  const legal = checkTransition(task, id, 'fail');
  if (!legal.ok) return legal;
  if (by !== null && task.owner !== by) return refuse('not_owner', `task ${id} is owned by ${task.owner ?? 'nobody'}, not ${by}`);
  if (!why.trim()) return refuse('invalid_input', `say why the attempt at task ${id} failed`);
  return accept(failed(task, why, now, maxFailures));
}

/** Reopen a completed or blocked task: pending again, unowned; its attempts keep the history. */
export function reopenedTask(task: Task | undefined, id: string, now: string): Outcome<Task> {
  if (!task) return refuse('not_found', `task ${id} does not exist`);
  const legal = checkTransition(task, id, 'reopen');
  return legal.ok ? accept(reopened(task, now)) : legal;
}

/** Hand an in_progress task to `to` in one step (the task is never ownerless in between). */
export function reassignedTask(task: Task | undefined, id: string, to: string, holder: ProcessRef | null, now: string, why: string | null = null): Outcome<Task> {
  if (!task) return refuse('not_found', `task ${id} does not exist`);
  const long = overLimit({ reason: why });
  if (long) return long;
  const legal = checkTransition(task, id, 'reassign');
  if (!legal.ok) return legal;
  if (task.owner === to) return refuse('invalid_input', `task ${id} is already owned by ${to}`);
  return accept(reassignedTo(task, to, holder, now, why));
}

/** An edit (subject, description) by the lead, compare-and-set on `revision`, whoever owns the task. */
export function editedTask(task: Task | undefined, id: string, revision: number, edit: TaskEdit, now: string): Outcome<Task> {
  if (!task) return refuse('not_found', `task ${id} does not exist`);
  const long = overLimit({ subject: edit.subject, description: edit.description });
  if (long) return long;
  if (task.revision !== revision) return refuse('conflict', `task ${id} is at revision ${task.revision}, not ${revision}; re-read it and try again`);
  const legal = checkTransition(task, id, 'edit');
  return legal.ok ? accept(edited(task, edit, now)) : legal;
}

/** Delete a pending or blocked task: a tombstone stays, its dependency edges go. */
export function deletedTask(task: Task | undefined, id: string, now: string): Outcome<Task> {
  if (!task) return refuse('not_found', `task ${id} does not exist`);
  const legal = checkTransition(task, id, 'delete');
  return legal.ok ? accept(deleted(task, now)) : legal;
}

/** Ids of tasks that became ready because `done` completed. */
export function newlyReady(done: Task, index: TaskIndex): string[] {
  return done.blocks.filter((id) => {
    const t = index.get(id);
    return t !== undefined && isReady(t, index);
  });
}

/** Sort ids numerically. */
export function byId(a: string, b: string): number {
  return Number(a) - Number(b);
}
