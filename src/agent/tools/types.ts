/**
 * The shape of an agent tool: a name, a description for the model, one zod schema that is the
 * source of both the input type and the JSON schema sent to the API, and a run function that returns
 * a result value. The protocol tools (tasks, messages, requests, spawn) are the shared ops of
 * src/ops/, wrapped by opTool. A tool reports what went wrong (a refused claim, a missing file) as
 * an error result the model can act on; it throws only on a bug, and the dispatcher turns even that
 * into a result.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { z } from '../../protocol/zod.js';
import { compactJson, oneLine, type AnyOp, type OpContext, type Reply } from '../../ops/op.js';
import type { Member } from '../../protocol/types.js';

/** What a tool returns: text for the model, marked as an error when the call did not do its job. */
export type ToolResult = Reply;

/** What a running tool may touch: the op context with the caller always known, plus where it works. */
export interface ToolContext extends OpContext {
  /** The calling member, as team.json has it now. */
  me: Member;
  /** The lead's name (the recipient of results and the default plan approver). */
  lead: string;
  /** Where bash runs and relative paths resolve. */
  cwd: string;
  /** Aborted when the person at the pane interrupts (Esc) or the member stops. */
  signal: AbortSignal;
  /** Environment for child processes (without credentials). */
  env: NodeJS.ProcessEnv;
}

/** A tool with its input type erased, as the registry holds it. */
export interface AnyTool {
  name: string;
  description: string;
  schema: z.ZodType;
  leadOnly: boolean;
  /** One short line describing a call, for the pane. */
  summary(input: unknown): string;
  /** Run with validated input. */
  reply(input: unknown, ctx: ToolContext): Promise<ToolResult>;
}

/** How a tool is written: its input type comes from its schema. */
export interface ToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  input: S;
  leadOnly?: boolean;
  summary?(input: z.output<S>): string;
  run(input: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

/** Declare a tool. */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): AnyTool {
  return {
    name: spec.name,
    description: spec.description,
    schema: spec.input,
    leadOnly: spec.leadOnly ?? false,
    summary: (input) => (spec.summary ? spec.summary(input as z.output<S>) : compactJson(input)),
    reply: (input, ctx) => spec.run(input as z.output<S>, ctx),
  };
}

/** The API's description of a tool: the zod schema as JSON schema (the input side, so defaults are optional). */
export function apiTool(tool: AnyTool): Anthropic.Tool {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, input_schema: schema as Anthropic.Tool.InputSchema };
}

/** A protocol op as an agent tool: the same op the CLI and the MCP server call. */
export function opTool(op: AnyOp): AnyTool {
  return { name: op.name, description: op.description, schema: op.schema, leadOnly: op.leadOnly, summary: (i) => op.summary(i), reply: (i, ctx) => op.reply(i, ctx) };
}

/** A successful result. */
export function ok(text: string): ToolResult {
  return { text, isError: false };
}

/** An error result. */
export function fail(text: string): ToolResult {
  return { text, isError: true };
}

export { compactJson, oneLine };
