/**
 * Messaging and request tools. Any member can message another and submit a plan; the lead also
 * assigns tasks, broadcasts, answers plan requests and asks members to shut down. Each goes through
 * TeamStore, so unknown names, duplicate answers and wrong responders are refused with a reason.
 */
import { z } from 'zod';
import { Name, RequestId } from '../../protocol/types.js';
import { defineTool, fail, fromOutcome, ok, oneLine, type AnyTool } from './types.js';

export const sendMessage = defineTool({
  name: 'send_message',
  description: 'Send a message to one teammate (or the lead). It lands in their inbox and wakes them if idle.',
  input: z.strictObject({ to: Name, text: z.string().min(1) }),
  summary: (i) => `→ ${i.to}: ${oneLine(i.text, 50)}`,
  async run(i, ctx) {
    if (i.to === ctx.me.name) return fail('you cannot send a message to yourself');
    const r = await ctx.store.send({ from: ctx.me.name, to: i.to, type: 'message', text: i.text });
    return fromOutcome(r, (m) => `sent to ${m.to}`);
  },
});

export const submitPlan = defineTool({
  name: 'submit_plan',
  description: 'Submit your plan for approval. Until it is approved, bash, write_file and edit_file are blocked. The answer arrives as a plan_approval_response message.',
  input: z.strictObject({ plan: z.string().min(1).describe('what you will change and how, step by step') }),
  summary: (i) => oneLine(i.plan, 60),
  async run(i, ctx) {
    const approver = ctx.planApprover;
    const r = await ctx.store.openRequest('plan_approval', ctx.me.name, approver, i.plan);
    return fromOutcome(r, (q) => `plan submitted to ${approver} as ${q.id}; status pending. Wait for the plan_approval_response before changing anything.`);
  },
});

export const assignTask = defineTool({
  name: 'assign_task',
  description: 'Ask a teammate to take a task: sends them a task_assignment message (they claim it with task_claim).',
  leadOnly: true,
  input: z.strictObject({
    task_id: z.string().regex(/^[1-9][0-9]{0,8}$/, { message: 'expected a task id such as "3"' }),
    to: Name,
    note: z.string().optional().describe('anything the assignee should know'),
  }),
  summary: (i) => `#${i.task_id} → ${i.to}`,
  async run(i, ctx) {
    const t = await ctx.store.tasks.get(i.task_id);
    if (!t.ok) return fromOutcome(t, () => '');
    if (t.value.status === 'completed') return fail(`task ${i.task_id} is already completed`);
    const text = [`Please take task ${t.value.id}: ${t.value.subject}.`, t.value.description, i.note ?? ''].filter(Boolean).join('\n');
    const r = await ctx.store.send({ from: ctx.me.name, to: i.to, type: 'task_assignment', text, payload: { task_id: t.value.id } });
    return fromOutcome(r, (m) => `assigned task ${t.value.id} to ${m.to}`);
  },
});

export const broadcast = defineTool({
  name: 'broadcast',
  description: 'Send one message to every other member of the team.',
  leadOnly: true,
  input: z.strictObject({ text: z.string().min(1) }),
  summary: (i) => oneLine(i.text, 60),
  async run(i, ctx) {
    const r = await ctx.store.broadcast(ctx.me.name, i.text);
    return fromOutcome(r, (ms) => `broadcast to ${ms.map((m) => m.to).join(', ') || 'nobody'}`);
  },
});

const UNSIGNED = 'refused (unsigned): this lead has no certified signing key (plan_approver is not lead, or its enrolment failed: see teamux.log), so its answer would not count; the human answers plans from the teamux screen';

export const approvePlan = defineTool({
  name: 'approve_plan',
  description: 'Approve a teammate\'s plan request (its request_id is on the plan_approval_request message).',
  leadOnly: true,
  input: z.strictObject({ request_id: RequestId, feedback: z.string().default('approved') }),
  summary: (i) => i.request_id,
  async run(i, ctx) {
    if (!ctx.signer) return fail(UNSIGNED);
    const r = await ctx.store.answerRequest(i.request_id, ctx.me.name, true, i.feedback, 'plan_approval_response', ctx.signer);
    return fromOutcome(r, (q) => `approved the plan of ${q.from} (${q.id})`);
  },
});

export const rejectPlan = defineTool({
  name: 'reject_plan',
  description: 'Reject a teammate\'s plan with feedback saying what to change; they revise and resubmit.',
  leadOnly: true,
  input: z.strictObject({ request_id: RequestId, feedback: z.string().min(1) }),
  summary: (i) => `${i.request_id}: ${oneLine(i.feedback, 40)}`,
  async run(i, ctx) {
    if (!ctx.signer) return fail(UNSIGNED);
    const r = await ctx.store.answerRequest(i.request_id, ctx.me.name, false, i.feedback, 'plan_approval_response', ctx.signer);
    return fromOutcome(r, (q) => `rejected the plan of ${q.from} (${q.id})`);
  },
});

export const requestShutdown = defineTool({
  name: 'request_shutdown',
  description: 'Ask a member to finish its current step and stop. Its shutdown_response arrives in your inbox.',
  leadOnly: true,
  input: z.strictObject({ to: Name, reason: z.string().default('the work is done') }),
  summary: (i) => `${i.to}: ${oneLine(i.reason, 50)}`,
  async run(i, ctx) {
    const r = await ctx.store.openRequest('shutdown', ctx.me.name, i.to, i.reason);
    return fromOutcome(r, (q) => `asked ${q.to} to shut down (${q.id})`);
  },
});

/** Tools every member has. */
export const MESSAGE_TOOLS: AnyTool[] = [sendMessage, submitPlan];
/** The lead's coordination tools. */
export const LEAD_MESSAGE_TOOLS: AnyTool[] = [assignTask, broadcast, approvePlan, rejectPlan, requestShutdown];
