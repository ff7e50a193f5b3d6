/**
 * The task transitions beyond claim, update, complete and release (src/ops/tasks.ts): a teammate
 * gives up an attempt (task_fail); the lead reopens, reassigns, edits and deletes. Each is one call
 * of the store, which checks the transition's legal source status under the task's lock, so the CLI
 * verbs, teamux's agent tools and the MCP tools share one behaviour and one set of refusals.
 */
import { z } from '../protocol/zod.js';
import { Name, type Task } from '../protocol/types.js';
import { actor, defineOp, oneLine } from './op.js';
import { TaskIdInput } from './tasks.js';

export const taskFail = defineOp({
  name: 'task_fail',
  description: 'Give up your attempt at a task you own, saying why: it goes back to pending for another try, or becomes blocked after its third failed attempt.',
  input: z.strictObject({ id: TaskIdInput, reason: z.string().min(1).describe('what went wrong, for whoever tries next') }),
  summary: (i) => `#${i.id}: ${oneLine(i.reason, 50)}`,
  run: (i, ctx) => ctx.store.tasks.fail(i.id, actor(ctx).name, i.reason),
  text: (t) => (t.status === 'blocked' ? `task ${t.id} is now blocked: ${t.blockedReason ?? ''}` : `task ${t.id} is back on the board (attempt ${t.attempts.length} failed)`),
});

export const reopenTask = defineOp({
  name: 'reopen_task',
  description: 'Reopen a completed or blocked task: it goes back to pending with no owner, ready to be claimed again (its attempts keep the history). In a pipeline, a story task blocked by failed attempts is retried (see retry_story).',
  leadOnly: true,
  input: z.strictObject({ id: TaskIdInput, reason: z.string().optional().describe('why it needs more work') }),
  summary: (i) => `#${i.id}${i.reason ? `: ${oneLine(i.reason, 50)}` : ''}`,
  run: (i, ctx) => ctx.store.reopen(ctx.me?.name ?? null, i.id, i.reason ?? null),
  text: (t) => `reopened task ${t.id}: ${t.subject}`,
});

export const reassignTask = defineOp({
  name: 'reassign_task',
  description: 'Hand an in-progress task from its owner to another member in one step; the old attempt ends "reassigned" and the new owner\'s starts.',
  leadOnly: true,
  input: z.strictObject({ id: TaskIdInput, to: Name, reason: z.string().optional() }),
  summary: (i) => `#${i.id} → ${i.to}`,
  run: (i, ctx) => ctx.store.reassign(ctx.me?.name ?? null, i.id, i.to, i.reason ?? null),
  text: (t: Task) => `task ${t.id} is now owned by ${t.owner ?? '-'} (attempt ${t.attempts.length})`,
});

export const editTask = defineOp({
  name: 'edit_task',
  description: 'Change the subject or description of a pending, in-progress or blocked task, whoever owns it. Pass the revision you read (task_get); a stale one is refused.',
  leadOnly: true,
  input: z.strictObject({ id: TaskIdInput, revision: z.number().int().min(1), subject: z.string().min(1).optional(), description: z.string().optional() }),
  summary: (i) => `#${i.id}@${i.revision}`,
  run: (i, ctx) => ctx.store.tasks.edit(i.id, ctx.me?.name ?? null, i.revision, { subject: i.subject, description: i.description }),
  text: (t) => `task ${t.id} is now at revision ${t.revision}`,
});

export const deleteTask = defineOp({
  name: 'delete_task',
  description: 'Delete a pending or blocked task. Tasks it was blocking stop waiting for it. An in-progress task must be released first; a completed one stays.',
  leadOnly: true,
  input: z.strictObject({ id: TaskIdInput }),
  summary: (i) => `#${i.id}`,
  run: (i, ctx) => ctx.store.tasks.remove(i.id, ctx.me?.name ?? null),
  text: (v) => `deleted task ${v.task.id}${v.nowReady.length ? `; now ready: ${v.nowReady.join(', ')}` : ''}`,
});
