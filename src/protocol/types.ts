/**
 * The on-disk record types of the team protocol, version 1: team config, members, tasks, inbox
 * messages, requests and events. zod is the single source of both the TypeScript types and the
 * messages shown when a file edited by hand does not parse. See docs/protocol.md.
 */
import { FIELD_LIMITS } from './limits.js';
import { z } from './zod.js';
import { TaskPipeline } from './pipeline-fields.js';
import { Budget } from './budget.js';
import { ResponseSignature } from './signatures.js';
import { MESSAGE_TYPES, NAME_PATTERN } from './message-line.js';

export { MESSAGE_TYPES, NAME_PATTERN };

export const PROTOCOL_VERSION = 1;
/** Requests are version 2: they belong to a run and a plan decision carries a signature (version 1 files are still read). */
export const REQUEST_VERSION = 2;
/** Tasks are version 2: attempts, and the statuses blocked and deleted (version 1 files are still read). */
export const TASK_VERSION = 2;

/** Member and team names: safe as file names, never able to reach outside the team folder. */
export const Name = z.string().regex(NAME_PATTERN, { message: `expected a name matching ${NAME_PATTERN.source}` });

export const MemberStatus = z.enum(['working', 'idle', 'stopping', 'exited']);
export type MemberStatus = z.infer<typeof MemberStatus>;

export const Member = z.object({
  name: Name,
  role: z.string(),
  kind: z.enum(['lead', 'teammate']),
  status: MemberStatus,
  pid: z.number().int().positive().nullable(),
  /** Kernel start time of pid (Linux /proc/<pid>/stat field 22), to tell pid reuse apart. */
  pidStart: z.number().nullable().default(null),
  joinedAt: z.string().nullable(),
  exitCode: z.number().int().nullable().default(null),
  planRequired: z.boolean().default(false),
  /** Who answers this member's plan requests: the lead's name, or `human` (the operator at the screen). */
  planApprover: z.string().nullable().default(null),
  tools: z.array(z.string()).nullable().default(null),
  /** How the member runs: a command line, teamux's own agent, or the Claude Code CLI. */
  runtime: z.enum(['command', 'agent', 'claude', 'codex']).default('command'),
  /** Answers shutdown requests; absent in folders written before it existed (then: agents only). */
  speaksProtocol: z.boolean().optional(),
  /** Set for a teammate of Claude Code's own agent team (native_teams): that team's name; Claude Code reports its idling. */
  claudeTeam: z.string().optional(),
  /** The member's own budget (layout `budget:`); absent or null: none. */
  budget: Budget.nullable().optional(),
});
export type Member = z.infer<typeof Member>;

/** True if the member answers a shutdown request; the others are hung up on (SIGHUP) instead. */
export function speaksProtocol(m: Pick<Member, 'runtime' | 'speaksProtocol'>): boolean {
  return m.speaksProtocol ?? (m.runtime === 'agent' || m.runtime === 'claude' || m.runtime === 'codex');
}

export const TeamConfig = z.object({
  version: z.literal(PROTOCOL_VERSION),
  name: Name,
  root: z.string(),
  createdAt: z.string(),
  layoutFile: z.string().nullable().default(null),
  /** The current run: a new id for every `teamux start` (requests of earlier runs expire). */
  run: z.string().nullable().default(null),
  /** The whole team's budget (layout `budget:`); absent or null: none. */
  budget: Budget.nullable().optional(),
  members: z.array(Member),
});
export type TeamConfig = z.infer<typeof TeamConfig>;

/** A process, told apart from a later one with the same pid by its kernel start time. */
export const ProcessRef = z.object({ pid: z.number().int().positive(), start: z.number().nullable() });
export type ProcessRef = z.infer<typeof ProcessRef>;

/** A task's state; the legal moves between them are the transitions of protocol/task-machine.ts. */
export const TaskStatus = z.enum(['pending', 'in_progress', 'completed', 'blocked', 'deleted']);
export type TaskStatus = z.infer<typeof TaskStatus>;

/** How an attempt ended: done, handed back, given up on, its owner gone, or handed to another member. */
export const AttemptOutcome = z.enum(['completed', 'released', 'failed', 'abandoned', 'reassigned']);
export type AttemptOutcome = z.infer<typeof AttemptOutcome>;

/** One claim of a task, from the claim to the transition that ended it (open while endedAt is null). */
export const Attempt = z.object({
  owner: Name,
  startedAt: z.string(),
  endedAt: z.string().nullable().default(null),
  outcome: AttemptOutcome.nullable().default(null),
  /** The result of a completed attempt, or why it ended otherwise. */
  note: z.string().nullable().default(null),
});
export type Attempt = z.infer<typeof Attempt>;

export const TaskId = z.string().regex(/^[1-9][0-9]{0,8}$/, { message: 'expected a task id: a positive whole number' });

export const Task = z.object({
  version: z.union([z.literal(1), z.literal(TASK_VERSION)]),
  id: TaskId,
  // Limited at write (protocol/limits.ts); a file edited by hand past them is a problem, not a task.
  subject: z.string().min(1).max(FIELD_LIMITS.subject),
  description: z.string().max(FIELD_LIMITS.description).default(''),
  status: TaskStatus,
  owner: Name.nullable(),
  blocks: z.array(TaskId),
  blockedBy: z.array(TaskId),
  revision: z.number().int().positive(),
  createdAt: z.string(),
  updatedAt: z.string(),
  claimedAt: z.string().nullable().default(null),
  completedAt: z.string().nullable().default(null),
  result: z.string().max(FIELD_LIMITS.result).nullable().default(null),
  /** The process holding the claim (pid and /proc start time): when it is gone, the claim is stale. */
  holder: ProcessRef.nullable().default(null),
  /** Its place in a staged pipeline (stage, story, key, verdict); absent for tasks outside one. */
  pipeline: TaskPipeline.optional(),
  /** Every claim so far, oldest first; the last is open while the task is in_progress. */
  attempts: z.array(Attempt).default([]),
  /** Why the task is blocked (status blocked). */
  blockedReason: z.string().nullable().default(null),
  /** When it was last reopened: failed attempts before it no longer count towards blocking it. */
  reopenedAt: z.string().nullable().default(null),
});
export type Task = z.infer<typeof Task>;

export const MessageType = z.enum(MESSAGE_TYPES);
export type MessageType = z.infer<typeof MessageType>;

export const Message = z.object({
  id: z.string().min(1),
  from: Name,
  to: Name,
  type: MessageType,
  text: z.string().default(''),
  payload: z.record(z.string(), z.unknown()).optional(),
  time: z.string(),
  request_id: z.string().optional(),
});
export type Message = z.infer<typeof Message>;

export const RequestType = z.enum(['shutdown', 'plan_approval', 'permission']);
export type RequestType = z.infer<typeof RequestType>;
/** `withdrawn`: the asker stopped waiting (a permission request whose hook timed out); `expired`: its run ended. */
export const RequestStatus = z.enum(['pending', 'approved', 'rejected', 'withdrawn', 'expired']);
export type RequestStatus = z.infer<typeof RequestStatus>;

export const RequestId = z.string().regex(/^req-[a-z0-9-]{4,64}$/, { message: 'expected a request id like req-…' });

export const ProtocolRequest = z.object({
  version: z.union([z.literal(1), z.literal(REQUEST_VERSION)]),
  id: RequestId,
  type: RequestType,
  /** The run it was opened in (null: a version 1 request, from before runs existed). */
  run: z.string().nullable().default(null),
  /** Who asked. */
  from: Name,
  /** Who must answer. */
  to: Name,
  status: RequestStatus,
  /** The plan text, the reason for a shutdown, or a one-line summary of a permission asked for. */
  body: z.string().default(''),
  /** Structured detail: for a permission request, `{ tool, input }` as Claude Code sent them. */
  payload: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.string(),
  resolvedAt: z.string().nullable().default(null),
  response: z
    .object({
      by: Name, approve: z.boolean(), text: z.string(), at: z.string(),
      /** A plan decision's or a permission answer's signature; the gate and the hook count nothing else. */
      signed: ResponseSignature.nullable().default(null),
    })
    .nullable()
    .default(null),
  /** Why teamux closed it unanswered (status expired). */
  expiredReason: z.string().nullable().default(null),
});
export type ProtocolRequest = z.infer<typeof ProtocolRequest>;

export const EVENT_TYPES = [
  'task_created',
  'task_claimed',
  'task_updated',
  'task_completed',
  'task_released',
  'task_failed',
  'task_reopened',
  'task_reassigned',
  'task_deleted',
  'message_sent',
  'request_opened',
  'request_resolved',
  'request_expired',
  'member_joined',
  'member_working',
  'member_idle',
  'member_stopping',
  'member_exited',
  'pipeline_dispatch',
  'pipeline_return',
  'pipeline_stage',
  'pipeline_warning',
  'pipeline_blocked',
  'pipeline_retry',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface TeamEvent {
  time: string;
  type: EventType;
  [key: string]: unknown;
}

export { accept, refuse, type Outcome, type RefusalReason } from './outcome.js';
