/**
 * The scripted server speaks the OpenAI Responses API (Codex CLI) and the Gemini API (Gemini CLI)
 * beside the Messages API, from the same scripts: the SSE event order and shapes over a real socket,
 * the user side (function call outputs, function responses) driving `when`, the CLIs' side requests
 * (Codex's task title, Gemini's router check) answered without moving the script, and the real pinned
 * binaries (`codex exec`, `gemini -p`) printing a scripted reply offline (skipped with a notice when
 * not installed: node scripts/agent-clis.mjs).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serve } from './helpers.js';
import { agentCliForTests } from '../helpers/claude-code.js';

/** Run a client to its end with stdin closed (codex exec reads a prompt from an open stdin); its stdout. */
function run(file: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeout: number }): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ stdout }) : reject(new Error(`${path.basename(file)} exited ${code}: ${stderr.slice(-2000)}`))));
  });
}
const scratch = mkdtempSync(path.join(tmpdir(), 'teamux-demo-apis-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

/** The JSON of each `data:` line of an SSE body. */
function dataOf(text: string): Array<Record<string, unknown>> {
  return text.split(/\r?\n/).filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

const TOOL_THEN_TEXT = {
  steps: [
    { reply: [{ text: 'Making it now, one small step after another.' }, { tool_use: { name: 'exec_command', input: { cmd: 'touch made.txt' } } }] },
    { when: { last_user_contains: 'exit code 0' }, reply: [{ text: 'It is made and here is a longer sentence.' }] },
  ],
};

describe('responses api', () => {
  it('responses.streams-text-and-a-function-call-in-the-api-event-order', async () => {
    const server = await serve({ scripts: { cody: TOOL_THEN_TEXT } });
    const { status, text } = await post(`${server.url}/m/cody/v1/responses`, { model: 'gpt-5-codex', stream: true, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] }] });
    expect(status).toBe(200);
    const events = dataOf(text);
    const types = events.map((e) => e['type']);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types.filter((t) => t === 'response.output_item.done')).toHaveLength(2);
    const call = events.filter((e) => e['type'] === 'response.output_item.done').map((e) => e['item'] as Record<string, unknown>)[1]!;
    expect(call).toMatchObject({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'touch made.txt' }) });
    const argDeltas = events.filter((e) => e['type'] === 'response.function_call_arguments.delta').map((e) => e['delta'] as string);
    expect(argDeltas.length).toBeGreaterThan(1);
    expect(argDeltas.join('')).toBe(call['arguments']);
    const usage = (events.at(-1)!['response'] as { usage: Record<string, number> }).usage;
    expect(usage['input_tokens']).toBeGreaterThan(0);
    expect(usage['total_tokens']).toBe(usage['input_tokens']! + usage['output_tokens']!);
    expect(events.map((e) => e['sequence_number'])).toEqual(events.map((_, i) => i));
  });

  it('responses.a-function-call-output-is-the-user-side-and-a-title-request-leaves-the-script-alone', async () => {
    const server = await serve({ scripts: { cody: TOOL_THEN_TEXT } });
    await post(`${server.url}/m/cody/v1/responses`, { model: 'm', input: 'go' });
    const title = await post(`${server.url}/m/cody/v1/responses`, { model: 'm', input: 'name it', text: { format: { type: 'json_schema', schema: { properties: { title: { type: 'string' } } } } } });
    expect(JSON.parse(title.text).output[0].content[0].text).toBe(JSON.stringify({ title: 'teamux demo' }));
    const after = await post(`${server.url}/m/cody/v1/responses`, { model: 'm', input: [{ type: 'function_call_output', call_id: 'c', output: 'Process exited with exit code 0' }] });
    expect(JSON.parse(after.text).output[0].content[0].text).toBe('It is made and here is a longer sentence.');
    expect(server.requests.map((r) => r.step)).toEqual([0, null, 1]);
  });

  it('responses.errors-have-the-api-shape', async () => {
    const server = await serve({ scripts: { cody: { steps: [{ error: { status: 429 } }] } } });
    const missing = await post(`${server.url}/m/cody/v1/responses`, { input: 'x' });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text).error.message).toMatch(/model/);
    const limited = await post(`${server.url}/m/cody/v1/responses`, { model: 'm', input: 'x' });
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.text).error.type).toBe('rate_limit_error');
  });
});

describe('gemini api', () => {
  it('gemini.streams-sse-chunks-with-usage-on-the-last', async () => {
    const server = await serve({ scripts: { gem: TOOL_THEN_TEXT } });
    const { status, text } = await post(`${server.url}/m/gem/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse`, { contents: [{ role: 'user', parts: [{ text: 'go' }] }] });
    expect(status).toBe(200);
    expect(text).not.toMatch(/^event:/m);
    const chunks = dataOf(text);
    expect(chunks.length).toBeGreaterThan(2);
    const parts = chunks.flatMap((c) => (c['candidates'] as Array<{ content: { parts: Array<Record<string, unknown>> } }>)[0]!.content.parts);
    expect(parts.filter((p) => 'text' in p).map((p) => p['text']).join('')).toBe('Making it now, one small step after another.');
    expect(parts.find((p) => 'functionCall' in p)).toEqual({ functionCall: { name: 'exec_command', args: { cmd: 'touch made.txt' } } });
    expect(chunks.slice(0, -1).every((c) => c['usageMetadata'] === undefined)).toBe(true);
    expect(chunks.at(-1)!['usageMetadata']).toMatchObject({ promptTokenCount: expect.any(Number), candidatesTokenCount: expect.any(Number) });
    expect(chunks[0]!['modelVersion']).toBe('gemini-3-pro');
  });

  it('gemini.a-function-response-is-the-user-side-and-a-schema-check-leaves-the-script-alone', async () => {
    const server = await serve({ scripts: { gem: TOOL_THEN_TEXT } });
    const url = `${server.url}/m/gem/v1beta/models/g:generateContent`;
    await post(url, { contents: [{ role: 'user', parts: [{ text: 'go' }] }] });
    const check = await post(url, { contents: [{ role: 'user', parts: [{ text: 'who speaks?' }] }], generationConfig: { responseJsonSchema: { type: 'OBJECT', properties: { next_speaker: { type: 'STRING', enum: ['model', 'user'] }, score: { type: 'INTEGER' } } } } });
    expect(JSON.parse(JSON.parse(check.text).candidates[0].content.parts[0].text)).toEqual({ next_speaker: 'user', score: 1 });
    const after = await post(url, { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'exec_command', response: { output: 'exit code 0' } } }] }] });
    expect(JSON.parse(after.text).candidates[0]).toMatchObject({ finishReason: 'STOP', content: { parts: [{ text: 'It is made and here is a longer sentence.' }] } });
    expect(server.requests.map((r) => r.step)).toEqual([0, null, 1]);
    const bad = await post(url, { nothing: true });
    expect(JSON.parse(bad.text).error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
  });
});

const codex = agentCliForTests('codex');
const gemini = agentCliForTests('gemini');

describe('real clients, offline', () => {
  it.skipIf(!codex)('codex-exec.prints-the-scripted-reply', async () => {
    const server = await serve({ scripts: { cody: { steps: [{ reply: [{ text: 'hello from the scripted codex reply' }] }] } } });
    const home = path.join(scratch, 'codex');
    mkdirSync(path.join(home, '.codex'), { recursive: true });
    writeFileSync(path.join(home, '.codex', 'config.toml'), `model = "gpt-5-codex"\nmodel_provider = "demo"\n[model_providers.demo]\nname = "demo"\nbase_url = "${server.url}/m/cody/v1"\nwire_api = "responses"\nenv_key = "DEMO_KEY"\n`);
    const { stdout } = await run(codex!, ['exec', '--skip-git-repo-check', 'say hi'], { cwd: home, env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: path.join(home, '.codex'), DEMO_KEY: 'k' }, timeout: 60_000 });
    expect(stdout).toContain('hello from the scripted codex reply');
    expect(server.requests.some((r) => r.path === '/m/cody/v1/responses' && r.step === 0)).toBe(true);
  }, 90_000);

  it.skipIf(!gemini)('gemini-p.prints-the-scripted-reply', async () => {
    const server = await serve({ scripts: { gem: { steps: [{ reply: [{ text: 'hello from the scripted gemini reply' }] }] } } });
    const home = path.join(scratch, 'gemini');
    mkdirSync(path.join(home, '.gemini'), { recursive: true });
    writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    const env = { PATH: process.env.PATH, HOME: home, GEMINI_CLI_HOME: home, GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: `${server.url}/m/gem` };
    const { stdout } = await run(gemini!, ['-p', 'say hi'], { cwd: home, env, timeout: 60_000 });
    expect(stdout).toContain('hello from the scripted gemini reply');
    expect(server.requests.some((r) => /:streamGenerateContent$/.test(r.path) && r.step === 0)).toBe(true);
  }, 90_000);
});
