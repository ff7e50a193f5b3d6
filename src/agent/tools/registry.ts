/**
 * The tool table and the dispatcher. Which tools a member has follows from its kind (the lead has
 * all, a teammate the common set) narrowed by its `tools` allowlist; the same rule is applied again
 * when a call arrives, so a call the model invents for a tool it was never offered is refused. The
 * dispatcher is the shared call path of src/ops/invoke.ts (permission, input validated by the
 * tool's zod schema, every failure an error result) with the plan gate added.
 */
import { invoke, toolPermitted } from '../../ops/invoke.js';
import type { PlanStatus } from '../../protocol/requests.js';
import type { Member } from '../../protocol/types.js';
import { gateDecision } from '../gate.js';
import { bash } from './bash.js';
import { FILE_TOOLS } from './files.js';
import { LEAD_TOOLS, MESSAGE_TOOLS, TASK_TOOLS } from './protocol.js';
import { fail, type AnyTool, type ToolContext, type ToolResult } from './types.js';

export { formatIssues } from '../../ops/invoke.js';

/** Every tool, in the order the model sees them. */
export const ALL_TOOLS: readonly AnyTool[] = [bash, ...FILE_TOOLS, ...TASK_TOOLS, ...MESSAGE_TOOLS, ...LEAD_TOOLS];

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

/** Run one tool call for `ctx.me`: permission, plan gate, input validation, then the tool itself. */
export async function dispatchTool(call: ToolCall, ctx: ToolContext, planStatus: () => Promise<PlanStatus>): Promise<ToolResult> {
  const tool = BY_NAME.get(call.name);
  if (!tool) return fail(`unknown tool "${call.name}"; the tools you have are: ${toolsFor(ctx.me).map((t) => t.name).join(', ')}`);
  return invoke(tool, call.input, ctx, async () => {
    const gate = gateDecision(tool.name, await planStatus());
    return gate.allow ? null : gate.reason;
  });
}
