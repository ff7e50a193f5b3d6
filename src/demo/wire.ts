/**
 * The Messages API wire format, as the scripted server writes it: a played reply becomes either one
 * JSON `Message` or the SSE event sequence the real API streams (message_start, content_block_start,
 * ping, content_block_delta…, content_block_stop, message_delta, message_stop). Text is cut into
 * several `text_delta`s and tool input into several `input_json_delta`s so clients really stream.
 * Token counts are estimates (about four characters a token). Pure functions, no sockets.
 */
import { randomBytes } from 'node:crypto';
import type { ReplyBlock, StopReason, ErrorType } from './script.js';

/** One server-sent event: `event: <event>\ndata: <json>\n\n`. */
export interface SseEvent {
  event: string;
  data: unknown;
}

type ContentBlock =
  | { type: 'text'; text: string; citations: null }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; caller: { type: 'direct' } };

/** A reply made concrete for one request: ids assigned, usage counted. */
export interface RenderedReply {
  id: string;
  model: string;
  content: ContentBlock[];
  stopReason: StopReason;
  inputTokens: number;
  outputTokens: number;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A fresh id shaped like the API's (`msg_01…`, `toolu_01…`, `req_01…`). */
export function newId(prefix: 'msg' | 'toolu' | 'req'): string {
  const bytes = randomBytes(22);
  let out = `${prefix}_01`;
  for (const b of bytes) out += BASE62[b % 62];
  return out;
}

/** About four characters a token, at least one. */
export function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

/** Estimated input tokens of a Messages request (system, messages and tools). */
export function estimateInputTokens(body: unknown): number {
  if (typeof body !== 'object' || body === null) return 1;
  const b = body as Record<string, unknown>;
  const chars = [b['system'], b['messages'], b['tools']]
    .filter((v) => v !== undefined)
    .reduce<number>((n, v) => n + (typeof v === 'string' ? v.length : JSON.stringify(v).length), 0);
  return estimateTokens(chars);
}

/** Give a played reply ids and token counts. */
export function renderReply(blocks: ReplyBlock[], stopReason: StopReason, model: string, inputTokens: number): RenderedReply {
  const content: ContentBlock[] = blocks.map((b) =>
    b.type === 'text'
      ? { type: 'text', text: b.text, citations: null }
      : { type: 'tool_use', id: newId('toolu'), name: b.name, input: b.input, caller: { type: 'direct' } },
  );
  const outChars = content.reduce((n, c) => n + (c.type === 'text' ? c.text.length : JSON.stringify(c.input).length + c.name.length), 0);
  return { id: newId('msg'), model, content, stopReason, inputTokens, outputTokens: estimateTokens(outChars) };
}

/** The non-streaming JSON body: a complete `Message`. */
export function messageJson(r: RenderedReply): Record<string, unknown> {
  return {
    ...messageShell(r),
    content: r.content,
    stop_reason: r.stopReason,
    usage: usage(r.inputTokens, r.outputTokens),
  };
}

/** The streaming body: every SSE event of the reply, in the order the real API sends them. */
export function messageEvents(r: RenderedReply): SseEvent[] {
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: { type: 'message_start', message: { ...messageShell(r), content: [], stop_reason: null, usage: usage(r.inputTokens, 1) } },
    },
  ];
  r.content.forEach((block, index) => {
    const start = block.type === 'text' ? { ...block, text: '' } : { ...block, input: {} };
    events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } });
    if (index === 0) events.push({ event: 'ping', data: { type: 'ping' } });
    const deltas =
      block.type === 'text'
        ? textChunks(block.text).map((text) => ({ type: 'text_delta', text }))
        : ['', ...jsonChunks(JSON.stringify(block.input))].map((partial_json) => ({ type: 'input_json_delta', partial_json }));
    for (const delta of deltas) events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } });
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: r.stopReason, stop_sequence: null, stop_details: null },
      usage: {
        input_tokens: r.inputTokens,
        output_tokens: r.outputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        server_tool_use: null,
      },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

/** Encode one event for the socket. */
export function encodeSse(e: SseEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

/** The API's error body: `{"type":"error","error":{"type":…,"message":…},"request_id":…}`. */
export function errorJson(type: ErrorType, message: string, requestId: string): Record<string, unknown> {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

/** Cut text into word-aligned pieces of a few words each (the last piece keeps any tail). */
export function textChunks(text: string, wordsPerChunk = 3): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [text];
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerChunk) chunks.push(words.slice(i, i + wordsPerChunk).join(''));
  const joined = chunks.join('');
  if (joined !== text) chunks.push(text.slice(joined.length));
  return chunks.filter((c) => c.length > 0);
}

/** Cut serialised JSON into fixed-size pieces (the API's partial_json chunks split anywhere). */
export function jsonChunks(json: string, size = 16): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < json.length; i += size) chunks.push(json.slice(i, i + size));
  return chunks;
}

function messageShell(r: RenderedReply): Record<string, unknown> {
  return {
    id: r.id,
    type: 'message',
    role: 'assistant',
    model: r.model,
    stop_sequence: null,
    stop_details: null,
    container: null,
  };
}

function usage(input: number, output: number): Record<string, unknown> {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    server_tool_use: null,
    service_tier: 'standard',
  };
}
