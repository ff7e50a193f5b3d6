/**
 * The shape of a protocol operation: the one implementation of each thing a member can do to the
 * team (claim a task, send a message, answer a plan…) that the CLI verbs, teamux's agent tools and
 * the MCP server all call. An op owns a name, a description for models, a zod input schema (the
 * source of the input type, the JSON schema shown to models and the validation messages), a
 * lead-only mark, and a run function whose result is an Outcome carrying the protocol's refusal
 * reason. Ops may import the store and the protocol, nothing above them.
 */
import { z } from '../protocol/zod.js';
import type { GateAnchor } from '../protocol/plan-gate.js';
import type { DecisionSigner } from '../protocol/trust.js';
import type { Member, Outcome, TeamConfig } from '../protocol/types.js';
import type { TeamStore } from '../store/team.js';

/** What an op runs with: the team, and the member it acts as (null for verbs that act as nobody). */
export interface OpContext {
  store: TeamStore;
  /** The team as team.json had it when the call started. */
  team: TeamConfig;
  /** The calling member; null only for CLI reads and task creation, which act as nobody. */
  me: Member | null;
  /** Aborted when the caller gives up (an MCP cancel, Esc in the agent's pane): waits end early. */
  signal?: AbortSignal;
  /** Signs the caller's plan decisions (an enrolled lead agent); absent: it cannot approve or reject plans. */
  signer?: DecisionSigner | null;
  /** Why the caller has no signer although it should (its enrolment failed), for the refusal. */
  unsignedWhy?: string;
  /** The caller's plan gate as fixed at its start (trust key, run, approver); absent: signatures are not checked. */
  anchor?: GateAnchor | null;
}

/** A reply for a model (agent tool or MCP tool): text, marked as an error when the call did not do its job. */
export interface Reply {
  text: string;
  isError: boolean;
  /** Run once the reply has reached the caller (read_inbox commits its cursor here). */
  delivered?: () => Promise<void>;
}

/** An op with its types erased, as the registry holds it. */
export interface AnyOp {
  name: string;
  description: string;
  schema: z.ZodType;
  leadOnly: boolean;
  /** Calls must not overlap for one caller: each one's reply is delivered before the next runs (read_inbox). */
  serial: boolean;
  /** One short line describing a call, for the agent's pane. */
  summary(input: unknown): string;
  /** Run with input already validated by `schema`; the reply is rendered for a model. */
  reply(input: unknown, ctx: OpContext): Promise<Reply>;
}

/** How an op is written. */
export interface OpSpec<S extends z.ZodType, T> {
  name: string;
  description: string;
  input: S;
  leadOnly?: boolean;
  summary?(input: z.output<S>): string;
  run(input: z.output<S>, ctx: OpContext): Promise<Outcome<T>>;
  /** The value as text for a model. */
  text(value: T): string;
  /** What to do once a successful reply reached the caller. */
  delivered?(value: T, ctx: OpContext): Promise<void>;
}

/** A declared op: callable directly (CLI: `op.run`) or through a model front end (`op.reply`). */
export interface Op<S extends z.ZodType, T> extends AnyOp {
  run(input: z.output<S>, ctx: OpContext): Promise<Outcome<T>>;
  text(value: T): string;
}

/** Declare an op. */
export function defineOp<S extends z.ZodType, T>(spec: OpSpec<S, T>): Op<S, T> {
  return {
    name: spec.name,
    description: spec.description,
    schema: spec.input,
    leadOnly: spec.leadOnly ?? false,
    serial: spec.delivered !== undefined,
    summary: (input) => (spec.summary ? spec.summary(input as z.output<S>) : compactJson(input)),
    run: (input, ctx) => spec.run(input, ctx),
    text: (value) => spec.text(value),
    async reply(input, ctx) {
      const r = await spec.run(input as z.output<S>, ctx);
      if (!r.ok) return refusalReply(r);
      const reply: Reply = { text: spec.text(r.value), isError: false };
      const after = spec.delivered;
      if (after) reply.delivered = () => after(r.value, ctx);
      return reply;
    },
  };
}

/** The member an op acts as; a null here is a front-end bug (every acting verb supplies one). */
export function actor(ctx: OpContext): Member {
  if (!ctx.me) throw new Error('this operation needs the member it acts as');
  return ctx.me;
}

/** The lead's name, if the team has one. */
export function leadOf(team: TeamConfig): string | undefined {
  return team.members.find((m) => m.kind === 'lead')?.name;
}

/** A refusal as a model reads it: the reason, then the message. */
export function refusalReply(r: { reason: string; message: string }): Reply {
  return { text: `refused (${r.reason}): ${r.message}`, isError: true };
}

/** An error reply. */
export function failReply(text: string): Reply {
  return { text, isError: true };
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
