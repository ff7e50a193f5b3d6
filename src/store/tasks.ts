/**
 * The task board: one JSON file per task under `tasks/`, ids kept by a high-water mark so none is
 * reused, and every change made under one board lock with compare-and-set on `revision`. Readiness
 * and the DAG rules come from protocol/tasks; this file only reads, locks and writes.
 */
import { promises as fsp } from 'node:fs';
import {
  applyUpdate, byId, checkClaim, claimed, completed, isReady, newlyReady, released, wouldCycle,
  type TaskIndex, type TaskPatch,
} from '../protocol/tasks.js';
import { accept, refuse, Task, type Outcome } from '../protocol/types.js';
import type { EventLog } from './events.js';
import { atomicWrite, ensureDir, parseJson, readText, writeJson, type FileProblem } from './fsx.js';
import { withLock } from './lock.js';
import type { TeamPaths } from './paths.js';

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
}

/** Tasks of one team folder. */
export class TaskBoard {
  /** Ready ids from this process's last scan, lowest first: a hint for claim-next, verified under the lock. */
  private readyHint: string[] = [];

  constructor(private readonly paths: TeamPaths, private readonly events: EventLog) {}

  /** Read every task file; bad files are reported and skipped, never fatal. */
  async snapshot(): Promise<BoardSnapshot> {
    let names: string[];
    try {
      names = await fsp.readdir(this.paths.tasks);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { tasks: [], index: new Map(), problems: [] };
      throw err;
    }
    const files = names.filter((n) => /^[1-9][0-9]*\.json$/.test(n));
    const read = await Promise.all(files.map((n) => this.readTask(n.slice(0, -5))));
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
    const text = await readText(file);
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
    if (r.task) return accept(r.task);
    return refuse('not_found', r.problem ? `task ${id} cannot be read: ${r.problem.message}` : `task ${id} does not exist`);
  }

  /** Create a task; its blockers get the new id in their `blocks`. */
  async create(input: NewTask): Promise<Outcome<Task>> {
    await ensureDir(this.paths.tasks);
    return this.locked(async () => {
      const blockedBy = [...new Set(input.blockedBy ?? [])].sort(byId);
      const blockers = await this.readMany(blockedBy);
      for (const b of blockedBy) if (!blockers.has(b)) return refuse<Task>('not_found', `blocker task ${b} does not exist`);
      const id = String((await this.highWater()) + 1);
      const now = new Date().toISOString();
      const task: Task = {
        version: 1, id, subject: input.subject, description: input.description ?? '', status: 'pending', owner: null,
        blocks: [], blockedBy, revision: 1, createdAt: now, updatedAt: now, claimedAt: null, completedAt: null, result: null,
      };
      await atomicWrite(this.paths.highWater, id + '\n');
      await writeJson(this.paths.task(id), task);
      for (const blocker of blockers.values()) {
        await writeJson(this.paths.task(blocker.id), { ...blocker, blocks: [...blocker.blocks, id].sort(byId), revision: blocker.revision + 1, updatedAt: now });
      }
      await this.events.record('task_created', { task: id, subject: task.subject, blockedBy });
      return accept(task);
    });
  }

  /** Make `id` blocked by `blocker`, keeping both sides symmetric; a cycle is refused. */
  async addDependency(id: string, blocker: string): Promise<Outcome<Task>> {
    return this.locked(async () => {
      const board = await this.snapshot();
      const task = board.index.get(id);
      const up = board.index.get(blocker);
      if (!task) return refuse<Task>('not_found', `task ${id} does not exist`);
      if (!up) return refuse<Task>('not_found', `task ${blocker} does not exist`);
      if (task.blockedBy.includes(blocker)) return accept(task);
      if (wouldCycle(board.index, id, blocker)) return refuse<Task>('cycle', `task ${id} blocked by ${blocker} would make a dependency cycle`);
      const now = new Date().toISOString();
      const next = { ...task, blockedBy: [...task.blockedBy, blocker].sort(byId), revision: task.revision + 1, updatedAt: now };
      await writeJson(this.paths.task(blocker), { ...up, blocks: [...up.blocks, id].sort(byId), revision: up.revision + 1, updatedAt: now });
      await writeJson(this.paths.task(id), next);
      await this.events.record('task_updated', { task: id, blockedBy: next.blockedBy });
      return accept(next);
    });
  }

  /**
   * Claim a task by id, or the next ready one when id is undefined. For the latter, candidates come
   * from a snapshot taken without the lock (kept between calls as a hint, lowest id first) and each is
   * verified under the lock; a lost race costs one file read, and only when no hinted candidate is
   * still claimable is the board scanned again. The answer "no ready task" always rests on a fresh scan.
   */
  async claim(by: string, id?: string): Promise<Outcome<Task>> {
    if (id !== undefined) return this.locked(() => this.claimLocked(by, id));
    for (let fresh = this.readyHint.length === 0; ; fresh = true) {
      if (fresh) {
        const board = await this.snapshot();
        this.readyHint = board.tasks.filter((t) => isReady(t, board.index)).map((t) => t.id);
        if (this.readyHint.length === 0) return refuse('no_ready_task', 'no task is ready to claim');
      }
      const won = await this.locked(async () => {
        while (this.readyHint.length > 0) {
          const r = await this.claimLocked(by, this.readyHint.shift()!);
          if (r.ok) return r;
        }
        return undefined;
      });
      if (won) return won;
      if (fresh) return refuse('no_ready_task', 'no task is ready to claim');
    }
  }

  private async claimLocked(by: string, id: string): Promise<Outcome<Task>> {
    const { task } = await this.readTask(id);
    const index = await this.readMany(task?.blockedBy ?? []);
    const check = checkClaim(task, index, id);
    if (!check.ok) return check;
    const now = new Date().toISOString();
    const next = claimed(check.value, by, now);
    await writeJson(this.paths.task(id), next);
    await this.events.record('task_claimed', { task: id, by });
    return accept(next);
  }

  /** Compare-and-set update of a task by `by` who read `revision`. */
  async update(id: string, by: string, revision: number, patch: TaskPatch): Promise<Outcome<Task>> {
    return this.locked(async () => {
      const { task } = await this.readTask(id);
      const index = await this.readMany(task?.blockedBy ?? []);
      const next = applyUpdate(task, id, by, revision, patch, index, new Date().toISOString());
      if (!next.ok) return next;
      await writeJson(this.paths.task(id), next.value);
      const kind = next.value.status === 'completed' && task!.status !== 'completed' ? 'task_completed' : 'task_updated';
      await this.events.record(kind, { task: id, by, status: next.value.status, revision: next.value.revision });
      return next;
    });
  }

  /** Complete a task owned by `by`; returns it and the ids of dependents that became ready. */
  async complete(id: string, by: string, result: string | null): Promise<Outcome<{ task: Task; nowReady: string[] }>> {
    return this.locked(async () => {
      const { task } = await this.readTask(id);
      const index = await this.readMany([...(task?.blockedBy ?? []), ...(task?.blocks ?? [])]);
      const next = completed(task, id, by, result, index, new Date().toISOString());
      if (!next.ok) return next;
      await writeJson(this.paths.task(id), next.value);
      index.set(id, next.value);
      const downstream = await this.readMany(next.value.blocks.flatMap((d) => index.get(d)?.blockedBy ?? []));
      for (const [k, v] of downstream) index.set(k, v);
      const nowReady = newlyReady(next.value, index);
      await this.events.record('task_completed', { task: id, by, nowReady });
      return accept({ task: next.value, nowReady });
    });
  }

  /** Release a claimed task back to pending (by its owner, or by anyone when `by` is null). */
  async release(id: string, by: string | null, why: string): Promise<Outcome<Task>> {
    return this.locked(async () => {
      const { task } = await this.readTask(id);
      const next = released(task, id, by, new Date().toISOString());
      if (!next.ok) return next;
      await writeJson(this.paths.task(id), next.value);
      await this.events.record('task_released', { task: id, from: task!.owner, by, why });
      return next;
    });
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
    const text = await readText(this.paths.highWater);
    const recorded = text === undefined ? 0 : Number.parseInt(text.trim(), 10) || 0;
    // Files added by hand past the mark still count, so a new id never lands on an existing file.
    const names = await fsp.readdir(this.paths.tasks);
    const seen = names.reduce((m, n) => (/^[1-9][0-9]*\.json$/.test(n) ? Math.max(m, Number(n.slice(0, -5))) : m), 0);
    return Math.max(recorded, seen);
  }

  private locked<T>(fn: () => Promise<T>): Promise<T> {
    return withLock(this.paths.tasks, fn);
  }
}

export type { TaskIndex };
