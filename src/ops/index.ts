/**
 * The table of protocol ops, in the order models see them, and which of them each front end offers:
 * teamux's own agent has the ones its runtime does not do for it (it reads its inbox and answers
 * shutdowns itself), the MCP server has them all. Which a member may call follows from its kind
 * (lead-only ops only for the lead) narrowed by its `tools` allowlist, for every front end alike.
 */
import type { Member } from '../protocol/types.js';
import { toolPermitted } from './invoke.js';
import { assignTask, broadcast, readInbox, sendMessage } from './messages.js';
import type { AnyOp } from './op.js';
import { approvePlan, planStatusOp, rejectPlan, requestShutdown, respondShutdown, submitPlan } from './requests.js';
import { retryStory } from './pipeline.js';
import { memberDiffOp } from './worktree-review.js';
import { spawnTeammate } from './spawn.js';
import { createTask, taskClaim, taskComplete, taskGet, taskList, taskRelease, taskUpdate } from './tasks.js';
import { deleteTask, editTask, reassignTask, reopenTask, taskFail } from './tasks-machine.js';

/** Every op. */
export const ALL_OPS: readonly AnyOp[] = [
  taskList, taskGet, taskClaim, taskUpdate, taskComplete, taskRelease, taskFail,
  sendMessage, readInbox, submitPlan, planStatusOp, respondShutdown, memberDiffOp,
  createTask, assignTask, broadcast, approvePlan, rejectPlan, requestShutdown, spawnTeammate,
  reopenTask, reassignTask, editTask, deleteTask, retryStory,
];

const BY_NAME = new Map(ALL_OPS.map((o) => [o.name, o]));

/** The op named `name`, if there is one. */
export function opByName(name: string): AnyOp | undefined {
  return BY_NAME.get(name);
}

/** The ops a member may call, in table order. */
export function opsFor(member: Pick<Member, 'kind' | 'tools'>, from: readonly AnyOp[] = ALL_OPS): AnyOp[] {
  return from.filter((o) => toolPermitted(o, member).allow);
}
