/**
 * The Gemini API wire format (what Gemini CLI speaks with `GOOGLE_GEMINI_BASE_URL`), as the scripted
 * server writes it: `models/M:generateContent` answers one `GenerateContentResponse`;
 * `models/M:streamGenerateContent?alt=sse` answers the same response cut into several SSE `data:`
 * chunks (text split into pieces, each function call whole, as the real API sends them), the last one
 * carrying `finishReason` and `usageMetadata`. A script's `tool_use` block becomes a `functionCall`
 * part. The user side of a request is every `role: user` content's text parts and every
 * `functionResponse`. Pure functions, no sockets.
 */
import type { ReplyBlock } from './script.js';
import type { UserText } from './player.js';
import { estimateTokens, textChunks, type SseEvent } from './wire.js';

type Part = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

/** A played reply made concrete for one Gemini request. */
export interface RenderedGemini {
  model: string;
  parts: Part[];
  inputTokens: number;
  outputTokens: number;
}

/** `models/NAME:generateContent` or `…:streamGenerateContent`, after the API version. */
export const GEMINI_ROUTE = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/** Give a played reply its parts and token counts. */
export function renderGemini(blocks: ReplyBlock[], model: string, inputTokens: number): RenderedGemini {
  const parts: Part[] = blocks.map((b) => (b.type === 'text' ? { text: b.text } : { functionCall: { name: b.name, args: b.input } }));
  const outChars = parts.reduce((n, p) => n + ('text' in p ? p.text.length : JSON.stringify(p.functionCall).length), 0);
  return { model, parts, inputTokens, outputTokens: estimateTokens(outChars) };
}

/** The non-streaming body: one complete `GenerateContentResponse`. */
export function geminiJson(r: RenderedGemini): Record<string, unknown> {
  return chunk(r, r.parts, true);
}

/** The streaming body: text in pieces, each function call whole; the last chunk finishes with usage. */
export function geminiEvents(r: RenderedGemini): SseEvent[] {
  const pieces: Part[] = r.parts.flatMap((p): Part[] => ('text' in p ? textChunks(p.text).map((text) => ({ text })) : [p]));
  if (pieces.length === 0) pieces.push({ text: '' });
  return pieces.map((p, i) => ({ event: '', data: chunk(r, [p], i === pieces.length - 1) }));
}

/** Encode one Gemini SSE chunk (the API sends `data:` lines only, no `event:`). */
export function encodeGeminiSse(e: SseEvent): string {
  return `data: ${JSON.stringify(e.data)}\r\n\r\n`;
}

/** The API's error body: `{"error":{"code","message","status"}}`. */
export function geminiErrorJson(status: number, message: string): Record<string, unknown> {
  return { error: { code: status, message, status: geminiStatus(status) } };
}

/** A request's own checks: `contents` must be there. */
export function validateGeminiRequest(body: unknown): string | undefined {
  if (!isRecord(body)) return 'request body must be a JSON object';
  if (!Array.isArray(body['contents'])) return '* GenerateContentRequest.contents: contents is not specified';
  return undefined;
}

/** Estimated input tokens of a Gemini request (contents, system instruction and tools). */
export function estimateGeminiInput(body: unknown): number {
  if (!isRecord(body)) return 1;
  const chars = [body['contents'], body['systemInstruction'], body['tools']]
    .filter((v) => v !== undefined)
    .reduce<number>((n, v) => n + JSON.stringify(v).length, 0);
  return estimateTokens(chars);
}

/**
 * A side request no script step is for: Gemini CLI's own structured checks (the model router's
 * complexity score, the next-speaker check), asked with `responseJsonSchema` and no tools. They are
 * answered with the smallest object the schema allows (an enum prefers "user": the person speaks
 * next) and do not move the member's script.
 */
export function geminiSideReply(body: unknown): ReplyBlock[] | undefined {
  const config = isRecord(body) ? body['generationConfig'] : undefined;
  const schema = isRecord(config) ? (config['responseJsonSchema'] ?? config['responseSchema']) : undefined;
  if (!isRecord(schema)) return undefined;
  return [{ type: 'text', text: JSON.stringify(smallestValue(schema)) }];
}

/** The smallest value a JSON schema (OpenAPI-style upper-case types too) accepts. */
function smallestValue(schema: Record<string, unknown>): unknown {
  const type = String(schema['type'] ?? 'object').toLowerCase();
  const choices = Array.isArray(schema['enum']) ? (schema['enum'] as unknown[]) : undefined;
  if (choices && choices.length > 0) return choices.includes('user') ? 'user' : choices[0];
  if (type === 'string') return 'demo';
  if (type === 'integer' || type === 'number') return typeof schema['minimum'] === 'number' ? schema['minimum'] : 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  const props = isRecord(schema['properties']) ? schema['properties'] : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(props)) if (isRecord(v)) out[k] = smallestValue(v);
  return out;
}

/** The user side of a Gemini request: each user content's text parts and function responses. */
export function geminiUserText(body: unknown): UserText {
  const contents = isRecord(body) && Array.isArray(body['contents']) ? body['contents'] : [];
  const users: string[] = [];
  for (const c of contents) {
    if (!isRecord(c) || (c['role'] !== 'user' && c['role'] !== undefined) || !Array.isArray(c['parts'])) continue;
    const texts: string[] = [];
    for (const p of c['parts']) {
      if (!isRecord(p)) continue;
      if (typeof p['text'] === 'string') texts.push(p['text']);
      if (isRecord(p['functionResponse'])) texts.push(JSON.stringify(p['functionResponse']['response'] ?? {}));
    }
    users.push(texts.join('\n'));
  }
  return { last: users[users.length - 1] ?? '', all: users.join('\n') };
}

function chunk(r: RenderedGemini, parts: Part[], last: boolean): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts, role: 'model' }, index: 0 };
  if (last) candidate['finishReason'] = 'STOP';
  const out: Record<string, unknown> = { candidates: [candidate], modelVersion: r.model, responseId: `demo-${r.inputTokens}-${r.outputTokens}` };
  if (last) out['usageMetadata'] = { promptTokenCount: r.inputTokens, candidatesTokenCount: r.outputTokens, totalTokenCount: r.inputTokens + r.outputTokens };
  return out;
}

function geminiStatus(status: number): string {
  const byStatus: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED' };
  return byStatus[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
