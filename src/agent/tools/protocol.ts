/**
 * The agent's protocol tools: the shared ops of src/ops/ (the same ones the CLI verbs and the MCP
 * server call), in the order the model sees them. The agent has no read_inbox, plan_status,
 * respond_shutdown or task_release tool because its runtime delivers messages and answers shutdown
 * requests itself.
 */
import { assignTask, broadcast, sendMessage } from '../../ops/messages.js';
import { approvePlan, rejectPlan, requestShutdown, submitPlan } from '../../ops/requests.js';
import { retryStory } from '../../ops/pipeline.js';
import { spawnTeammate } from '../../ops/spawn.js';
import { createTask, taskClaim, taskComplete, taskGet, taskList, taskUpdate } from '../../ops/tasks.js';
import { deleteTask, editTask, reassignTask, reopenTask, taskFail } from '../../ops/tasks-machine.js';
import { opTool, type AnyTool } from './types.js';

/** Every member's task tools. */
export const TASK_TOOLS: AnyTool[] = [taskList, taskGet, taskClaim, taskUpdate, taskComplete, taskFail].map(opTool);
/** Tools every member has for messages and plans. */
export const MESSAGE_TOOLS: AnyTool[] = [sendMessage, submitPlan].map(opTool);
/** The lead's coordination tools. */
export const LEAD_TOOLS: AnyTool[] = [createTask, assignTask, broadcast, approvePlan, rejectPlan, requestShutdown, spawnTeammate, reopenTask, reassignTask, editTask, deleteTask, retryStory].map(opTool);
