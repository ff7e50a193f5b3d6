/**
 * The task board: one JSON file per task under `tasks/`, ids kept by a high-water mark so none is
 * reused. A task's own changes (claim, update, complete, release) are compare-and-set on `revision`
 * under that task's lock; creating tasks and adding dependencies also hold the board lock. Readiness
 * and the DAG rules come from protocol/tasks; this file only reads, locks and writes.
 */
import { DEFAULT_MAX_FAILURES, type TaskEdit } from '../protocol/task-machine.js';
import {
  applyUpdate, byId, checkClaim, checkDependency, missingTask, withBlocked, withBlocker, claimed, completed, deletedTask, editedTask, failedBy, isReady, newlyReady, reassignedTask, released, reopenedTask,
  type TaskIndex, type TaskPatch,
} from '../protocol/tasks.js';
import { checkPipelineTransition, checkPipelineUpdate } from '../protocol/pipeline.js';
import { noReadyTask, type GuardRefusal } from '../protocol/claim-summary.js';
import type { TaskPipeline } from '../protocol/pipeline-fields.js';
import { accept, refuse, Task, TASK_VERSION, type EventType, type Outcome, type ProcessRef } from '../protocol/types.js';
import type { EventLog } from './events.js';
import { overLimit } from '../protocol/limits.js';
import { atomicWrite, ensureDir, exists, listFolder, parseJson, readText, UnsafePathError, writeJson, type FileProblem } from './fsx.js';
import { tryWithLock, withLock } from './lock.js';
import type { TaskStore } from './backend.js';
import type { TeamPaths } from './paths.js';
import { looksClaimable } from './task-peek.js';
import { BoardIndex, NONE_READY_SCAN_MS } from './task-index.js';

/** Racing claimers start at one of the first SPREAD ready tasks (by pid), not all at the lowest. */
const SPREAD = 8;
/** How many task files are read at once. */
const READ_BATCH = 64;

/** A snapshot of the board: the tasks that parsed, and the files that did not. */
export interface BoardSnapshot {
  tasks: Task[];
  index: Map<string, Task>;
  problems: FileProblem[];
}

/** What a new task needs. */
export interface NewTask {
  subject: string;
  description?: string;
  blockedBy?: string[];
  /** Its place in a staged pipeline (src/store/pipeline.ts creates these). */
  pipeline?: TaskPipeline;
}

/** A further check on a claim, run under the task's lock after the board's own (the pipeline's rules). */
export type ClaimGuard = (task: Task) => Promise<Outcome<void>>;

/** Tasks of one team folder. */
export class TaskBoard implements TaskStore {
  /** Told when a task became blocked by its failed attempts (the pipeline blocks the story's dependents). */
  onBlocked: ((task: Task) => Promise<void>) | null = null;
  /** Ready ids from this process's last scan, lowest first: a hint for claim-next, verified under the lock. */
  private readyHint: string[] = [];
  /** The derived index of task states (store/task-index.ts): claim-next and lists read it, not every file. */
  readonly index: BoardIndex;

  constructor(private readonly paths: TeamPaths, private readonly events: EventLog) {
    this.index = new BoardIndex(paths, (id) => this.readTask(id));
  }

  /** Tasks matching a filter, read from their files; only the matching ones are read (the index picks them). */
  async list(filter: { status?: string; ready?: boolean } = {}): Promise<{ tasks: Array<Task & { ready: boolean }>; index: Map<string, Task>; problems: FileProblem[] }> {
    const sel = this.index.select(await this.index.current(), filter);
    const index = await this.readMany(sel.ids);
    for (const [k, v] of await this.readMany([...index.values()].flatMap((t) => t.blockedBy))) index.set(k, v);
    const tasks: Array<Task & { ready: boolean }> = [];
    const drifted: string[] = [];
    for (const id of sel.ids) {
      const t = index.get(id);
      const ready = t !== undefined && isReady(t, index);
      // The file is the truth: a row the index placed wrongly is left out and the index corrected.
      if (!t || (filter.status !== undefined && t.status !== filter.status) || (filter.ready && !ready)) drifted.push(id);
      else tasks.push({ ...t, ready });
    }
    if (drifted.length === 0) return { tasks, index, problems: sel.problems };
    await this.index.note(drifted);
    return { tasks, index, problems: this.index.select(await this.index.current(), filter).problems };
  }

  /** Read every task file; bad files are reported and skipped, never fatal. */
  async snapshot(): Promise<BoardSnapshot> {
    const names = await listFolder(this.paths.tasks);
    const files = names.filter((n) => /^[1-9][0-9]*\.json$/.test(n));
    // Read in bounded batches: a board of thousands of tasks must not run out of file handles.
    const read: Array<{ task?: Task; problem?: FileProblem }> = [];
    for (let i = 0; i < files.length; i += READ_BATCH) {
      read.push(...(await Promise.all(files.slice(i, i + READ_BATCH).map((n) => this.readTask(n.slice(0, -5))))));
    }
    const tasks: Task[] = [];
    const problems: FileProblem[] = [];
    for (const r of read) {
      if (r.task) tasks.push(r.task);
      else if (r.problem) problems.push(r.problem);
    }
    tasks.sort((a, b) => byId(a.id, b.id));
    return { tasks, index: new Map(tasks.map((t) => [t.id, t])), problems };
  }

  /** Read one task file. */
  async readTask(id: string): Promise<{ task?: Task; problem?: FileProblem }> {
    const file = this.paths.task(id);
    let text: string | undefined;
    try {
      text = await readText(file, 'record');
    } catch (err) {
      if (err instanceof UnsafePathError) return { problem: { path: file, message: err.message } };
      throw err;
    }
    if (text === undefined) return {};
    const json = parseJson(file, text);
    if (!json.ok) return { problem: json.problem };
    const parsed = Task.safeParse(json.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { problem: { path: file, message: `${issue.path.join('.') || '(top)'}: ${issue.message}` } };
    }
    if (parsed.data.id !== id) return { problem: { path: file, message: `id is "${parsed.data.id}" but the file is named ${id}.json` } };
    return { task: parsed.data };
  }

  /** Get one task. */
  async get(id: string): Promise<Outcome<Task>> {
    const r = await this.readTask(id);
    return r.task ? accept(r.task) : notFound(id, r.problem);
  }

  /** Create a task; its blockers get the new id in their `blocks`. */
  async create(input: NewTask): Promise<Outcome<Task>> {
    const long = overLimit({ subject: input.subject, description: input.description });
    if (long) return long;
    await ensureDir(this.paths.tasks);
    const blockedBy = [...new Set(input.blockedBy ?? [])].sort(byId);
    return this.noted((r: Outcome<Task>) => (r.ok ? [r.value.id, ...blockedBy] : []), this.boardLocked(() => this.taskLocked(blockedBy, async () => {
      const blockers = await this.readMany(blockedBy);
      for (const b of blockedBy) if (!blockers.has(b)) return refuse<Task>('not_found', `blocker task ${b} does not exist`);
      const id = String((await this.highWater()) + 1);
      const now = new Date().toISOString();
      const task: Task = {
        version: TASK_VERSION, id, subject: input.subject, description: input.description ?? '', status: 'pending', owner: null,
        blocks: [], blockedBy, revision: 1, createdAt: now, updatedAt: now, claimedAt: null, completedAt: null, result: null, holder: null,
        ...(input.pipeline ? { pipeline: input.pipeline } : {}),
        attempts: [], blockedReason: null, reopenedAt: null,
      };
      await atomicWrite(this.paths.highWater, id + '\n');
      await writeJson(this.paths.task(id), task);
      for (const blocker of blockers.values()) {
        await writeJson(this.paths.task(blocker.id), { ...blocker, blocks: [...blocker.blocks, id].sort(byId), revision: blocker.revision + 1, updatedAt: now });
      }
      await this.events.record('task_created', { task: id, subject: task.subject, blockedBy });
      return accept(task);
    })));
  }

  /** Make `id` blocked by `blocker`, keeping both sides symmetric; a cycle is refused. */
  async addDependency(id: string, blocker: string): Promise<Outcome<Task>> {
    return this.noted([id, blocker], this.boardLocked(() => this.taskLocked([id, blocker], async () => {
      // The graph only changes under the board lock, so this snapshot's edges are current.
      const board = await this.snapshot();
      const check = checkDependency(board.index, id, blocker);
      if (check.step === 'missing') return notFound(check.id, (await this.readTask(check.id)).problem);
      if (check.step === 'settled') return check.outcome;
      const now = new Date().toISOString();
      const next = withBlocker(check.task, blocker, now);
      // blockedBy first: a crash between the two writes leaves the task blocked, never wrongly ready.
      await writeJson(this.paths.task(id), next);
      await writeJson(this.paths.task(blocker), withBlocked(check.blocker, id, now));
      await this.events.record('task_updated', { task: id, blockedBy: next.blockedBy });
      return accept(next);
    })));
  }

  /**
   * Claim a task by id, or the next ready one when id is undefined. For the latter, candidates come
   * from a snapshot taken without the lock (kept between calls as a hint, lowest id first, each process
   * starting at a different one of the first few so racing claimers spread out). A candidate is read
   * without the lock first and only locked when it still looks claimable; under the lock it is checked
   * again. Only when no hinted candidate is left is the board scanned again, and "no ready task"
   * always rests on a fresh scan; it names the ready tasks the guard refused in that scan, and why.
   */
  async claim(by: string, id?: string, holder: ProcessRef | null = null, guard?: ClaimGuard): Promise<Outcome<Task>> {
    if (id !== undefined) return this.noted([id], this.taskLocked([id], () => this.claimLocked(by, id, holder, guard)));
    // Ready tasks the guard refused in the latest scan (a task refused twice counts once).
    const refused = new Map<string, GuardRefusal>();
    const noting: ClaimGuard | undefined = guard && (async (task) => {
      const r = await guard(task);
      if (!r.ok) refused.set(task.id, { id: task.id, reason: r.reason, message: r.message });
      return r;
    });
    for (let fresh = this.readyHint.length === 0; ; fresh = true) {
      if (fresh) {
        refused.clear();
        let ready = this.index.ready(await this.index.current());
        // "No ready task" rests on a recent check of every task file.
        if (ready.length === 0) ready = this.index.ready(await this.index.current(NONE_READY_SCAN_MS));
        const start = process.pid % Math.min(SPREAD, Math.max(1, ready.length));
        this.readyHint = [...ready.slice(start), ...ready.slice(0, start)];
        if (this.readyHint.length === 0) return noReadyTask(by, []);
      }
      while (this.readyHint.length > 0) {
        const candidate = this.readyHint.shift()!;
        if (!looksClaimable(this.paths, candidate)) continue;
        // A task whose lock is busy is being claimed by someone else right now: move on.
        const r = await tryWithLock(this.paths.task(candidate), () => this.claimLocked(by, candidate, holder, noting));
        if (r?.ok) {
          await this.index.note([candidate]);
          return r;
        }
      }
      if (fresh) return noReadyTask(by, [...refused.values()]);
    }
  }

  /** Wait for an operation, then record the tasks it touched in the index (after their locks are released). */
  private async noted<T>(ids: string[] | ((r: T) => string[]), op: Promise<T>): Promise<T> {
    const r = await op;
    await this.index.note(typeof ids === 'function' ? ids(r) : ids);
    return r;
  }

  private async claimLocked(by: string, id: string, holder: ProcessRef | null, guard?: ClaimGuard): Promise<Outcome<Task>> {
    const { task, problem } = await this.readTask(id);
    if (problem) return notFound(id, problem);
    const index = await this.readMany(task?.blockedBy ?? []);
    const check = checkClaim(task, index, id);
    if (!check.ok) return check;
    const guarded = guard ? await guard(check.value) : undefined;
    if (guarded && !guarded.ok) return guarded;
    const now = new Date().toISOString();
    const next = claimed(check.value, by, now, holder);
    await writeJson(this.paths.task(id), next);
    await this.events.record('task_claimed', { task: id, by, attempt: next.attempts.length });
    return accept(next);
  }

  /** Compare-and-set update of a task by `by` who read `revision`. */
  async update(id: string, by: string, revision: number, patch: TaskPatch): Promise<Outcome<Task>> {
    return this.noted([id], this.taskLocked([id], async () => {
      const { task, problem } = await this.readTask(id);
    if (problem) return notFound(id, problem);
      const index = await this.readMany(task?.blockedBy ?? []);
      const piped = checkPipelineUpdate(task, patch);
      if (!piped.ok) return piped;
      const next = applyUpdate(task, id, by, revision, patch, index, new Date().toISOString());
      if (!next.ok) return next;
      await writeJson(this.paths.task(id), next.value);
      const kind = next.value.status === 'completed' && task!.status !== 'completed' ? 'task_completed' : 'task_updated';
      await this.events.record(kind, { task: id, by, status: next.value.status, revision: next.value.revision });
      return next;
    }));
  }

  /** Complete a task owned by `by`; returns it and the ids of dependents that became ready. */
  async complete(id: string, by: string, result: string | null, shape?: (done: Task) => Outcome<Task>): Promise<Outcome<{ task: Task; nowReady: string[] }>> {
    return this.noted([id], this.taskLocked([id], async () => {
      const { task, problem } = await this.readTask(id);
    if (problem) return notFound(id, problem);
      const index = await this.readMany([...(task?.blockedBy ?? []), ...(task?.blocks ?? [])]);
      const plain = completed(task, id, by, result, index, new Date().toISOString());
      // A pipeline task's completion carries its verdict or output, checked before anything is written.
      const next = plain.ok && shape ? shape(plain.value) : plain;
      if (!next.ok) return next;
      await writeJson(this.paths.task(id), next.value);
      index.set(id, next.value);
      const downstream = await this.readMany(next.value.blocks.flatMap((d) => index.get(d)?.blockedBy ?? []));
      for (const [k, v] of downstream) index.set(k, v);
      const nowReady = newlyReady(next.value, index);
      await this.events.record('task_completed', { task: id, by, nowReady });
      return accept({ task: next.value, nowReady });
    }));
  }

  /**
   * Release a claimed task back to pending: by its owner (the attempt ends `released`), or with `by`
   * null as cold recovery of a dead owner's claim (the attempt ends `abandoned`).
   */
  async release(id: string, by: string | null, why: string): Promise<Outcome<Task>> {
    return this.transition(id, (task, now) => released(task, id, by, now, why), (next, before) => ({
      type: 'task_released', fields: { task: id, from: before.owner, by, why, outcome: next.attempts.at(-1)?.outcome },
    }));
  }

  /** The owner (or, with `by` null, the team's routing) gives up an attempt: pending again, or blocked after `maxFailures`. */
  async fail(id: string, by: string | null, why: string, maxFailures = DEFAULT_MAX_FAILURES): Promise<Outcome<Task>> {
    const r = await this.transition(id, (task, now) => failedBy(task, id, by, why, now, maxFailures), (next, before) => ({
      type: 'task_failed', fields: { task: id, from: before.owner, by, why, status: next.status, failures: next.attempts.filter((a) => a.outcome === 'failed').length },
    }));
    // A pipeline story whose task is now blocked blocks its dependents (after this task's lock is let go).
    if (r.ok && r.value.status === 'blocked' && this.onBlocked) await this.onBlocked(r.value);
    return r;
  }

  /** Reopen a completed or blocked task; a pipeline task only when the pipeline's retry does it (`pipeline`). */
  async reopen(id: string, by: string | null, why: string | null, pipeline = false): Promise<Outcome<Task>> {
    return this.transition(id, (task, now) => { const p = pipeline ? accept(undefined) : checkPipelineTransition(task, 'reopen'); return p.ok ? reopenedTask(task, id, now) : p; }, (_next, before) => ({ type: 'task_reopened', fields: { task: id, by, from: before.status, why } }));
  }

  /** Hand an in_progress task to `to`, held by `holder`, in one write under its lock. */
  async reassign(id: string, to: string, by: string | null, holder: ProcessRef | null, why: string | null): Promise<Outcome<Task>> {
    return this.transition(id, (task, now) => reassignedTask(task, id, to, holder, now, why), (next, before) => ({
      type: 'task_reassigned', fields: { task: id, from: before.owner, to, by, why, attempt: next.attempts.length },
    }));
  }

  /** Edit subject/description of a task, compare-and-set on `revision`, whoever owns it (the lead's edit). */
  async edit(id: string, by: string | null, revision: number, edit: TaskEdit): Promise<Outcome<Task>> {
    return this.transition(id, (task, now) => editedTask(task, id, revision, edit, now), (next) => ({ type: 'task_updated', fields: { task: id, by, status: next.status, revision: next.revision } }));
  }

  /**
   * Delete a pending or blocked task: its file becomes a tombstone (status deleted) and its edges go,
   * so the tasks it blocked stop waiting for it. Holds the board lock (the graph changes), then the
   * locks of the task and its neighbours in id order. Returns the tombstone and the tasks now ready.
   */
  async remove(id: string, by: string | null): Promise<Outcome<{ task: Task; nowReady: string[] }>> {
    let neighbours: string[] = [];
    return this.noted(() => [id, ...neighbours], this.boardLocked(async () => {
      // Edges only change under the board lock, so the neighbours read here are the ones to lock.
      const first = await this.readTask(id);
      if (!first.task) return notFound(id, first.problem);
      neighbours = [...first.task.blocks, ...first.task.blockedBy];
      return this.taskLocked([id, ...neighbours], async () => {
        const { task, problem } = await this.readTask(id);
        if (problem) return notFound(id, problem);
        const now = new Date().toISOString();
        const piped = checkPipelineTransition(task, 'delete');
        if (!piped.ok) return piped;
        const next = deletedTask(task, id, now);
        if (!next.ok) return next;
        const others = await this.readMany(neighbours);
        await writeJson(this.paths.task(id), next.value);
        for (const o of others.values()) {
          const edge = { blocks: o.blocks.filter((x) => x !== id), blockedBy: o.blockedBy.filter((x) => x !== id) };
          await writeJson(this.paths.task(o.id), { ...o, ...edge, revision: o.revision + 1, updatedAt: now });
        }
        const dependents = await this.readMany(task!.blocks);
        const index = await this.readMany([...dependents.values()].flatMap((d) => d.blockedBy));
        for (const [k, v] of dependents) index.set(k, v);
        const nowReady = [...dependents.values()].filter((d) => isReady(d, index)).map((d) => d.id);
        await this.events.record('task_deleted', { task: id, by, from: task!.status, nowReady });
        return accept({ task: next.value, nowReady });
      });
    }));
  }

  /** One transition of one task under its lock: read, decide (pure), write, record the event. */
  private transition(id: string, decide: (task: Task | undefined, now: string) => Outcome<Task>, event: (next: Task, before: Task) => { type: EventType; fields: Record<string, unknown> }): Promise<Outcome<Task>> {
    return this.noted([id], this.taskLocked([id], async () => {
      const { task, problem } = await this.readTask(id);
      if (problem) return notFound(id, problem);
      const next = decide(task, new Date().toISOString());
      if (!next.ok) return next;
      await writeJson(this.paths.task(id), next.value);
      const e = event(next.value, task!);
      await this.events.record(e.type, e.fields);
      return next;
    }));
  }

  /** True once any task id was handed out: the high-water mark exists. */
  async everHadTask(): Promise<boolean> {
    return (await readText(this.paths.highWater, 'record')) !== undefined;
  }

  /** Read a set of tasks into an index (missing or bad ones are left out). */
  private async readMany(ids: string[]): Promise<Map<string, Task>> {
    const uniq = [...new Set(ids)];
    const read = await Promise.all(uniq.map((i) => this.readTask(i)));
    const index = new Map<string, Task>();
    for (const r of read) if (r.task) index.set(r.task.id, r.task);
    return index;
  }

  /** The highest id ever handed out; ids are never reused, even after a task file is deleted. */
  private async highWater(): Promise<number> {
    const text = await readText(this.paths.highWater, 'record');
    let mark = text === undefined ? NaN : Number.parseInt(text.trim(), 10);
    if (!Number.isInteger(mark) || mark < 0) {
      // No mark (or a mangled one): recover it from the files there are.
      const names = await listFolder(this.paths.tasks);
      mark = names.reduce((m, n) => (/^[1-9][0-9]*\.json$/.test(n) ? Math.max(m, Number(n.slice(0, -5))) : m), 0);
    }
    // A file added by hand past the mark still counts, so a new id never lands on an existing file.
    while (await exists(this.paths.task(String(mark + 1)))) mark++;
    return mark;
  }

  /** The board lock: held while ids are handed out and while dependency edges change. */
  private boardLocked<T>(fn: () => Promise<T>): Promise<T> {
    return withLock(this.paths.tasks, fn);
  }

  /**
   * Hold the locks of these task files (in id order, so two holders never deadlock). A task's own
   * changes (claim, update, complete, release) need only its lock, so claims on different tasks run
   * in parallel; a blocker that reads completed stays completed, so blockers are read without theirs.
   */
  private taskLocked<T>(ids: string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(ids)].sort(byId);
    const step = (i: number): Promise<T> => (i === sorted.length ? fn() : withLock(this.paths.task(sorted[i]!), () => step(i + 1)));
    return step(0);
  }
}

/** The one refusal for a task that is missing or unreadable, whatever the verb (exit 3, reason not_found). */
function notFound(id: string, problem: FileProblem | undefined): Outcome<never> {
  return missingTask(id, problem?.message);
}

export type { TaskIndex };
