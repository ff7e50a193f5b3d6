/**
 * The tool table and the dispatcher. Which tools a member has follows from its kind (the lead has
 * all, a teammate the common set) narrowed by its `tools` allowlist; the same rule is applied again
 * when a call arrives, so a call the model invents for a tool it was never offered is refused. The
 * dispatcher applies the plan gate, validates input with the tool's zod schema, and turns every
 * failure — bad input, a refusal, a thrown bug — into an error result the model can correct.
 */
import type { z } from 'zod';
import type { PlanStatus } from '../../protocol/requests.js';
import type { Member } from '../../protocol/types.js';
import { gateDecision, toolPermitted } from '../gate.js';
import { bash } from './bash.js';
import { FILE_TOOLS } from './files.js';
import { LEAD_MESSAGE_TOOLS, MESSAGE_TOOLS } from './messaging.js';
import { spawnTeammate } from './spawn.js';
import { createTask, TASK_TOOLS } from './tasks.js';
import { fail, type AnyTool, type ToolContext, type ToolResult } from './types.js';

/** Every tool, in the order the model sees them. */
export const ALL_TOOLS: readonly AnyTool[] = [bash, ...FILE_TOOLS, ...TASK_TOOLS, ...MESSAGE_TOOLS, createTask, ...LEAD_MESSAGE_TOOLS, spawnTeammate];

const BY_NAME = new Map(ALL_TOOLS.map((t) => [t.name, t]));

/** The tool named `name`, if teamux has one. */
export function toolByName(name: string): AnyTool | undefined {
  return BY_NAME.get(name);
}

/** The tools a member may use. */
export function toolsFor(member: Pick<Member, 'kind' | 'tools'>): AnyTool[] {
  return ALL_TOOLS.filter((t) => toolPermitted(t, member).allow);
}

/** One tool call as the model made it. */
export interface ToolCall {
  name: string;
  input: unknown;
}

/** Validation issues in one short line each: `path: message`. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(input)'}: ${i.message}`)
    .join('; ');
}

/** Run one tool call for `ctx.me`: permission, plan gate, input validation, then the tool itself. */
export async function dispatchTool(call: ToolCall, ctx: ToolContext, planStatus: () => Promise<PlanStatus>): Promise<ToolResult> {
  const tool = BY_NAME.get(call.name);
  if (!tool) return fail(`unknown tool "${call.name}"; the tools you have are: ${toolsFor(ctx.me).map((t) => t.name).join(', ')}`);
  const permitted = toolPermitted(tool, ctx.me);
  if (!permitted.allow) return fail(`refused: ${permitted.reason}`);
  const gate = gateDecision(tool.name, await planStatus());
  if (!gate.allow) return fail(gate.reason);
  const parsed = tool.schema.safeParse(call.input ?? {});
  if (!parsed.success) return fail(`invalid input for ${tool.name}: ${formatIssues(parsed.error)}`);
  try {
    return await tool.run(parsed.data, ctx);
  } catch (err) {
    ctx.store.log.error(`tool ${tool.name} failed for ${ctx.me.name}`, err);
    return fail(`${tool.name} failed: ${(err as Error).message ?? String(err)}`);
  }
}
