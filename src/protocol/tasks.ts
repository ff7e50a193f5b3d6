/**
 * Pure rules of the task board: readiness, dependency cycles, claims, compare-and-set updates and
 * completion. The store applies these to files under a lock; nothing here touches the disk, so every
 * rule is unit-tested on plain values.
 */
import { accept, refuse, type Outcome, type ProcessRef, type Task, type TaskStatus } from './types.js';

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

/** Check whether `by` may claim `task` now. */
export function checkClaim(task: Task | undefined, index: TaskIndex, id: string): Outcome<Task> {
  if (!task) return refuse('not_found', `task ${id} does not exist`);
  if (task.status === 'completed') return refuse('already_completed', `task ${id} is already completed`);
  if (task.owner !== null || task.status === 'in_progress') {
    return refuse('already_claimed', `task ${id} is already claimed by ${task.owner ?? 'someone'}`);
  }
  const open = openBlockers(task, index);
  if (open.length > 0) return refuse('blocked', `task ${id} is blocked by ${open.join(', ')}`);
  return accept(task);
}

/** The claimed version of a task. */
export function claimed(task: Task, by: string, now: string, holder: ProcessRef | null = null): Task {
  return { ...task, status: 'in_progress', owner: by, holder, claimedAt: now, updatedAt: now, revision: task.revision + 1 };
}

/** Fields a caller may change with a compare-and-set update. */
export interface TaskPatch {
  subject?: string;
  description?: string;
  status?: TaskStatus;
  result?: string | null;
}

/**
 * Apply a compare-and-set update made by `by` who read `revision`. A stale revision is a conflict and
 * never overwrites the newer task.
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
  if (task.revision !== revision) {
    return refuse('conflict', `task ${id} is at revision ${task.revision}, not ${revision}; re-read it and try again`);
  }
  if (task.status === 'completed' && patch.status !== undefined && patch.status !== 'completed') {
    return refuse('already_completed', `task ${id} is completed and cannot be reopened`);
  }
  if (task.owner !== null && task.owner !== by) {
    return refuse('not_owner', `task ${id} is owned by ${task.owner}, not ${by}`);
  }
  const next: Task = { ...task, updatedAt: now, revision: task.revision + 1 };
  if (patch.subject !== undefined) next.subject = patch.subject;
  if (patch.description !== undefined) next.description = patch.description;
  if (patch.result !== undefined) next.result = patch.result;
  if (patch.status !== undefined && patch.status !== task.status) {
    // A status change by update names no holding process: liveness falls back to the owner's.
    next.holder = null;
    if (patch.status === 'in_progress') {
      const check = checkClaim(task, index, id);
      if (!check.ok) return check;
      next.owner = by;
      next.claimedAt = now;
    } else if (patch.status === 'pending') {
      next.owner = null;
      next.claimedAt = null;
    } else {
      const open = openBlockers(task, index);
      if (open.length > 0) return refuse('blocked', `task ${id} is blocked by ${open.join(', ')}`);
      next.owner = task.owner ?? by;
      next.completedAt = now;
    }
    next.status = patch.status;
  }
  return accept(next);
}

/** Complete a task owned by `by`. */
export function completed(task: Task | undefined, id: string, by: string, result: string | null, index: TaskIndex, now: string): Outcome<Task> {
  if (!task) return refuse('not_found', `task ${id} does not exist`);
  if (task.status === 'completed') return refuse('already_completed', `task ${id} is already completed`);
  if (task.owner !== by) {
    return refuse('not_owner', task.owner ? `task ${id} is owned by ${task.owner}, not ${by}` : `task ${id} is not claimed; claim it first`);
  }
  return applyUpdate(task, id, by, task.revision, { status: 'completed', result }, index, now);
}

/** Release a claimed task back to pending. */
export function released(task: Task | undefined, id: string, by: string | null, now: string): Outcome<Task> {
  if (!task) return refuse('not_found', `task ${id} does not exist`);
  if (task.status === 'completed') return refuse('already_completed', `task ${id} is already completed`);
  if (task.owner === null) return refuse('not_owner', `task ${id} is not claimed`);
  if (by !== null && task.owner !== by) return refuse('not_owner', `task ${id} is owned by ${task.owner}, not ${by}`);
  return accept({ ...task, status: 'pending', owner: null, holder: null, claimedAt: null, updatedAt: now, revision: task.revision + 1 });
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
