/**
 * Task board tools. Every change goes through the store, so the board's rules hold for agents as
 * for the CLI: claims are locked, updates are compare-and-set on `revision` (a stale one is refused
 * and the model re-reads), completion needs ownership. create_task is the lead's.
 */
import { z } from 'zod';
import { isReady, openBlockers } from '../../protocol/tasks.js';
import { TaskStatus, type Task } from '../../protocol/types.js';
import { defineTool, fromOutcome, ok, oneLine, type AnyTool } from './types.js';

const TaskIdInput = z.string().regex(/^[1-9][0-9]{0,8}$/, { message: 'expected a task id such as "3"' });

/** A task as the model sees it. */
export function taskView(t: Task, ready?: boolean): Record<string, unknown> {
  const v: Record<string, unknown> = { id: t.id, subject: t.subject, status: t.status, owner: t.owner, revision: t.revision };
  if (ready !== undefined) v.ready = ready;
  if (t.blockedBy.length) v.blockedBy = t.blockedBy;
  if (t.blocks.length) v.blocks = t.blocks;
  if (t.description) v.description = t.description;
  if (t.result) v.result = t.result;
  return v;
}

export const taskList = defineTool({
  name: 'task_list',
  description: 'List the tasks on the team board with status, owner, revision and whether each is ready to claim.',
  input: z.strictObject({
    status: TaskStatus.optional().describe('only tasks with this status'),
    ready: z.boolean().optional().describe('only tasks that can be claimed now'),
  }),
  summary: (i) => [i.status, i.ready ? 'ready' : ''].filter(Boolean).join(' ') || 'all',
  async run(i, ctx) {
    const board = await ctx.store.tasks.snapshot();
    let tasks = board.tasks.map((t) => ({ t, ready: isReady(t, board.index) }));
    if (i.status) tasks = tasks.filter((x) => x.t.status === i.status);
    if (i.ready) tasks = tasks.filter((x) => x.ready);
    if (tasks.length === 0) return ok('no tasks match');
    return ok(tasks.map((x) => JSON.stringify(taskView(x.t, x.ready))).join('\n'));
  },
});

export const taskGet = defineTool({
  name: 'task_get',
  description: 'Read one task in full, including its revision (needed for task_update).',
  input: z.strictObject({ id: TaskIdInput }),
  summary: (i) => `#${i.id}`,
  async run(i, ctx) {
    const r = await ctx.store.tasks.get(i.id);
    if (!r.ok) return fromOutcome(r, () => '');
    const board = await ctx.store.tasks.snapshot();
    const open = openBlockers(r.value, board.index);
    return ok(JSON.stringify({ ...taskView(r.value, isReady(r.value, board.index)), ...(open.length ? { waitingFor: open } : {}) }));
  },
});

export const taskClaim = defineTool({
  name: 'task_claim',
  description: 'Claim a task (by id, or the lowest ready one when id is left out). It must be pending, unowned and not blocked.',
  input: z.strictObject({ id: TaskIdInput.optional() }),
  summary: (i) => (i.id ? `#${i.id}` : 'next ready'),
  async run(i, ctx) {
    const r = await ctx.store.claim(ctx.me.name, i.id);
    return fromOutcome(r, (t) => `claimed task ${t.id}: ${t.subject} (revision ${t.revision})\n${JSON.stringify(taskView(t))}`);
  },
});

export const taskUpdate = defineTool({
  name: 'task_update',
  description: 'Change a task with compare-and-set: pass the revision you read. A stale revision is refused; re-read with task_get and retry.',
  input: z.strictObject({
    id: TaskIdInput,
    revision: z.number().int().min(1),
    status: TaskStatus.optional(),
    subject: z.string().min(1).optional(),
    description: z.string().optional(),
    result: z.string().optional(),
  }),
  summary: (i) => `#${i.id}@${i.revision}${i.status ? ` → ${i.status}` : ''}`,
  async run(i, ctx) {
    const r = await ctx.store.tasks.update(i.id, ctx.me.name, i.revision, { status: i.status, subject: i.subject, description: i.description, result: i.result });
    return fromOutcome(r, (t) => `task ${t.id} is now at revision ${t.revision} (${t.status})`);
  },
});

export const taskComplete = defineTool({
  name: 'task_complete',
  description: 'Mark a task you own as completed, with a short result. Tasks it was blocking may become ready.',
  input: z.strictObject({ id: TaskIdInput, result: z.string().describe('what was done, in a sentence or two') }),
  summary: (i) => `#${i.id}: ${oneLine(i.result, 50)}`,
  async run(i, ctx) {
    const r = await ctx.store.tasks.complete(i.id, ctx.me.name, i.result);
    return fromOutcome(r, (v) => `completed task ${v.task.id}${v.nowReady.length ? `; now ready: ${v.nowReady.join(', ')}` : ''}`);
  },
});

export const createTask = defineTool({
  name: 'create_task',
  description: 'Put a new task on the board. blockedBy lists ids of tasks that must be completed first.',
  leadOnly: true,
  input: z.strictObject({
    subject: z.string().min(1),
    description: z.string().default(''),
    blockedBy: z.array(TaskIdInput).default([]),
  }),
  summary: (i) => `${oneLine(i.subject, 50)}${i.blockedBy.length ? ` (after ${i.blockedBy.join(', ')})` : ''}`,
  async run(i, ctx) {
    const r = await ctx.store.tasks.create({ subject: i.subject, description: i.description, blockedBy: i.blockedBy });
    return fromOutcome(r, (t) => `created task ${t.id}: ${t.subject}${t.blockedBy.length ? ` (blocked by ${t.blockedBy.join(', ')})` : ''}`);
  },
});

/** Every member's task tools. */
export const TASK_TOOLS: AnyTool[] = [taskList, taskGet, taskClaim, taskUpdate, taskComplete];
