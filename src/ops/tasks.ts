/**
 * Task board ops. Every change goes through the store, so the board's rules hold whichever front end
 * calls: claims are locked, updates are compare-and-set on `revision` (a stale one is refused and the
 * caller re-reads), completion and release need ownership. create_task is the lead's.
 */
import { z } from '../protocol/zod.js';
import { FIELD_LIMITS } from '../protocol/limits.js';
import { CriteriaInput, Finding, StoryInput, VerdictSchema } from '../protocol/pipeline.js';
import { idList, isReady, openBlockers } from '../protocol/tasks.js';
import { accept, TaskStatus, type Task } from '../protocol/types.js';
import type { TeamStore } from '../store/team.js';
import { actor, defineOp, oneLine } from './op.js';

/** A task id as a model or a caller gives it. */
export const TaskIdInput = z.string().regex(/^[1-9][0-9]{0,8}$/, { message: 'expected a task id such as "3"' });

/** A task as a model sees it. */
export function taskView(t: Task, ready?: boolean): Record<string, unknown> {
  const v: Record<string, unknown> = { id: t.id, subject: t.subject, status: t.status, owner: t.owner, revision: t.revision };
  if (ready !== undefined) v.ready = ready;
  if (t.blockedBy.length) v.blockedBy = t.blockedBy;
  if (t.blocks.length) v.blocks = t.blocks;
  if (t.description) v.description = t.description;
  if (t.result) v.result = t.result;
  if (t.pipeline) v.pipeline = { stage: t.pipeline.stage, story: t.pipeline.story, ...(t.pipeline.verdict ? { verdict: t.pipeline.verdict } : {}) };
  if (t.blockedReason) v.blockedReason = t.blockedReason;
  if (t.attempts.length) v.attempts = t.attempts.length;
  return v;
}

/** A listed task: the record and whether it can be claimed now. */
export type ListedTask = Task & { ready: boolean };

export const taskList = defineOp({
  name: 'task_list',
  description: 'List the tasks on the team board with status, owner, revision and whether each is ready to claim (deleted tasks only when asked for by status).',
  input: z.strictObject({
    status: TaskStatus.optional().describe('only tasks with this status'),
    ready: z.boolean().optional().describe('only tasks that can be claimed now'),
  }),
  summary: (i) => [i.status, i.ready ? 'ready' : ''].filter(Boolean).join(' ') || 'all',
  async run(i, ctx) {
    // The board's index picks the matching tasks; only they (and their blockers) are read.
    const listed = await ctx.store.tasks.list({ status: i.status, ready: i.ready });
    // A deleted task is a tombstone: listed only when asked for by status.
    const tasks: ListedTask[] = i.status ? listed.tasks : listed.tasks.filter((t) => t.status !== 'deleted');
    return accept({ tasks, problems: listed.problems, index: listed.index as ReadonlyMap<string, Task> });
  },
  text: (v) => (v.tasks.length === 0 ? 'no tasks match' : v.tasks.map(({ ready, ...t }) => JSON.stringify(taskView(t, ready))).join('\n')),
});

export const taskGet = defineOp({
  name: 'task_get',
  description: 'Read one task in full, including its revision (needed for task_update).',
  input: z.strictObject({ id: TaskIdInput }),
  summary: (i) => `#${i.id}`,
  async run(i, ctx) {
    const r = await ctx.store.tasks.get(i.id);
    if (!r.ok) return r;
    // Readiness needs only the task's blockers, not the board.
    const index = new Map<string, Task>([[r.value.id, r.value]]);
    for (const b of r.value.blockedBy) {
      const up = await ctx.store.tasks.get(b);
      if (up.ok) index.set(b, up.value);
    }
    return accept({ task: r.value, ready: isReady(r.value, index), waitingFor: openBlockers(r.value, index) });
  },
  text: (v) => JSON.stringify({ ...taskView(v.task, v.ready), ...(v.waitingFor.length ? { waitingFor: v.waitingFor } : {}) }),
});

export const taskClaim = defineOp({
  name: 'task_claim',
  description: 'Claim a task (by id, or the lowest ready one when id is left out). It must be pending, unowned and not blocked.',
  input: z.strictObject({ id: TaskIdInput.optional() }),
  summary: (i) => (i.id ? `#${i.id}` : 'next ready'),
  run: (i, ctx) => ctx.store.claim(actor(ctx).name, i.id),
  text: (t) => `claimed task ${t.id}: ${t.subject} (revision ${t.revision})\n${JSON.stringify(taskView(t))}`,
});

export const taskUpdate = defineOp({
  name: 'task_update',
  description: 'Change a task with compare-and-set: pass the revision you read. A stale revision is refused; re-read with task_get and retry.',
  input: z.strictObject({
    id: TaskIdInput,
    revision: z.number().int().min(1),
    status: TaskStatus.optional(),
    subject: z.string().min(1).max(FIELD_LIMITS.subject).optional(),
    description: z.string().max(FIELD_LIMITS.description).optional(),
    result: z.string().max(FIELD_LIMITS.result).optional(),
  }),
  summary: (i) => `#${i.id}@${i.revision}${i.status ? ` → ${i.status}` : ''}`,
  run: (i, ctx) => ctx.store.tasks.update(i.id, actor(ctx).name, i.revision, { status: i.status, subject: i.subject, description: i.description, result: i.result }),
  text: (t) => `task ${t.id} is now at revision ${t.revision} (${t.status})`,
});

/** What completing a pipeline task carries besides the result: a verify's verdict and findings, a plan's stories, a prd's criteria. */
const PIPELINE_COMPLETION = {
  verdict: VerdictSchema.optional().describe('pipeline verify tasks: APPROVE or ACCEPT_WITH_RESERVATIONS go on; ITERATE, REVISE or REJECT send the stories named in findings to a fix round'),
  findings: z.array(Finding).optional().describe('pipeline verify tasks: what is wrong, each with the story it is about'),
  stories: z.array(StoryInput).optional().describe('pipeline plan task: the stories, each {id, subject, blockedBy, files, acceptance}'),
  criteria: CriteriaInput.optional().describe('pipeline prd task: machine-checkable checks per story, [{story, checks}]'),
};

export const taskComplete = defineOp({
  name: 'task_complete',
  description: 'Mark a task you own as completed, with a short result. Tasks it was blocking may become ready.',
  input: z.strictObject({
    id: TaskIdInput,
    result: z.string().max(FIELD_LIMITS.result).describe('what was done, in a sentence or two'),
    ...PIPELINE_COMPLETION,
  }),
  summary: (i) => `#${i.id}${i.verdict ? ` ${i.verdict}` : ''}: ${oneLine(i.result, 50)}`,
  run: (i, ctx) => ctx.store.complete(actor(ctx).name, i.id, i.result || null, { verdict: i.verdict, findings: i.findings, stories: i.stories, criteria: i.criteria }),
  text: (v) => `completed task ${v.task.id}${v.nowReady.length ? `; now ready: ${v.nowReady.join(', ')}` : ''}`,
});

export const taskRelease = defineOp({
  name: 'task_release',
  description: 'Put a task you own back on the board (pending, no owner) so someone else can claim it.',
  input: z.strictObject({ id: TaskIdInput }),
  summary: (i) => `#${i.id}`,
  run: (i, ctx) => ctx.store.tasks.release(i.id, actor(ctx).name, 'released by owner'),
  text: (t) => `released task ${t.id}: ${t.subject}`,
});

export const createTask = defineOp({
  name: 'create_task',
  description: 'Put a new task on the board. blockedBy lists ids of tasks that must be completed first.',
  leadOnly: true,
  input: z.strictObject({
    subject: z.string().min(1).max(FIELD_LIMITS.subject),
    description: z.string().max(FIELD_LIMITS.description).default(''),
    blockedBy: z.array(TaskIdInput).default([]),
  }),
  summary: (i) => `${oneLine(i.subject, 50)}${i.blockedBy.length ? ` (after ${i.blockedBy.join(', ')})` : ''}`,
  run: (i, ctx) => ctx.store.tasks.create({ subject: i.subject, description: i.description, blockedBy: i.blockedBy }),
  text: (t) => `created task ${t.id}: ${t.subject}${t.blockedBy.length ? ` (blocked by ${idList(t.blockedBy)})` : ''}`,
});

/** Put every task `me` holds back on the board; returns their ids. */
export async function releaseHeld(store: TeamStore, me: string, why: string): Promise<string[]> {
  const board = await store.tasks.snapshot();
  const held = board.tasks.filter((t) => t.owner === me && t.status === 'in_progress');
  for (const t of held) await store.tasks.release(t.id, me, why);
  return held.map((t) => t.id);
}
