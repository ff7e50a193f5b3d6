/**
 * Scripted failures exercise a client's retry path: 529 overloaded and 500 api_error are retried by the
 * SDK, 429 carries retry-after (which the SDK honours), a mid-stream error arrives as an SSE `error`
 * event. Also: unknown routes, bad requests, and the optional API key check, which never leaks the key.
 */
import { describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { ask, clientFor, serve, textOf } from './helpers.js';

const ok = { reply: [{ text: 'Recovered.' }] };

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
}

describe('scripted errors', () => {
  it('error.529-is-retried-by-the-sdk-then-succeeds', async () => {
    const server = await serve({ scripts: { default: { steps: [{ error: { status: 529, times: 1 } }, ok] } } });
    const final = await clientFor(server, { maxRetries: 2 }).messages.stream(ask('go')).finalMessage();

    expect(textOf(final)).toBe('Recovered.');
    expect(server.requests).toHaveLength(2);
    expect(server.requests.map((r) => [r.status, r.outcome, r.step])).toEqual([
      [529, 'error', 0],
      [200, 'step', 1],
    ]);
  });

  it('error.529-body-has-the-api-error-shape', async () => {
    const server = await serve({ scripts: { default: { steps: [{ error: { status: 529 } }, ok] } } });
    const err = await failure(clientFor(server, { maxRetries: 0 }).messages.create(ask('go')));

    expect(err).toBeInstanceOf(Anthropic.APIError);
    const apiErr = err as InstanceType<typeof Anthropic.APIError>;
    expect(apiErr.status).toBe(529);
    expect(apiErr.type).toBe('overloaded_error');
    expect(apiErr.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(apiErr.requestID).toMatch(/^req_/);
  });

  it('error.429-sends-retry-after-and-the-sdk-waits-for-it', async () => {
    const server = await serve({
      scripts: { default: { steps: [{ error: { status: 429, retry_after: 1, message: 'slow down' } }, ok] } },
    });
    const message = await clientFor(server, { maxRetries: 1 }).messages.create(ask('go'));

    expect(textOf(message)).toBe('Recovered.');
    expect(server.requests.map((r) => r.status)).toEqual([429, 200]);
    // The SDK's own first backoff is at most 0.5 s, so a gap near 1 s means retry-after was honoured.
    const gap = server.requests[1]!.at - server.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(900);
  });

  it('error.429-raw-response-headers-and-body', async () => {
    const server = await serve({ scripts: { default: { steps: [{ error: { status: 429, retry_after: 3 } }] } } });
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ask('go')),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  it('error.times-exhausts-the-sdk-retries', async () => {
    const server = await serve({ scripts: { default: { steps: [{ error: { status: 500, times: 2 } }, ok] } } });
    const err = await failure(clientFor(server, { maxRetries: 1 }).messages.create(ask('go')));

    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    expect((err as InstanceType<typeof Anthropic.APIError>).type).toBe('api_error');
    expect(server.requests.map((r) => r.status)).toEqual([500, 500]);
    // the error step is used up: the next call plays the following step
    expect(textOf(await clientFor(server).messages.create(ask('again')))).toBe('Recovered.');
  });

  it('error.mid-stream-arrives-as-an-sse-error-event', async () => {
    const server = await serve({ scripts: { default: { steps: [{ error: { status: 529, mid_stream: true } }, ok] } } });
    const err = await failure(clientFor(server).messages.stream(ask('go')).finalMessage());

    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).type).toBe('overloaded_error');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ status: 200, outcome: 'error' });
  });

  it('error.when-holds-an-error-step-back-too', async () => {
    const server = await serve({
      scripts: { default: { steps: [{ when: { last_user_contains: 'fail now' }, error: { status: 500 } }] } },
    });
    expect(textOf(await clientFor(server, { maxRetries: 0 }).messages.create(ask('hi')))).toBe('(waiting)');
    await failure(clientFor(server, { maxRetries: 0 }).messages.create(ask('please fail now')));
  });
});

describe('routes and requests', () => {
  it('unknown-route-is-a-404-json-error', async () => {
    const server = await serve({ scripts: { default: { steps: [] } } });
    const res = await fetch(`${server.url}/v1/models`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models', status: 404 });
  });

  it('request-without-max-tokens-is-a-400', async () => {
    const server = await serve({ scripts: { default: { steps: [ok] } } });
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
  });

  it('logs-request-bodies-and-headers', async () => {
    const server = await serve({ scripts: { default: { steps: [ok] } } });
    await clientFor(server, { member: 'lead' }).messages.create({ ...ask('hello'), system: 'You are the lead.' });
    const logged = server.requests[0]!;
    expect(logged.headers['x-teamux-member']).toBe('lead');
    expect(logged.body).toMatchObject({ system: 'You are the lead.', messages: [{ role: 'user', content: 'hello' }] });
  });

  it('log-keeps-only-the-newest-entries-when-capped', async () => {
    const server = await serve({ maxLoggedRequests: 2, scripts: { default: { steps: [ok, ok, ok] } } });
    const client = clientFor(server);
    for (const text of ['one', 'two', 'three']) await client.messages.create(ask(text));
    expect(server.requests.map((r) => (r.body as { messages: { content: string }[] }).messages[0]!.content)).toEqual(['two', 'three']);
  });
});

describe('api key', () => {
  it('key.accepts-the-x-api-key-header', async () => {
    const server = await serve({ apiKey: 'sk-expected-secret', scripts: { default: { steps: [ok] } } });
    const post = (key: string) =>
      fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(ask('x')),
      });
    expect((await post('nope')).status).toBe(401);
    expect((await post('sk-expected-secret')).status).toBe(200);
    expect(server.requests[1]!.headers['x-api-key']).toBe('[redacted]');
  });

  it('key.not-checked-when-the-server-has-none', async () => {
    const server = await serve({ scripts: { default: { steps: [ok] } } });
    expect(textOf(await clientFor(server, { apiKey: 'anything' }).messages.create(ask('x')))).toBe('Recovered.');
  });

  it('key.wrong-key-is-a-401-and-keys-are-never-logged', async () => {
    const server = await serve({ apiKey: 'sk-expected-secret', scripts: { default: { steps: [ok] } } });
    const err = await failure(clientFor(server, { apiKey: 'sk-wrong-secret' }).messages.create(ask('x')));
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);

    const message = await clientFor(server, { apiKey: 'sk-expected-secret' }).messages.create(ask('x'));
    expect(textOf(message)).toBe('Recovered.');
    expect(server.requests.map((r) => r.status)).toEqual([401, 200]);
    // SDK 1.14 sends the key as `authorization: Bearer …`; older clients use `x-api-key`.
    const sent = server.requests[1]!.headers;
    expect(sent['authorization'] ?? sent['x-api-key']).toBe('[redacted]');
    const log = JSON.stringify(server.requests);
    expect(log).not.toContain('sk-expected-secret');
    expect(log).not.toContain('sk-wrong-secret');
  });
});
