/**
 * The scripted server: an HTTP server on 127.0.0.1 that speaks the Anthropic Messages API, the OpenAI
 * Responses API and the Gemini API and answers from demo scripts, so a team runs offline and agent
 * tests hit a real socket through the real SDK or CLI. It owns the listening socket, the open
 * connections, any streaming reply in flight and the request log; close() releases all of them.
 * Routes (dialects.ts): POST /v1/messages and /v1/messages/count_tokens, POST /v1/responses, POST
 * /v1beta/models/M:generateContent and :streamGenerateContent, each also under /m/NAME/ for a client
 * that names its member in the base URL; anything else is a 404. Which script answers is decided by
 * player.ts; how a reply looks on the wire by dialects.ts and the wire modules.
 */
import { createServer, type IncomingMessage, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { Disposable } from '../host/types.js';
import { scriptFromObject, formatScriptError, type Script, type ScriptInput, type ErrorType } from './script.js';
import { ScriptPlayer, memberOf, type Answer } from './player.js';
import { newId } from './wire.js';
import { MESSAGES_DIALECT, routeOf, type Dialect } from './dialects.js';

const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** `/m/NAME` in front of an API path names the member (see handle()). */
const MEMBER_ROUTE = /^\/m\/([a-z][a-z0-9_-]{0,31})(?=\/)/;
const REDACTED = '[redacted]';

export interface ScriptedServerOptions {
  /** Scripts by member name: validated `Script`s, or inputs (as written in YAML) validated here. */
  scripts: ReadonlyMap<string, Script | ScriptInput> | Record<string, Script | ScriptInput>;
  /** Script for members that have none of their own (default `default`). */
  defaultScript?: string;
  /** Port to listen on; 0 or absent picks a free one. */
  port?: number;
  /** When set, requests must carry this key in `x-api-key` (or `authorization: Bearer`). */
  apiKey?: string;
  /** Pause between streamed events, to make streaming visible in a demo (default 0). */
  chunkDelayMs?: number;
  /** Keep only the newest N log entries (bodies hold whole transcripts); default: keep all. */
  maxLoggedRequests?: number;
}

/** One received request, as tests see it. Credentials are redacted from `headers`. */
export interface LoggedRequest {
  /** When the request arrived (ms since the epoch). */
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** The member the request spoke for (messages routes only). */
  member: string | undefined;
  /** The script that answered, and the step index played (null for idle / finished / none). */
  script: string | undefined;
  step: number | null;
  /** step/idle/finished: a reply was played; error: a scripted error; count: count_tokens; rejected: 4xx. */
  outcome: 'step' | 'idle' | 'finished' | 'error' | 'count' | 'rejected';
  status: number;
}

export interface ScriptedServer extends Disposable {
  /** Base URL for the SDK's `baseURL` / `ANTHROPIC_BASE_URL`, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
  /** Requests received, in arrival order (the newest `maxLoggedRequests` when that is set). */
  readonly requests: readonly LoggedRequest[];
  /** Call `listener` for each request once it has been answered (or its stream started). */
  onRequest(listener: (request: LoggedRequest) => void): Disposable;
  /** Resolve with the first logged request (past or future) matching `predicate`; reject after `timeoutMs`. */
  waitForRequest(predicate: (request: LoggedRequest) => boolean, timeoutMs?: number): Promise<LoggedRequest>;
  /** Rewind one member, or every member, to the start of its script. */
  reset(member?: string): void;
  /** Stop listening, end open connections and streams in flight. */
  close(): Promise<void>;
}

/** Start a scripted Messages API server on 127.0.0.1. Invalid inline scripts throw (a caller bug). */
export async function startScriptedServer(opts: ScriptedServerOptions): Promise<ScriptedServer> {
  const scripts = new Map<string, Script>();
  const entries = opts.scripts instanceof Map ? [...opts.scripts] : Object.entries(opts.scripts);
  for (const [name, s] of entries) {
    const result = scriptFromObject(s, name);
    if (!result.ok) throw new Error(`invalid script:\n${result.errors.map(formatScriptError).join('\n')}`);
    scripts.set(name, result.value);
  }
  const defaultScript = opts.defaultScript ?? 'default';
  const player = new ScriptPlayer(scripts, defaultScript);

  // lifetime: aborted by close(); cancels streams in flight
  const closing = new AbortController();
  // the log and who listens to it
  const requests: LoggedRequest[] = [];
  const listeners = new Set<(r: LoggedRequest) => void>();
  const record = (entry: LoggedRequest): void => {
    requests.push(entry);
    const excess = requests.length - (opts.maxLoggedRequests ?? Infinity);
    if (excess > 0) requests.splice(0, excess);
    for (const l of [...listeners]) l(entry);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      // A bug in the handler: answer like the API would, never crash the host process.
      if (res.destroyed) return;
      if (!res.headersSent) sendError(res, MESSAGES_DIALECT, 500, 'api_error', `scripted server bug: ${(e as Error).message}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const path = (req.url ?? '/').split('?')[0]!;
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    const headers = redact(req.headers);
    const base = { at, method, path, headers, member: undefined, script: undefined, step: null };
    if (raw === undefined) {
      record({ ...base, body: null, outcome: 'rejected', status: 413 });
      return sendError(res, MESSAGES_DIALECT, 413, 'request_too_large', 'Request exceeds the maximum allowed size');
    }
    const body = parseJson(raw);
    // A client that cannot send a header (Claude Code, Codex, Gemini CLI) names its member in the base URL: /m/NAME/v1/…
    const routed = MEMBER_ROUTE.exec(path);
    const apiPath = routed ? path.slice(routed[0].length) : path;
    const route = routeOf(method, apiPath);
    if (!route) {
      record({ ...base, body, outcome: 'rejected', status: 404 });
      return sendError(res, MESSAGES_DIALECT, 404, 'not_found_error', `Not found: ${method} ${path}`);
    }
    const { dialect } = route;
    if (opts.apiKey !== undefined && !hasKey(req.headers, opts.apiKey)) {
      record({ ...base, body, outcome: 'rejected', status: 401 });
      return sendError(res, dialect, 401, 'authentication_error', 'invalid x-api-key');
    }
    const invalid = dialect.validate(body, route.count);
    if (invalid) {
      record({ ...base, body, outcome: 'rejected', status: 400 });
      return sendError(res, dialect, 400, 'invalid_request_error', invalid);
    }
    if (route.count) {
      record({ ...base, body, outcome: 'count', status: 200 });
      return sendJson(res, 200, dialect.countJson(dialect.inputTokens(body)));
    }

    const member = routed ? routed[1]! : memberOf(req.headers['x-teamux-member'], body, defaultScript);
    const side = dialect.sideReply(body);
    const played = side ? { script: 'side', answer: { kind: 'turn', step: null, outcome: 'idle', reply: side, stopReason: 'end_turn' } as const } : player.play(member, dialect.userText(body));
    if (!played) {
      record({ ...base, body, member, outcome: 'rejected', status: 400 });
      const known = player.names().join(', ') || 'none';
      return sendError(res, dialect, 400, 'invalid_request_error', `no demo script for member '${member}' (scripts: ${known})`);
    }
    const { answer, script } = played;
    const b = body as { model?: string; stream?: boolean };
    const model = route.model ?? b.model ?? 'demo';
    const stream = route.stream ?? b.stream === true;
    const entry = { ...base, body, member, script, step: answer.step };
    if (answer.kind === 'error' && !(answer.midStream && stream)) {
      record({ ...entry, outcome: 'error', status: answer.status });
      const extra: Record<string, string> = answer.retryAfter === undefined ? {} : { 'retry-after': String(answer.retryAfter) };
      return sendError(res, dialect, answer.status, answer.errorType, answer.message, extra);
    }
    record({ ...entry, outcome: answer.kind === 'error' ? 'error' : answer.outcome, status: 200 });
    const inputTokens = dialect.inputTokens(body);
    if (stream) return streamAnswer(res, dialect, answer, model, inputTokens, body);
    if (answer.kind === 'turn') sendJson(res, 200, dialect.json(answer.reply, answer.stopReason, model, inputTokens, body));
  }

  async function streamAnswer(res: ServerResponse, dialect: Dialect, answer: Answer, model: string, inputTokens: number, body: unknown): Promise<void> {
    const requestId = newId('req');
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': requestId,
    });
    const events =
      answer.kind === 'turn'
        ? dialect.events(answer.reply, answer.stopReason, model, inputTokens, body)
        : dialect.failedEvents(answer.errorType, answer.message, model, inputTokens, requestId);
    const pace = opts.chunkDelayMs ?? 0;
    for (const e of events) {
      if (closing.signal.aborted || res.destroyed) break;
      res.write(dialect.encode(e));
      if (pace > 0) await delay(pace, undefined, { signal: closing.signal }).catch(() => undefined);
    }
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      closing.abort();
      listeners.clear();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    onRequest(listener) {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
    waitForRequest(predicate, timeoutMs = 5000) {
      const seen = requests.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          // What did arrive, so a test that times out says what the client asked for instead.
          const seenList = requests.slice(-8).map((r) => `${r.path} ${r.member ?? '-'} ${r.outcome}${r.step !== null ? ` step ${r.step}` : ''}`).join('; ');
          reject(new Error(`no matching request within ${timeoutMs} ms (${requests.length} received${seenList ? `, the last: ${seenList}` : ''})`));
        }, timeoutMs);
        const check = (r: LoggedRequest): void => {
          if (!predicate(r)) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve(r);
        };
        listeners.add(check);
      });
    },
    reset: (member) => player.reset(member),
    close,
    dispose: () => void close(),
  };
}

function hasKey(headers: IncomingHttpHeaders, key: string): boolean {
  const auth = headers['authorization'];
  return headers['x-api-key'] === key || auth === `Bearer ${key}`;
}

function redact(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out = { ...headers };
  if (out['x-api-key'] !== undefined) out['x-api-key'] = REDACTED;
  if (out['authorization'] !== undefined) out['authorization'] = REDACTED;
  return out;
}

/** The body as text, or undefined when it is larger than MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(raw: string): unknown {
  if (raw === '') return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': newId('req'),
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, dialect: Dialect, status: number, type: ErrorType, message: string, headers: Record<string, string> = {}): void {
  const requestId = newId('req');
  const text = JSON.stringify(dialect.errorBody(status, type, message, requestId));
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': requestId,
    ...headers,
  });
  res.end(text);
}
