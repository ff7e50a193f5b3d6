/**
 * The steps of one WORK cycle, free of the runtime's state: a model turn (system prompt, tools and
 * conversation to the API, text streamed into the pane), a tool step (each call dispatched in order,
 * shown with a summary and a preview of its result, every result scrubbed of secrets), and a
 * compaction. Each takes what it needs in a TurnContext and returns a value; the runtime decides
 * what happens next.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Member, TeamConfig } from '../protocol/types.js';
import type { TeamStore } from '../store/team.js';
import { compacted, splitForCompaction, summaryRequest } from './compaction.js';
import { textOfTurn, toolResult, type Block, type Turn } from './conversation.js';
import type { DecisionSigner } from '../protocol/trust.js';
import { memberPlanStatus, type GateAnchor } from './gate.js';
import { streamReply, type ReplyOutcome } from './model.js';
import type { AgentOptions } from './options.js';
import type { Pane } from './pane.js';
import { identityBlock, systemPrompt } from './prompt.js';
import { dispatchTool, toolByName, toolsFor } from './tools/registry.js';
import { apiTool, compactJson, type ToolContext } from './tools/types.js';
import { scrubSecrets } from './transcript.js';

/** What a step needs: the team as it is now, the client, the pane. */
export interface TurnContext {
  client: Anthropic;
  options: AgentOptions;
  pane: Pane;
  store: TeamStore;
  team: TeamConfig;
  me: Member;
  lead: string;
  secrets: readonly string[];
  childEnv: NodeJS.ProcessEnv;
  /** The plan gate as fixed at the member's start. */
  gate: GateAnchor;
  /** The lead's enrolled signer, if any. */
  signer: DecisionSigner | null;
  /** Called when a retry is announced, so the status line can say so. */
  onRetry(notice: string): void;
}

/** The request parameters for the conversation (tools from the member's kind and allowlist). */
export function requestParams(tc: TurnContext, messages: Turn[]): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: tc.options.model,
    max_tokens: tc.options.maxTokens,
    system: systemPrompt(identityBlock(tc.team, tc.me, tc.options.cwd), tc.options.systemPrompt),
    messages,
    tools: toolsFor(tc.me).map(apiTool),
  };
}

/** One model turn, streamed into the pane. */
export async function modelTurn(tc: TurnContext, conv: Turn[], signal: AbortSignal): Promise<ReplyOutcome> {
  const outcome = await streamReply(tc.client, requestParams(tc, conv), {
    onText: (delta) => tc.pane.text(delta),
    onRetry: (notice) => {
      tc.pane.line(notice, 'yellow');
      tc.onRetry(notice);
    },
  }, signal, tc.options.retry);
  tc.pane.endText();
  return outcome;
}

function summarize(name: string, input: unknown): string {
  try {
    return toolByName(name)?.summary(input) ?? compactJson(input);
  } catch {
    return compactJson(input);
  }
}

/** Run the turn's tool calls in order; calls not reached before an interrupt get a "not run" result. */
export async function toolStep(tc: TurnContext, calls: readonly Anthropic.ToolUseBlockParam[], signal: AbortSignal): Promise<Block[]> {
  const ctx: ToolContext = {
    store: tc.store, me: tc.me, team: tc.team, lead: tc.lead, cwd: tc.options.cwd, signal, env: tc.childEnv,
    anchor: tc.gate, signer: tc.signer,
  };
  const planStatus = async () => memberPlanStatus(tc.gate, (await tc.store.requests.list()).requests);
  const results: Block[] = [];
  for (const call of calls) {
    if (signal.aborted) {
      results.push(toolResult(call.id, 'not run: the turn was interrupted by the person at the pane', true));
      continue;
    }
    tc.pane.tool(call.name, summarize(call.name, call.input));
    const r = await dispatchTool({ name: call.name, input: call.input }, ctx, planStatus);
    const text = scrubSecrets(r.text, tc.secrets);
    tc.pane.toolResult(text, r.isError);
    results.push(toolResult(call.id, text, r.isError));
  }
  return results;
}

/** How a compaction went. */
export type CompactOutcome =
  | { kind: 'compacted'; conv: Turn[]; usage: Anthropic.Usage; before: number; after: number }
  | { kind: 'skipped' }
  | { kind: 'aborted' }
  | { kind: 'failed'; message: string };

/** Summarise the older turns with one model call and rebuild the conversation around the summary. */
export async function compactConversation(tc: TurnContext, conv: Turn[], signal: AbortSignal): Promise<CompactOutcome> {
  const split = splitForCompaction(conv, tc.options.compactKeep);
  if (!split) return { kind: 'skipped' };
  tc.pane.line(`compacting: summarising ${split.older.length} older turns`, 'dim');
  const params = { ...requestParams(tc, summaryRequest(split.older)), tool_choice: { type: 'none' as const } };
  const outcome = await streamReply(tc.client, params, { onRetry: (notice) => tc.pane.line(notice, 'yellow') }, signal, tc.options.retry);
  if (outcome.kind === 'aborted') return outcome;
  if (outcome.kind === 'failed') return { kind: 'failed', message: outcome.message };
  const summary = textOfTurn({ role: 'assistant', content: outcome.message.content.flatMap((b) => (b.type === 'text' ? [{ type: 'text' as const, text: b.text }] : [])) }) || '(no summary)';
  const identity = identityBlock(tc.team, tc.me, tc.options.cwd);
  const next = compacted(identity, scrubSecrets(summary, tc.secrets), split.tail);
  return { kind: 'compacted', conv: next, usage: outcome.message.usage, before: conv.length, after: next.length };
}
