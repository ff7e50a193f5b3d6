/**
 * The task board on JetStream KV: one key per task (`task.<id>`) in the team's state bucket. Every
 * change is read → decide (the same pure rules as the folder board, from protocol/tasks) → update at
 * the revision read; a conflict means someone else changed the task first, so it is read and decided
 * again. Ids come from a counter key under the same compare-and-set. Creating tasks and adding
 * dependencies also hold the board lease (a key created by one holder at a time, taken over when stale),
 * so the dependency graph changes one step at a time, as under the folder board's lock.
 */
import { randomUUID } from 'node:crypto';
import { DeliverPolicy, type JetStreamClient } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { DEFAULT_MAX_FAILURES, type TaskEdit } from '../../protocol/task-machine.js';
import {
  applyUpdate, byId, checkClaim, checkDependency, missingTask, withBlocked, withBlocker, claimed, completed, deletedTask, editedTask, failedBy, isReady, newlyReady, reassignedTask, released,
  reopenedTask, type TaskPatch,
} from '../../protocol/tasks.js';
import { checkPipelineTransition } from '../../protocol/pipeline.js';
import { accept, refuse, Task, TASK_VERSION, type Outcome, type ProcessRef } from '../../protocol/types.js';
import type { EventStore, TaskStore } from '../backend.js';
import type { FileProblem } from '../fsx.js';
import type { BoardSnapshot, NewTask } from '../tasks.js';
import { backoff, casWrite, entryJson, getLive, retrying } from './kv.js';
import { keys, taskIdOf } from './names.js';

/** Racing claimers start at one of the first SPREAD ready tasks, not all at the lowest. */
const SPREAD = 8;
/** A board lease older than this was left by a holder that died: it may be taken over. */
const LEASE_STALE_MS = 30_000;
/** How long to wait for the board lease. */
const LEASE_WAIT_MS = 60_000;

/** Tasks of one team in its KV bucket. */
export class NatsTaskBoard implements TaskStore {
  /** Ready ids from this process's last snapshot: a hint for claim-next, checked on every claim. */
  private readyHint: string[] = [];
  /** The bucket's name, learnt on the first snapshot. */
  private bucket: string | null = null;

  constructor(private readonly kv: KV, private readonly js: JetStreamClient, private readonly events: EventStore, private readonly where: string) {}

  /** One task with the KV revision it was read at. */
  private async readEntry(id: string): Promise<{ task?: Task; revision: number; problem?: FileProblem }> {
    const e = await getLive(this.kv, keys.task(id));
    if (!e) return { revision: 0 };
    return { ...parseTask(id, e.string(), `${this.where} ${keys.task(id)}`), revision: e.revision };
  }

  async readTask(id: string): Promise<{ task?: Task; problem?: FileProblem }> {
    const { task, problem } = await this.readEntry(id);
    return { ...(task ? { task } : {}), ...(problem ? { problem } : {}) };
  }

  /**
   * Every task in one pass: the last value of each task key, streamed by an ordered consumer
   * (one round of messages, not a request per task).
   */
  async snapshot(): Promise<BoardSnapshot> {
    const entries = await retrying(() => this.lastValues());
    const tasks: Task[] = [];
    const problems: FileProblem[] = [];
    for (const [id, text] of entries) {
      const r = parseTask(id, text, `${this.where} ${keys.task(id)}`);
      if (r.task) tasks.push(r.task);
      else if (r.problem) problems.push(r.problem);
    }
    tasks.sort((a, b) => byId(a.id, b.id));
    return { tasks, index: new Map(tasks.map((t) => [t.id, t])), problems };
  }

  /** Tasks with their readiness, filtered, from one snapshot. */
  async list(filter: { status?: string; ready?: boolean } = {}): Promise<{ tasks: Array<Task & { ready: boolean }>; index: Map<string, Task>; problems: FileProblem[] }> {
    const board = await this.snapshot();
    const tasks = board.tasks.map((t) => ({ ...t, ready: isReady(t, board.index) }))
      .filter((t) => (filter.status === undefined || t.status === filter.status) && (!filter.ready || t.ready));
    return { tasks, index: board.index, problems: board.problems };
  }

  /** The current text of every task key (deleted keys left out). */
  private async lastValues(): Promise<Map<string, string>> {
    this.bucket ??= (await this.kv.status()).bucket;
    const bucket = this.bucket;
    const prefix = `$KV.${bucket}.`;
    const oc = await this.js.consumers.get(`KV_${bucket}`, { filter_subjects: `${prefix}${keys.allTasks}`, deliver_policy: DeliverPolicy.LastPerSubject });
    const out = new Map<string, string>();
    try {
      let left = (await oc.info()).num_pending;
      while (left > 0) {
        const batch = await oc.fetch({ max_messages: Math.min(left, 1_000), expires: 5_000 });
        let got = 0;
        for await (const m of batch) {
          got++;
          left = m.info.pending;
          const id = taskIdOf(m.subject.slice(prefix.length));
          const op = m.headers?.get('KV-Operation');
          if (id === null) continue;
          if (op === 'DEL' || op === 'PURGE') out.delete(id);
          else out.set(id, m.string());
        }
        if (got === 0) throw new Error('the task bucket stopped answering in the middle of a snapshot');
      }
    } finally {
      await oc.delete().catch(() => {});
    }
    return out;
  }

  async get(id: string): Promise<Outcome<Task>> {
    const r = await this.readTask(id);
    return r.task ? accept(r.task) : notFound(id, r.problem);
  }

  async create(input: NewTask): Promise<Outcome<Task>> {
    const blockedBy = [...new Set(input.blockedBy ?? [])].sort(byId);
    return this.leased(async () => {
      const blockers = await this.readMany(blockedBy);
      for (const b of blockedBy) if (!blockers.has(b)) return refuse<Task>('not_found', `blocker task ${b} does not exist`);
      const id = await this.nextId();
      const now = new Date().toISOString();
      const task: Task = {
        version: TASK_VERSION, id, subject: input.subject, description: input.description ?? '', status: 'pending', owner: null,
        blocks: [], blockedBy, revision: 1, createdAt: now, updatedAt: now, claimedAt: null, completedAt: null, result: null, holder: null,
        attempts: [], blockedReason: null, reopenedAt: null,
      };
      if (!(await casWrite(this.kv, keys.task(id), JSON.stringify(task), 0))) throw new Error(`task ${id} appeared while its id was being handed out`);
      for (const b of blockedBy) {
        await this.modify(b, () => [], (up) => accept({ ...up!, blocks: [...new Set([...up!.blocks, id])].sort(byId), revision: up!.revision + 1, updatedAt: now }));
      }
      await this.events.record('task_created', { task: id, subject: task.subject, blockedBy });
      return accept(task);
    });
  }

  async addDependency(id: string, blocker: string): Promise<Outcome<Task>> {
    return this.leased(async () => {
      const board = await this.snapshot();
      const check = checkDependency(board.index, id, blocker);
      if (check.step === 'missing') return notFound(check.id, (await this.readTask(check.id)).problem);
      if (check.step === 'settled') return check.outcome;
      const now = new Date().toISOString();
      // blockedBy first: a crash between the two writes leaves the task blocked, never wrongly ready.
      const next = await this.modify(id, () => [], (t) => accept(withBlocker(t!, blocker, now)));
      if (!next.ok) return next;
      await this.modify(blocker, () => [], (t) => accept(withBlocked(t!, id, now)));
      await this.events.record('task_updated', { task: id, blockedBy: next.value.blockedBy });
      return next;
    });
  }

  /**
   * Claim `id`, or the next ready task. Candidates come from a snapshot kept between calls as a hint
   * (each process starting at a different one of the first few, so racing claimers spread out); each
   * is read and claimed under compare-and-set on its own. Only when the hint runs dry is the board
   * read again, and "no ready task" always rests on a fresh read.
   */
  async claim(by: string, id?: string, holder: ProcessRef | null = null): Promise<Outcome<Task>> {
    if (id !== undefined) return this.claimOne(by, id, holder);
    for (let fresh = this.readyHint.length === 0; ; fresh = true) {
      if (fresh) {
        const board = await this.snapshot();
        const ready = board.tasks.filter((t) => isReady(t, board.index)).map((t) => t.id);
        const start = process.pid % Math.min(SPREAD, Math.max(1, ready.length));
        this.readyHint = [...ready.slice(start), ...ready.slice(0, start)];
        if (this.readyHint.length === 0) return refuse('no_ready_task', 'no task is ready to claim');
      }
      while (this.readyHint.length > 0) {
        const r = await this.claimOne(by, this.readyHint.shift()!, holder);
        if (r.ok) return r;
      }
      // Every candidate went to someone else: look again, a completion may have made more ready.
    }
  }

  private async claimOne(by: string, id: string, holder: ProcessRef | null): Promise<Outcome<Task>> {
    const r = await this.modify(id, (t) => t.blockedBy, (task, index) => {
      const check = checkClaim(task, index, id);
      return check.ok ? accept(claimed(check.value, by, new Date().toISOString(), holder)) : check;
    });
    if (r.ok) await this.events.record('task_claimed', { task: id, by });
    return r;
  }

  async update(id: string, by: string, revision: number, patch: TaskPatch): Promise<Outcome<Task>> {
    let before: Task | undefined;
    const r = await this.modify(id, (t) => t.blockedBy, (task, index) => {
      before = task;
      return applyUpdate(task, id, by, revision, patch, index, new Date().toISOString());
    });
    if (r.ok) {
      const kind = r.value.status === 'completed' && before!.status !== 'completed' ? 'task_completed' : 'task_updated';
      await this.events.record(kind, { task: id, by, status: r.value.status, revision: r.value.revision });
    }
    return r;
  }

  async complete(id: string, by: string, result: string | null): Promise<Outcome<{ task: Task; nowReady: string[] }>> {
    const r = await this.modify(id, (t) => [...t.blockedBy, ...t.blocks], (task, index) => completed(task, id, by, result, index, new Date().toISOString()));
    if (!r.ok) return r;
    const index = await this.readMany(r.value.blocks);
    index.set(id, r.value);
    for (const [k, v] of await this.readMany(r.value.blocks.flatMap((d) => index.get(d)?.blockedBy ?? []))) if (k !== id) index.set(k, v);
    const nowReady = newlyReady(r.value, index);
    await this.events.record('task_completed', { task: id, by, nowReady });
    return accept({ task: r.value, nowReady });
  }

  async release(id: string, by: string | null, why: string): Promise<Outcome<Task>> {
    let from: string | null = null;
    const r = await this.modify(id, () => [], (task) => {
      from = task?.owner ?? null;
      return released(task, id, by, new Date().toISOString());
    });
    if (r.ok) await this.events.record('task_released', { task: id, from, by, why });
    return r;
  }

  async fail(id: string, by: string | null, why: string, maxFailures = DEFAULT_MAX_FAILURES): Promise<Outcome<Task>> {
    let from: string | null = null;
    const r = await this.modify(id, () => [], (task) => {
      from = task?.owner ?? null;
      return failedBy(task, id, by, why, new Date().toISOString(), maxFailures);
    });
    if (r.ok) await this.events.record('task_failed', { task: id, from, by, why, status: r.value.status, failures: r.value.attempts.filter((a) => a.outcome === 'failed').length });
    return r;
  }

  async reopen(id: string, by: string | null, why: string | null): Promise<Outcome<Task>> {
    let from: string | null = null;
    const r = await this.modify(id, () => [], (task) => {
      from = task?.status ?? null;
      const p = checkPipelineTransition(task, 'reopen');
      return p.ok ? reopenedTask(task, id, new Date().toISOString()) : p;
    });
    if (r.ok) await this.events.record('task_reopened', { task: id, by, from, why });
    return r;
  }

  async reassign(id: string, to: string, by: string | null, holder: ProcessRef | null, why: string | null): Promise<Outcome<Task>> {
    let from: string | null = null;
    const r = await this.modify(id, () => [], (task) => {
      from = task?.owner ?? null;
      return reassignedTask(task, id, to, holder, new Date().toISOString(), why);
    });
    if (r.ok) await this.events.record('task_reassigned', { task: id, from, to, by, why, attempt: r.value.attempts.length });
    return r;
  }

  async edit(id: string, by: string | null, revision: number, edit: TaskEdit): Promise<Outcome<Task>> {
    const r = await this.modify(id, () => [], (task) => editedTask(task, id, revision, edit, new Date().toISOString()));
    if (r.ok) await this.events.record('task_updated', { task: id, by, status: r.value.status, revision: r.value.revision });
    return r;
  }

  /** The tombstone first, then each neighbour's edge, all under the board lease (edges change only under it). */
  async remove(id: string, by: string | null): Promise<Outcome<{ task: Task; nowReady: string[] }>> {
    return this.leased(async () => {
      let before: Task | undefined;
      const r = await this.modify(id, () => [], (task) => {
        before = task;
        const p = checkPipelineTransition(task, 'delete');
        return p.ok ? deletedTask(task, id, new Date().toISOString()) : p;
      });
      if (!r.ok) return r;
      const now = new Date().toISOString();
      for (const other of [...before!.blocks, ...before!.blockedBy]) {
        await this.modify(other, () => [], (o) => accept({ ...o!, blocks: o!.blocks.filter((x) => x !== id), blockedBy: o!.blockedBy.filter((x) => x !== id), revision: o!.revision + 1, updatedAt: now }));
      }
      const dependents = await this.readMany(before!.blocks);
      const index = await this.readMany([...dependents.values()].flatMap((d) => d.blockedBy));
      for (const [k, v] of dependents) index.set(k, v);
      const nowReady = [...dependents.values()].filter((d) => isReady(d, index)).map((d) => d.id);
      await this.events.record('task_deleted', { task: id, by, from: before!.status, nowReady });
      return accept({ task: r.value, nowReady });
    });
  }

  async everHadTask(): Promise<boolean> {
    return (await getLive(this.kv, keys.counter)) !== null;
  }

  /**
   * Read a task (and the tasks `deps` names), decide with `fn`, and write the result at the revision
   * read; on a conflict, read and decide again. A refusal from `fn` is returned as it is.
   */
  private async modify(id: string, deps: (t: Task) => string[], fn: (task: Task | undefined, index: Map<string, Task>) => Outcome<Task>): Promise<Outcome<Task>> {
    for (let attempt = 0; ; attempt++) {
      const { task, revision, problem } = await this.readEntry(id);
      if (problem || task === undefined) return notFound(id, problem);
      const next = fn(task, await this.readMany(deps(task)));
      if (!next.ok) return next;
      if (await casWrite(this.kv, keys.task(id), JSON.stringify(next.value), revision)) return next;
      if (attempt > 3) await backoff(attempt - 3);
    }
  }

  /** Read a set of tasks into an index (missing or bad ones are left out). */
  private async readMany(ids: string[]): Promise<Map<string, Task>> {
    const read = await Promise.all([...new Set(ids)].map((i) => this.readTask(i)));
    const index = new Map<string, Task>();
    for (const r of read) if (r.task) index.set(r.task.id, r.task);
    return index;
  }

  /** The next task id: the counter moved up by one under compare-and-set, past any task that exists. */
  private async nextId(): Promise<string> {
    for (;;) {
      const e = await getLive(this.kv, keys.counter);
      let mark = e ? Number.parseInt(e.string(), 10) : 0;
      if (!Number.isInteger(mark) || mark < 0) mark = 0;
      let next = mark + 1;
      while ((await getLive(this.kv, keys.task(String(next)))) !== null) next++;
      if (await casWrite(this.kv, keys.counter, String(next), e ? e.revision : 0)) return String(next);
    }
  }

  /** Hold the board lease for `fn`: one creator or dependency change at a time, team-wide. */
  private async leased<T>(fn: () => Promise<T>): Promise<T> {
    const me = JSON.stringify({ owner: randomUUID(), pid: process.pid, at: Date.now() });
    const deadline = Date.now() + LEASE_WAIT_MS;
    let revision = 0;
    for (let attempt = 0; revision === 0; attempt++) {
      const held = await getLive(this.kv, keys.boardLease);
      if (held === null) {
        const deleted = await retrying(() => this.kv.get(keys.boardLease));
        if (await casWrite(this.kv, keys.boardLease, me, deleted ? deleted.revision : 0)) revision = (await getLive(this.kv, keys.boardLease))?.revision ?? 0;
      } else {
        const at = Number((entryJson(held).ok ? (entryJson(held) as { value: { at?: unknown } }).value.at : 0) ?? 0);
        if (Date.now() - at > LEASE_STALE_MS && (await casWrite(this.kv, keys.boardLease, me, held.revision))) revision = (await getLive(this.kv, keys.boardLease))?.revision ?? 0;
      }
      if (revision === 0) {
        if (Date.now() > deadline) throw new Error('the task board is busy (another process holds its lease for over a minute)');
        await backoff(Math.min(attempt, 5));
      }
    }
    try {
      return await fn();
    } finally {
      await retrying(() => this.kv.delete(keys.boardLease, { previousSeq: revision })).catch(() => {});
    }
  }
}

/** A task from the text of its key, or the problem with it. */
function parseTask(id: string, text: string, place: string): { task?: Task; problem?: FileProblem } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: { path: place, message: `bad JSON: ${(err as Error).message}` } };
  }
  const parsed = Task.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: { path: place, message: `${issue.path.join('.') || '(top)'}: ${issue.message}` } };
  }
  if (parsed.data.id !== id) return { problem: { path: place, message: `id is "${parsed.data.id}" but the key is ${keys.task(id)}` } };
  return { task: parsed.data };
}

/** The one refusal for a task that is missing or unreadable. */
function notFound(id: string, problem: FileProblem | undefined): Outcome<never> {
  return missingTask(id, problem?.message);
}
