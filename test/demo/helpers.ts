/**
 * Shared set-up for the demo server tests: a server per test (closed afterwards) and a real SDK
 * client pointed at it. Nothing here mocks the SDK; every call goes over HTTP on 127.0.0.1.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach } from 'vitest';
import { startScriptedServer, type ScriptedServer, type ScriptedServerOptions } from '../../src/demo/server.js';

const open: ScriptedServer[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** Start a scripted server that is closed after the current test. */
export async function serve(opts: ScriptedServerOptions): Promise<ScriptedServer> {
  const server = await startScriptedServer(opts);
  open.push(server);
  return server;
}

/** A real SDK client for `server`, optionally speaking for `member`. */
export function clientFor(server: ScriptedServer, opts: { member?: string; maxRetries?: number; apiKey?: string } = {}): Anthropic {
  return new Anthropic({
    apiKey: opts.apiKey ?? 'test',
    baseURL: server.url,
    maxRetries: opts.maxRetries ?? 2,
    ...(opts.member ? { defaultHeaders: { 'x-teamux-member': opts.member } } : {}),
  });
}

export const MODEL = 'claude-sonnet-5-5';

/** A minimal request with one user message. */
export function ask(content: Anthropic.MessageParam['content']): Anthropic.MessageCreateParamsNonStreaming {
  return { model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content }] };
}

/** The concatenated text blocks of a message. */
export function textOf(message: Anthropic.Message): string {
  return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}
