/**
 * Messaging ops: a message to one member, a broadcast, a task assignment, and reading one's own
 * inbox. Every name is checked against the roster by the store, so a message to an unknown member is
 * refused with a reason. read_inbox leaves the cursor where it was until the reply has reached the
 * caller (its `delivered` step), so messages lost in transit are read again.
 */
import { z } from '../protocol/zod.js';
import { accept, Name, refuse, type Message, type MessageType, type Outcome } from '../protocol/types.js';
import type { FileProblem } from '../store/fsx.js';
import type { Cursor } from '../store/inbox.js';
import type { TeamStore } from '../store/team.js';
import { actor, defineOp, oneLine, type OpContext } from './op.js';
import { TaskIdInput } from './tasks.js';

export const sendMessage = defineOp({
  name: 'send_message',
  description: 'Send a message to one teammate (or the lead). It lands in their inbox and wakes them if idle.',
  input: z.strictObject({ to: Name, text: z.string().min(1) }),
  summary: (i) => `→ ${i.to}: ${oneLine(i.text, 50)}`,
  run: (i, ctx) => sendTyped(ctx, { to: i.to, text: i.text, type: 'message' }),
  text: (m) => `sent to ${m.to}`,
});

/** Send a message of any type but broadcast (the CLI's `msg send --type`); send_message is its model-facing form. */
export async function sendTyped(ctx: OpContext, out: { to: string; text: string; type: Exclude<MessageType, 'broadcast'>; request_id?: string }): Promise<Outcome<Message>> {
  const me = actor(ctx).name;
  if (out.to === me) return refuse('invalid_input', 'a member cannot send a message to itself');
  return ctx.store.send({ from: me, to: out.to, type: out.type, text: out.text, request_id: out.request_id });
}

export const broadcast = defineOp({
  name: 'broadcast',
  description: 'Send one message to every other member of the team.',
  leadOnly: true,
  input: z.strictObject({ text: z.string().min(1) }),
  summary: (i) => oneLine(i.text, 60),
  run: (i, ctx) => ctx.store.broadcast(actor(ctx).name, i.text),
  text: (ms) => `broadcast to ${ms.map((m) => m.to).join(', ') || 'nobody'}`,
});

export const assignTask = defineOp({
  name: 'assign_task',
  description: 'Ask a teammate to take a task: sends them a task_assignment message (they claim it with task_claim).',
  leadOnly: true,
  input: z.strictObject({
    task_id: TaskIdInput,
    to: Name,
    note: z.string().optional().describe('anything the assignee should know'),
  }),
  summary: (i) => `#${i.task_id} → ${i.to}`,
  async run(i, ctx) {
    const t = await ctx.store.tasks.get(i.task_id);
    if (!t.ok) return t;
    if (t.value.status === 'completed') return refuse('already_completed', `task ${i.task_id} is already completed`);
    if (t.value.status === 'deleted' || t.value.status === 'blocked') return refuse('illegal_transition', `task ${i.task_id} is ${t.value.status}; ${t.value.status === 'blocked' ? 'reopen it first' : 'a deleted task is final'}`);
    const text = [`Please take task ${t.value.id}: ${t.value.subject}.`, t.value.description, i.note ?? ''].filter(Boolean).join('\n');
    return ctx.store.send({ from: actor(ctx).name, to: i.to, type: 'task_assignment', text, payload: { task_id: t.value.id } });
  },
  text: (m) => `assigned task ${m.payload?.task_id as string} to ${m.to}`,
});

/** What read_inbox found: the messages, lines it skipped, and where the cursor goes once they are handed over. */
export interface InboxRead {
  member: string;
  messages: Message[];
  problems: FileProblem[];
  next: Cursor;
  peek: boolean;
}

export const readInbox = defineOp({
  name: 'read_inbox',
  description: 'Read your unread messages (oldest first); they count as read once this reply reaches you. With wait_s, wait up to that many seconds for one to arrive. With peek, leave them unread.',
  input: z.strictObject({
    wait_s: z.number().min(0).max(600).default(0).describe('seconds to wait for a message when there is none'),
    peek: z.boolean().default(false).describe('look without marking them read'),
  }),
  summary: (i) => (i.wait_s ? `wait ${i.wait_s}s` : 'now') + (i.peek ? ' (peek)' : ''),
  async run(i, ctx) {
    const me = actor(ctx).name;
    if (i.wait_s > 0) await ctx.store.mail.waitForUnread(me, me, i.wait_s * 1000, ctx.signal);
    const r = await ctx.store.mail.unread(me, me);
    return accept<InboxRead>({ member: me, messages: r.messages, problems: r.problems, next: r.next, peek: i.peek });
  },
  text: (v) => {
    const skipped = v.problems.map((p) => `(skipped a bad inbox line: ${p.message})`);
    if (v.messages.length === 0) return ['no unread messages', ...skipped].join('\n');
    return [...v.messages.map((m) => JSON.stringify(messageView(m))), ...skipped].join('\n');
  },
  delivered: (v, ctx) => commitInbox(ctx.store, v),
});

/** Move the reader's cursor past what a read returned (nothing to do for a peek or an empty read). */
export async function commitInbox(store: TeamStore, v: InboxRead): Promise<void> {
  if (v.peek || (v.messages.length === 0 && v.problems.length === 0)) return;
  await store.mail.commit(v.member, v.member, v.next);
}

/** A message as a model sees it. */
export function messageView(m: Message): Record<string, unknown> {
  const v: Record<string, unknown> = { id: m.id, from: m.from, type: m.type, time: m.time, text: m.text };
  if (m.request_id) v.request_id = m.request_id;
  if (m.payload) v.payload = m.payload;
  return v;
}
