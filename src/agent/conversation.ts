/**
 * The conversation as the Messages API takes it, and the pure rules for growing it: user content
 * is merged into a trailing user turn so roles always alternate, inbox messages become tagged text
 * blocks, assistant replies are copied down to the blocks the API accepts back, and a conversation
 * cut short by a crash is repaired so every tool_use has its tool_result.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Message } from '../protocol/types.js';

/** One turn of the conversation (user or assistant). */
export type Turn = Anthropic.MessageParam;
/** One content block of a turn. */
export type Block = Anthropic.ContentBlockParam;

/** The blocks of a turn, whatever form its content takes. */
export function blocksOf(turn: Turn): Block[] {
  return typeof turn.content === 'string' ? [{ type: 'text', text: turn.content }] : [...turn.content];
}

/** Add user content: merged into the last turn when that is a user turn, so roles keep alternating. */
export function appendUser(conv: readonly Turn[], blocks: readonly Block[]): Turn[] {
  if (blocks.length === 0) return [...conv];
  const last = conv[conv.length - 1];
  if (last?.role === 'user') {
    // tool_result blocks must lead a user turn: keep them first.
    const merged = [...blocksOf(last), ...blocks];
    const results = merged.filter((b) => b.type === 'tool_result');
    const rest = merged.filter((b) => b.type !== 'tool_result');
    return [...conv.slice(0, -1), { role: 'user', content: [...results, ...rest] }];
  }
  return [...conv, { role: 'user', content: [...blocks] }];
}

/** The reply's blocks as request parameters (text, tool_use and thinking; empty text dropped). */
export function assistantBlocks(content: readonly Anthropic.ContentBlock[]): Block[] {
  const out: Block[] = [];
  for (const b of content) {
    if (b.type === 'text' && b.text !== '') out.push({ type: 'text', text: b.text });
    else if (b.type === 'tool_use') out.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input ?? {} });
    else if (b.type === 'thinking') out.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
    else if (b.type === 'redacted_thinking') out.push({ type: 'redacted_thinking', data: b.data });
  }
  return out.length > 0 ? out : [{ type: 'text', text: '(no reply)' }];
}

/** The text of a turn's text blocks, joined. */
export function textOfTurn(turn: Turn | undefined): string {
  if (!turn) return '';
  return blocksOf(turn).map((b) => (b.type === 'text' ? b.text : '')).filter(Boolean).join('\n').trim();
}

/** The tool_use blocks of a turn. */
export function toolUses(turn: Turn | undefined): Anthropic.ToolUseBlockParam[] {
  return turn ? blocksOf(turn).filter((b): b is Anthropic.ToolUseBlockParam => b.type === 'tool_use') : [];
}

/** A tool_result block. */
export function toolResult(id: string, text: string, isError: boolean): Anthropic.ToolResultBlockParam {
  return { type: 'tool_result', tool_use_id: id, content: text === '' ? '(empty)' : text, ...(isError ? { is_error: true } : {}) };
}

function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** An inbox message as the model reads it: `<message from=… type=…>text</message>`. */
export function formatInboxMessage(m: Message): string {
  const attrs = [`from="${attr(m.from)}"`, `type="${m.type}"`];
  if (m.request_id) attrs.push(`request_id="${attr(m.request_id)}"`);
  const p = m.payload ?? {};
  if (typeof p.approve === 'boolean') attrs.push(`approve="${p.approve}"`);
  if (typeof p.task_id === 'string') attrs.push(`task_id="${attr(p.task_id)}"`);
  // The text cannot close the tag early and pose as another message.
  const body = m.text.replace(/<\/message/gi, '&lt;/message');
  return `<message ${attrs.join(' ')}>${body}</message>`;
}

/** Text typed into the pane by the person watching it. */
export function formatPaneInput(text: string): string {
  return `<pane_input>${text.replace(/<\/pane_input/gi, '&lt;/pane_input')}</pane_input>`;
}

/** Text blocks for inbox messages and typed input. */
export function inputBlocks(messages: readonly Message[], typed: readonly string[]): Block[] {
  return [...messages.map(formatInboxMessage), ...typed.map(formatPaneInput)].map((text) => ({ type: 'text' as const, text }));
}

/**
 * Make a conversation loaded from a transcript valid to send: tool calls left without results (the
 * process stopped mid-step) get error results saying so.
 */
export function repairConversation(conv: readonly Turn[]): Turn[] {
  const last = conv[conv.length - 1];
  if (last?.role !== 'assistant') return [...conv];
  const pending = toolUses(last);
  if (pending.length === 0) return [...conv];
  return appendUser(conv, pending.map((t) => toolResult(t.id, 'not run: the member restarted before this tool step finished', true)));
}

/** True when the conversation waits for a model reply (its last turn is the user's). */
export function awaitsReply(conv: readonly Turn[]): boolean {
  return conv[conv.length - 1]?.role === 'user';
}
