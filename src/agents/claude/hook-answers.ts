/**
 * What teamux answers Claude Code's hooks, as pure functions: the hook's stdin parsed and checked,
 * and the JSON each answer prints (keep going with these messages, deny this tool, allow or deny
 * this permission). The observed shapes are in /work/shared/claude-code-facts.md; the I/O that
 * reaches the team folder is in hook-run.ts.
 */
import { formatInboxMessage } from '../../agent/conversation.js';
import type { Message } from '../../protocol/types.js';
import { transcriptResponses } from '../../protocol/transcript-usage.js';

/** The fields teamux reads from a hook's stdin (Claude Code sends more). */
export interface HookInput {
  hook_event_name?: string;
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  tool_name?: string;
  tool_input?: unknown;
  stop_hook_active?: boolean;
  last_assistant_message?: string;
  notification_type?: string;
  message?: string;
  prompt?: string;
  permission_mode?: string;
  cost?: { total_cost_usd?: number };
  model?: { id?: string; display_name?: string };
}

/** Parse a hook's stdin; garbage is a message, not an exception. */
export function parseHookInput(text: string): { ok: true; input: HookInput } | { ok: false; message: string } {
  if (!text.trim()) return { ok: true, input: {} };
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return { ok: false, message: 'hook input is not a JSON object' };
    return { ok: true, input: v as HookInput };
  } catch (err) {
    return { ok: false, message: `hook input is not JSON: ${(err as Error).message}` };
  }
}

/** The Stop answer that keeps Claude going with unread messages. */
export function keepGoing(messages: readonly Message[]): string {
  const reason = [
    messages.length === 1 ? 'A message from your team arrived:' : `${messages.length} messages from your team arrived:`,
    ...messages.map(formatInboxMessage),
  ].join('\n');
  return JSON.stringify({ decision: 'block', reason });
}

/** The PreToolUse answer that refuses a tool. */
export function denyTool(reason: string): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } });
}

/**
 * The UserPromptSubmit answer that refuses a prompt: no model call. Claude Code 2.1.328 clears its input
 * line and shows "Operation stopped by hook: <reason>"; the prompt and that line stay in the conversation
 * and reach the model with the next prompt it does send. (`{"decision":"block"}` and exit 2 left the
 * prompt in the input line, where it kept the screen from typing messages in until the operator cleared it.)
 */
export function stopPrompt(reason: string): string {
  return JSON.stringify({ continue: false, stopReason: reason });
}

/** The PermissionRequest answer for an allowed or denied request. */
export function permissionDecision(allow: boolean, feedback: string): string {
  const decision = allow ? { behavior: 'allow' } : { behavior: 'deny', message: feedback ? `denied by the operator: ${feedback}` : 'denied by the operator' };
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });
}

/** The message typed into an idle Claude pane for unread messages (the same tags as the Stop hook's). */
export function wakeText(messages: readonly Message[]): string {
  return messages.map(formatInboxMessage).join('\n');
}

/** Tokens (input with cache, output) and the latest model of a transcript's responses (protocol/transcript-usage.ts). */
export function transcriptTokens(text: string): { input: number; output: number; model: string | null } {
  let input = 0;
  let output = 0;
  let model: string | null = null;
  for (const r of transcriptResponses(text, new Set())) {
    input += r.tokens.input + r.tokens.cacheRead + r.tokens.cacheWrite;
    output += r.tokens.output;
    model = r.model ?? model;
  }
  return { input, output, model };
}
