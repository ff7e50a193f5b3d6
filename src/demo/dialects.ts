/**
 * The three model APIs the scripted server speaks, behind one shape: the Anthropic Messages API
 * (Claude Code, teamux's agents), the OpenAI Responses API (Codex CLI) and the Gemini API (Gemini
 * CLI). `routeOf` maps a request's method and path to its dialect; a `Dialect` says how that API
 * reads the user side of a request and how it writes a played reply, whole or streamed, and an error.
 * The server (server.ts) plays the same scripts whichever dialect asked. Pure: no sockets.
 */
import type { ErrorType, ReplyBlock, StopReason } from './script.js';
import type { UserText } from './player.js';
import { userText } from './player.js';
import { encodeSse, errorJson, estimateInputTokens, messageEvents, messageJson, renderReply, type SseEvent } from './wire.js';
import { renderResponse, responseEvents, responseFailedEvent, responseJson, responsesErrorJson, responsesSideReply, responsesUserText, validateResponsesRequest } from './wire-responses.js';
import { GEMINI_ROUTE, encodeGeminiSse, estimateGeminiInput, geminiErrorJson, geminiEvents, geminiJson, geminiSideReply, geminiUserText, renderGemini, validateGeminiRequest } from './wire-gemini.js';

/** How one model API reads a request and writes a reply. */
export interface Dialect {
  readonly name: 'messages' | 'responses' | 'gemini';
  validate(body: unknown, count: boolean): string | undefined;
  userText(body: unknown): UserText;
  inputTokens(body: unknown): number;
  /** The reply whole; `body` is the request (the tools it offers shape a call). */
  json(reply: ReplyBlock[], stopReason: StopReason, model: string, inputTokens: number, body: unknown): unknown;
  events(reply: ReplyBlock[], stopReason: StopReason, model: string, inputTokens: number, body: unknown): SseEvent[];
  /** The events of a stream that fails after it started. */
  failedEvents(type: ErrorType, message: string, model: string, inputTokens: number, requestId: string): SseEvent[];
  encode(e: SseEvent): string;
  errorBody(status: number, type: ErrorType, message: string, requestId: string): unknown;
  /** A reply for a side request the client makes on its own (a title), played from no script; else undefined. */
  sideReply(body: unknown): ReplyBlock[] | undefined;
  /** The count-tokens answer. */
  countJson(inputTokens: number): unknown;
}

/** A request the server answers: its dialect, whether it only counts tokens, and what the path says. */
export interface Route {
  dialect: Dialect;
  count: boolean;
  /** From the path (Gemini names the model and streaming there); undefined: from the body. */
  model: string | undefined;
  stream: boolean | undefined;
}

const messages: Dialect = {
  name: 'messages',
  validate(body, count) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'request body must be a JSON object';
    const b = body as Record<string, unknown>;
    if (typeof b['model'] !== 'string' || !b['model']) return 'model: Field required';
    if (!count && typeof b['max_tokens'] !== 'number') return 'max_tokens: Field required';
    if (!Array.isArray(b['messages'])) return 'messages: Field required';
    return undefined;
  },
  userText,
  inputTokens: estimateInputTokens,
  json: (reply, stop, model, input) => messageJson(renderReply(reply, stop, model, input)),
  events: (reply, stop, model, input) => messageEvents(renderReply(reply, stop, model, input)),
  failedEvents: (type, message, model, input, requestId) => [
    ...messageEvents(renderReply([], 'end_turn', model, input)).slice(0, 1),
    { event: 'error', data: errorJson(type, message, requestId) },
  ],
  encode: encodeSse,
  errorBody: (_status, type, message, requestId) => errorJson(type, message, requestId),
  sideReply: () => undefined,
  countJson: (input) => ({ input_tokens: input }),
};

const responses: Dialect = {
  name: 'responses',
  validate: (body) => validateResponsesRequest(body),
  userText: responsesUserText,
  inputTokens: estimateInputTokens,
  json: (reply, _stop, model, input, body) => responseJson(renderResponse(reply, model, input, body)),
  events: (reply, _stop, model, input, body) => responseEvents(renderResponse(reply, model, input, body)),
  failedEvents: (type, message, model, input) => {
    const r = renderResponse([], model, input);
    return [responseEvents(r)[0]!, responseFailedEvent(r, type, message)];
  },
  encode: encodeSse,
  errorBody: (_status, type, message) => responsesErrorJson(type, message),
  sideReply: responsesSideReply,
  countJson: (input) => ({ object: 'response.input_tokens', input_tokens: input }),
};

const gemini: Dialect = {
  name: 'gemini',
  validate: (body) => validateGeminiRequest(body),
  userText: geminiUserText,
  inputTokens: estimateGeminiInput,
  json: (reply, _stop, model, input) => geminiJson(renderGemini(reply, model, input)),
  events: (reply, _stop, model, input) => geminiEvents(renderGemini(reply, model, input)),
  failedEvents: (_type, message) => [{ event: '', data: geminiErrorJson(500, message) }],
  encode: encodeGeminiSse,
  errorBody: (status, _type, message) => geminiErrorJson(status, message),
  sideReply: geminiSideReply,
  countJson: (input) => ({ totalTokens: input }),
};

/** The dialect of a request by its method and API path (after any /m/NAME prefix), or undefined. */
export function routeOf(method: string, apiPath: string): Route | undefined {
  if (method !== 'POST') return undefined;
  if (apiPath === '/v1/messages') return { dialect: messages, count: false, model: undefined, stream: undefined };
  if (apiPath === '/v1/messages/count_tokens') return { dialect: messages, count: true, model: undefined, stream: undefined };
  if (apiPath === '/v1/responses') return { dialect: responses, count: false, model: undefined, stream: undefined };
  if (apiPath === '/v1/responses/input_tokens') return { dialect: responses, count: true, model: undefined, stream: undefined };
  const g = GEMINI_ROUTE.exec(apiPath);
  if (g) return { dialect: gemini, count: g[2] === 'countTokens', model: decodeURIComponent(g[1]!), stream: g[2] === 'streamGenerateContent' };
  return undefined;
}

/** The Messages dialect, for answers to requests no route matched. */
export const MESSAGES_DIALECT = messages;
