/**
 * Who may call what, and the one call path the model front ends share (teamux's agent tools and
 * the MCP server): permission by role and allowlist, then input validation by the op's zod schema,
 * then the op, with every failure — a refusal, bad input, a thrown bug — turned into an error reply
 * the caller can act on. Pure apart from the op it runs and the log line for a bug.
 */
import type { z } from '../protocol/zod.js';
import type { Member } from '../protocol/types.js';
import type { TeamStore } from '../store/team.js';
import { failReply, type Reply } from './op.js';

/** Whether a call may go ahead, and if not, why. */
export type Permission = { allow: true } | { allow: false; reason: string };

/** Whether a member of this kind, with this allowlist, may use a tool (leadOnly marks the lead's tools). */
export function toolPermitted(tool: { name: string; leadOnly: boolean }, member: Pick<Member, 'kind' | 'tools'>): Permission {
  if (tool.leadOnly && member.kind !== 'lead') return { allow: false, reason: `${tool.name} is a lead-only tool; a teammate cannot use it (ask the lead with send_message)` };
  if (member.tools !== null && !member.tools.includes(tool.name)) return { allow: false, reason: `${tool.name} is not in this member's tools allowlist (${member.tools.join(', ') || 'empty'})` };
  return { allow: true };
}

/** Validation issues in one short line each: `path: message`. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(input)'}: ${i.message}`)
    .join('; ');
}

/** Anything a model can call: an op, or one of the agent's own tools (bash, files). */
export interface Callable<C> {
  name: string;
  leadOnly: boolean;
  schema: z.ZodType;
  reply(input: unknown, ctx: C): Promise<Reply>;
}

/** What a call runs with, at the least. */
export interface CallerContext {
  store: TeamStore;
  me: Member | null;
}

/**
 * Call a tool for `ctx.me`: permission, an optional extra check (the agent's plan gate), input
 * validation, then the tool. Never throws for anything the caller or the team folder can cause.
 */
export async function invoke<C extends CallerContext>(tool: Callable<C>, input: unknown, ctx: C, check?: () => Promise<string | null>): Promise<Reply> {
  if (!ctx.me) return failReply(`refused: ${tool.name} needs a calling member`);
  const permitted = toolPermitted(tool, ctx.me);
  if (!permitted.allow) return failReply(`refused: ${permitted.reason}`);
  const held = check ? await check() : null;
  if (held) return failReply(held);
  const parsed = tool.schema.safeParse(input ?? {});
  if (!parsed.success) return failReply(`invalid input for ${tool.name}: ${formatIssues(parsed.error)}`);
  try {
    return await tool.reply(parsed.data, ctx);
  } catch (err) {
    ctx.store.log.error(`tool ${tool.name} failed for ${ctx.me.name}`, err);
    return failReply(`${tool.name} failed: ${(err as Error).message ?? String(err)}`);
  }
}
