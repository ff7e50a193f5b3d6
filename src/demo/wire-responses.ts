/**
 * The OpenAI Responses API wire format (what Codex CLI speaks through a custom `model_providers` entry
 * with `wire_api = "responses"`), as the scripted server writes it: a played reply becomes one JSON
 * `Response` or the SSE sequence the real API streams (response.created, response.in_progress, per
 * output item response.output_item.added, deltas, response.output_item.done, then
 * response.completed with usage). A script's `tool_use` block becomes a `function_call` item whose
 * `arguments` is the input serialised. The user side of a request — what a script's `when` reads —
 * is every `role: user` message's text and every `function_call_output`. Pure functions, no sockets.
 */
import { randomBytes } from 'node:crypto';
import type { ReplyBlock } from './script.js';
import type { UserText } from './player.js';
import { estimateTokens, jsonChunks, textChunks, type SseEvent } from './wire.js';

type OutputItem =
  | { type: 'message'; id: string; status: 'completed'; role: 'assistant'; content: Array<{ type: 'output_text'; text: string; annotations: [] }> }
  | { type: 'function_call'; id: string; status: 'completed'; call_id: string; name: string; namespace?: string; arguments: string };

/** A played reply made concrete for one Responses request. */
export interface RenderedResponse {
  id: string;
  model: string;
  output: OutputItem[];
  inputTokens: number;
  outputTokens: number;
}

/** A fresh id shaped like the API's (`resp_…`, `msg_…`, `fc_…`, `call_…`). */
function newOpenAiId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/**
 * A script's tool name as the request offers it: a tool inside a `namespace` tool (Codex offers an MCP
 * server's tools as the namespace `mcp__<server>`) is called by its own name within that namespace,
 * so a script names it `mcp__teamux__task_list` for Claude Code and Codex alike.
 */
export function callName(name: string, body: unknown): { name: string; namespace?: string } {
  const tools = isRecord(body) && Array.isArray(body['tools']) ? body['tools'] : [];
  for (const t of tools) {
    if (!isRecord(t) || t['type'] !== 'namespace' || typeof t['name'] !== 'string' || !name.startsWith(`${t['name']}__`)) continue;
    const inner = name.slice(t['name'].length + 2);
    if (Array.isArray(t['tools']) && t['tools'].some((x) => isRecord(x) && x['name'] === inner)) return { name: inner, namespace: t['name'] };
  }
  return { name };
}

/** Give a played reply ids and token counts, as Responses output items (`body`: the request, for tool namespaces). */
export function renderResponse(blocks: ReplyBlock[], model: string, inputTokens: number, body: unknown = null): RenderedResponse {
  const output: OutputItem[] = blocks.map((b) =>
    b.type === 'text'
      ? { type: 'message', id: newOpenAiId('msg'), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: b.text, annotations: [] }] }
      : { type: 'function_call', id: newOpenAiId('fc'), status: 'completed', call_id: newOpenAiId('call'), ...callName(b.name, body), arguments: JSON.stringify(b.input) },
  );
  const outChars = output.reduce((n, o) => n + (o.type === 'message' ? o.content[0]!.text.length : o.arguments.length + o.name.length), 0);
  return { id: newOpenAiId('resp'), model, output, inputTokens, outputTokens: estimateTokens(outChars) };
}

/** The non-streaming body: a complete `Response`. */
export function responseJson(r: RenderedResponse): Record<string, unknown> {
  return { ...responseShell(r, 'completed'), output: r.output, usage: usage(r) };
}

/** The streaming body: every SSE event of the reply, in the order the real API sends them. */
export function responseEvents(r: RenderedResponse): SseEvent[] {
  let seq = 0;
  const ev = (type: string, rest: Record<string, unknown>): SseEvent => ({ event: type, data: { type, sequence_number: seq++, ...rest } });
  const events: SseEvent[] = [
    ev('response.created', { response: { ...responseShell(r, 'in_progress'), output: [], usage: null } }),
    ev('response.in_progress', { response: { ...responseShell(r, 'in_progress'), output: [], usage: null } }),
  ];
  r.output.forEach((item, output_index) => {
    if (item.type === 'message') {
      const text = item.content[0]!.text;
      events.push(ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } }));
      const part = { type: 'output_text', text: '', annotations: [] };
      events.push(ev('response.content_part.added', { item_id: item.id, output_index, content_index: 0, part }));
      for (const delta of textChunks(text)) events.push(ev('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta }));
      events.push(ev('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text }));
      events.push(ev('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part: { ...part, text } }));
    } else {
      events.push(ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } }));
      for (const delta of jsonChunks(item.arguments)) events.push(ev('response.function_call_arguments.delta', { item_id: item.id, output_index, delta }));
      events.push(ev('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: item.arguments }));
    }
    events.push(ev('response.output_item.done', { output_index, item }));
  });
  events.push(ev('response.completed', { response: responseJson(r) }));
  return events;
}

/** The streamed failure the API sends mid-stream: `response.failed` with the error. */
export function responseFailedEvent(r: RenderedResponse, code: string, message: string): SseEvent {
  return { event: 'response.failed', data: { type: 'response.failed', response: { ...responseShell(r, 'failed'), output: [], usage: null, error: { code, message } } } };
}

/** The API's error body: `{"error":{"message","type","param","code"}}`. */
export function responsesErrorJson(type: string, message: string): Record<string, unknown> {
  return { error: { message, type, param: null, code: type } };
}

/** A request's own checks: a model and an input. */
export function validateResponsesRequest(body: unknown): string | undefined {
  if (!isRecord(body)) return 'request body must be a JSON object';
  if (typeof body['model'] !== 'string' || !body['model']) return "Missing required parameter: 'model'.";
  if (body['input'] === undefined) return "Missing required parameter: 'input'.";
  return undefined;
}

/**
 * A side request no script step is for: Codex's task-title request (a structured output whose schema
 * asks for `title`). It is answered with a fixed title and does not move the member's script.
 */
export function responsesSideReply(body: unknown): ReplyBlock[] | undefined {
  const format = isRecord(body) && isRecord(body['text']) ? body['text']['format'] : undefined;
  const schema = isRecord(format) && format['type'] === 'json_schema' ? format['schema'] : undefined;
  const props = isRecord(schema) ? schema['properties'] : undefined;
  return isRecord(props) && 'title' in props ? [{ type: 'text', text: JSON.stringify({ title: 'teamux demo' }) }] : undefined;
}

/** The user side of a Responses request: each user message's text and each function call's output, as text. */
export function responsesUserText(body: unknown): UserText {
  const input = isRecord(body) ? body['input'] : undefined;
  if (typeof input === 'string') return { last: input, all: input };
  const users: string[] = [];
  for (const item of Array.isArray(input) ? input : []) {
    if (!isRecord(item)) continue;
    if (item['type'] === 'function_call_output' || item['type'] === 'custom_tool_call_output') users.push(outputText(item['output']));
    else if (item['role'] === 'user') users.push(contentText(item['content']));
  }
  return { last: users[users.length - 1] ?? '', all: users.join('\n') };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((c): c is Record<string, unknown> => isRecord(c) && typeof c['text'] === 'string')
    .map((c) => c['text'] as string)
    .join('\n');
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (isRecord(output) && typeof output['content'] === 'string') return output['content'];
  return contentText(output);
}

function responseShell(r: RenderedResponse, status: string): Record<string, unknown> {
  return { id: r.id, object: 'response', created_at: Math.floor(Date.now() / 1000), status, model: r.model, error: null, incomplete_details: null };
}

function usage(r: RenderedResponse): Record<string, unknown> {
  return {
    input_tokens: r.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: r.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: r.inputTokens + r.outputTokens,
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
