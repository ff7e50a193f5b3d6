/**
 * The shape of an agent tool: a name, a description for the model, one zod schema that is the
 * source of both the input type and the JSON schema sent to the API, and a run function that returns
 * a result value. A tool reports what went wrong (a refused claim, a missing file) as an error result
 * the model can act on; it throws only on a bug, and the dispatcher turns even that into a result.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import type { DecisionSigner } from '../../protocol/trust.js';
import type { Member, Outcome, TeamConfig } from '../../protocol/types.js';
import type { TeamStore } from '../../store/team.js';

/** What a tool returns: text for the model, marked as an error when the call did not do its job. */
export interface ToolResult {
  text: string;
  isError: boolean;
}

/** What a running tool may touch. */
export interface ToolContext {
  store: TeamStore;
  /** The calling member, as team.json has it now. */
  me: Member;
  team: TeamConfig;
  /** The lead's name (the recipient of results and the default plan approver). */
  lead: string;
  /** Where bash runs and relative paths resolve. */
  cwd: string;
  /** Aborted when the person at the pane interrupts (Esc) or the member stops. */
  signal: AbortSignal;
  /** Environment for child processes (without credentials). */
  env: NodeJS.ProcessEnv;
  /** Who answers this member's plans, fixed at the member's start (OPERATOR or the lead's name). */
  planApprover: string;
  /** Signs the lead's plan decisions (null: this member cannot sign, so it cannot approve or reject). */
  signer: DecisionSigner | null;
}

/** A tool with its input type erased, as the registry holds it. */
export interface AnyTool {
  name: string;
  description: string;
  schema: z.ZodType;
  leadOnly: boolean;
  /** One short line describing a call, for the pane. */
  summary(input: unknown): string;
  run(input: unknown, ctx: ToolContext): Promise<ToolResult>;
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
    run: (input, ctx) => spec.run(input as z.output<S>, ctx),
  };
}

/** The API's description of a tool: the zod schema as JSON schema (the input side, so defaults are optional). */
export function apiTool(tool: AnyTool): Anthropic.Tool {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, input_schema: schema as Anthropic.Tool.InputSchema };
}

/** A successful result. */
export function ok(text: string): ToolResult {
  return { text, isError: false };
}

/** An error result. */
export function fail(text: string): ToolResult {
  return { text, isError: true };
}

/** A store outcome as a tool result: the rendered value, or the refusal with its reason. */
export function fromOutcome<T>(outcome: Outcome<T>, render: (value: T) => string): ToolResult {
  return outcome.ok ? ok(render(outcome.value)) : fail(`refused (${outcome.reason}): ${outcome.message}`);
}

/** JSON on one line, cut to `max` characters. */
export function compactJson(value: unknown, max = 120): string {
  const s = JSON.stringify(value) ?? '';
  return s.length <= max ? s : s.slice(0, max - 1) + '…';
}

/** One line of text, cut to `max` characters. */
export function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}
