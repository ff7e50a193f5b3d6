/**
 * The pure mapping between the shared ops and MCP: which tools a member is offered (the ops its
 * kind and `tools` allowlist permit, as for teamux's own agent), each op's zod schema as the tool's
 * JSON input schema, a reply as a CallToolResult (a refusal or bad input is `isError` with the
 * reason in the text), and the instructions the server hands the client at initialize.
 */
import { z } from '../protocol/zod.js';
import { ALL_OPS, opsFor } from '../ops/index.js';
import { leadOf, type AnyOp, type Reply } from '../ops/op.js';
import type { Member, TeamConfig } from '../protocol/types.js';

/** The server's name: Claude Code calls its tools mcp__teamux__<tool>. */
export const SERVER_NAME = 'teamux';

/** A tool as tools/list describes it. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

/** Ops that only read the team folder (read_inbox with peek aside, it moves a cursor). */
const READ_ONLY = new Set(['task_list', 'task_get', 'plan_status']);

/** An op as an MCP tool. */
export function mcpTool(op: AnyOp): McpTool {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(op.schema, { io: 'input' }) as Record<string, unknown>;
  return {
    name: op.name,
    description: op.description,
    inputSchema: { ...schema, type: 'object' },
    annotations: { readOnlyHint: READ_ONLY.has(op.name), destructiveHint: false, openWorldHint: false },
  };
}

/** The tools a member is offered, in table order. */
export function toolsForMember(member: Pick<Member, 'kind' | 'tools'>): McpTool[] {
  return opsFor(member, ALL_OPS).map(mcpTool);
}

/** A reply as a tools/call result. */
export function callResult(reply: Reply): { content: { type: 'text'; text: string }[]; isError: boolean } {
  return { content: [{ type: 'text', text: reply.text }], isError: reply.isError };
}

/** What the client is told at initialize: who it is in which team, and how the tools work. */
export function instructions(team: TeamConfig, me: Member): string {
  const lead = leadOf(team);
  const others = team.members.filter((m) => m.name !== me.name).map((m) => `${m.name} (${m.kind === 'lead' ? 'lead' : m.role || 'teammate'})`);
  return [
    `You are ${me.name}, ${me.kind === 'lead' ? 'the lead' : `a teammate (${me.role || 'no role given'})`} of the teamux team "${team.name}".`,
    others.length ? `Your teammates: ${others.join(', ')}.` : 'You have no teammates yet.',
    'These tools are the team protocol: the task board (task_*), messages (send_message, read_inbox), plan approval and shutdown requests. Every call acts as you.',
    me.planRequired ? `Your plan must be approved by ${me.planApprover ?? lead ?? 'the lead'} before you change anything: submit it with submit_plan, check plan_status.` : '',
    'A refused call says why (refused (reason): …): re-read with task_get or read_inbox and retry.',
  ].filter(Boolean).join('\n');
}
