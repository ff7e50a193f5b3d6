/**
 * The scripted server streams and answers like the Messages API: text in several deltas, tool input as
 * input_json_delta chunks the SDK reassembles, a full JSON Message without `stream`, and the exact
 * SSE event order. All through the real @anthropic-ai/sdk client.
 */
import { describe, expect, it } from 'vitest';
import { ask, clientFor, MODEL, serve, textOf } from './helpers.js';

const LONG_TEXT = 'I will split this sentence into several small pieces so that streaming is real.';

describe('streaming', () => {
  it('stream.text-arrives-in-several-deltas', async () => {
    const server = await serve({ scripts: { default: { steps: [{ reply: [{ text: LONG_TEXT }] }] } } });
    const stream = clientFor(server).messages.stream(ask('hi'));
    const deltas: string[] = [];
    stream.on('text', (delta) => deltas.push(delta));
    const final = await stream.finalMessage();

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(LONG_TEXT);
    expect(final.content).toEqual([{ type: 'text', text: LONG_TEXT, citations: null }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.model).toBe(MODEL);
    expect(final.id).toMatch(/^msg_/);
    expect(final.usage.output_tokens).toBe(Math.ceil(LONG_TEXT.length / 4));
    expect(final.usage.input_tokens).toBeGreaterThan(0);
  });

  it('stream.tool-use-input-is-reassembled-from-json-deltas', async () => {
    const input = { subject: 'Design the pane layout', blockedBy: ['1', '2'], meta: { priority: 2, tags: ['ui', 'vt'] } };
    const server = await serve({
      scripts: {
        default: { steps: [{ reply: [{ text: "I'll create the tasks." }, { tool_use: { name: 'create_task', input } }] }] },
      },
    });
    const stream = clientFor(server).messages.stream(ask('plan it'));
    const jsonDeltas: string[] = [];
    stream.on('inputJson', (partial) => jsonDeltas.push(partial));
    const final = await stream.finalMessage();

    expect(jsonDeltas.filter((d) => d !== '').length).toBeGreaterThan(1);
    expect(JSON.parse(jsonDeltas.join(''))).toEqual(input);
    expect(final.stop_reason).toBe('tool_use');
    const tool = final.content[1];
    expect(tool?.type).toBe('tool_use');
    if (tool?.type !== 'tool_use') throw new Error('expected a tool_use block');
    expect(tool.name).toBe('create_task');
    expect(tool.input).toEqual(input);
    expect(tool.id).toMatch(/^toolu_[0-9A-Za-z]{20,}$/);
  });

  it('stream.events-come-in-api-order', async () => {
    const server = await serve({
      scripts: { default: { steps: [{ reply: [{ text: LONG_TEXT }, { tool_use: { name: 't', input: { a: 1 } } }] }] } },
    });
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ask('x'), stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    const names = frames.map((f) => /^event: (\w+)$/m.exec(f)?.[1]);
    const collapsed = names.filter((n, i) => n !== 'content_block_delta' || names[i - 1] !== 'content_block_delta');
    expect(collapsed).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const f of frames) {
      const data = JSON.parse(/^data: (.*)$/m.exec(f)![1]!) as { type: string };
      expect(data.type).toBe(/^event: (\w+)$/m.exec(f)![1]);
    }
  });

  it('tool-use-ids-are-unique-across-turns-and-blocks', async () => {
    const twoTools = { reply: [{ tool_use: { name: 'a', input: {} } }, { tool_use: { name: 'b', input: {} } }] };
    const server = await serve({ scripts: { default: { steps: [twoTools, twoTools] } } });
    const client = clientFor(server);
    const first = await client.messages.stream(ask('1')).finalMessage();
    const second = await client.messages.create(ask('2'));
    const ids = [...first.content, ...second.content].map((b) => (b.type === 'tool_use' ? b.id : ''));
    expect(ids.every((id) => id.startsWith('toolu_'))).toBe(true);
    expect(new Set(ids).size).toBe(4);
  });
});

describe('non-streaming', () => {
  it('create.answers-a-full-json-message', async () => {
    const server = await serve({
      scripts: {
        default: { steps: [{ reply: [{ text: 'Done.' }, { tool_use: { name: 'send_message', input: { to: 'lead' } } }], stop_reason: 'end_turn' }] },
      },
    });
    const message = await clientFor(server).messages.create(ask([{ type: 'text', text: 'hello' }]));

    expect(message.type).toBe('message');
    expect(message.role).toBe('assistant');
    expect(textOf(message)).toBe('Done.');
    expect(message.content[1]).toMatchObject({ type: 'tool_use', name: 'send_message', input: { to: 'lead' } });
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(message._request_id).toMatch(/^req_/);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ path: '/v1/messages', status: 200, step: 0, outcome: 'step' });
  });

  it('count-tokens.estimates-input', async () => {
    const server = await serve({ scripts: { default: { steps: [] } } });
    const text = 'x'.repeat(400);
    const count = await clientFor(server).messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: text }] });
    expect(count.input_tokens).toBeGreaterThanOrEqual(100);
    expect(count.input_tokens).toBeLessThan(150);
    expect(server.requests[0]).toMatchObject({ path: '/v1/messages/count_tokens', outcome: 'count', status: 200 });
  });
});

describe('lifetime', () => {
  it('close-ends-a-stream-in-flight', async () => {
    const server = await serve({ chunkDelayMs: 60_000, scripts: { default: { steps: [{ reply: [{ text: LONG_TEXT }] }] } } });
    const stream = clientFor(server, { maxRetries: 0 }).messages.stream(ask('hi'));
    const started = new Promise<void>((resolve) => stream.on('streamEvent', () => resolve()));
    const outcome = stream.finalMessage().then(
      () => 'completed',
      () => 'failed',
    );
    await started;
    const t0 = Date.now();
    await server.close();
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(await outcome).toBe('failed');
  });

  it('wait-for-request-resolves-on-a-matching-request-and-times-out-otherwise', async () => {
    const server = await serve({ scripts: { default: { steps: [{ reply: [{ text: 'hi' }] }] } } });
    const seen = server.waitForRequest((r) => r.member === 'alice', 5000);
    await clientFor(server, { member: 'alice' }).messages.create(ask('x'));
    expect((await seen).status).toBe(200);
    // already-logged requests match immediately
    expect((await server.waitForRequest((r) => r.member === 'alice', 10)).member).toBe('alice');
    await expect(server.waitForRequest((r) => r.member === 'bob', 20)).rejects.toThrow(/no matching request within 20 ms/);
  });
});
