/**
 * API failures: 529/429/5xx and an SSE error event in the middle of a stream are retried with
 * backoff by the runtime (the SDK retries nothing), each retry announced in the pane; an error that
 * is not worth retrying, or retries running out, ends the turn with a message and an idle
 * notification saying why — the member lives on and works again on the next message.
 */
import { describe, expect, it } from 'vitest';
import { describeFailure, formatDelay, retryDecision, type Failure } from '../../src/agent/model.js';
import { agentTeam, callsOf, endpointOf, inbox, scripted, startAgent, waitFor, waitForMessage } from './helpers.js';

const ok = { reply: [{ text: 'Recovered and done.' }] };

describe('retry (agent)', () => {
  it('retry.529-twice-then-success-each-retry-shown', async () => {
    const { store, root } = await agentTeam(['alice']);
    const server = await scripted({ alice: { steps: [{ error: { status: 529, times: 2 } }, ok] } });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'go' });
    await waitForMessage(store, 'lead', (m) => m.type === 'result' && m.text === 'Recovered and done.', 'the result');
    expect(callsOf(server, 'alice').map((r) => r.status)).toEqual([529, 529, 200]);
    expect(alice.output()).toContain('API overloaded (529), retrying in 5ms (attempt 2/6)');
    expect(alice.output()).toContain('API overloaded (529), retrying in 10ms (attempt 3/6)');
  });

  it('retry.sse-error-mid-stream-is-retried', async () => {
    const { store, root } = await agentTeam(['alice']);
    const server = await scripted({ alice: { steps: [{ error: { status: 529, mid_stream: true } }, ok] } });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'go' });
    await waitForMessage(store, 'lead', (m) => m.type === 'result' && m.text === 'Recovered and done.', 'the result');
    expect(callsOf(server, 'alice').map((r) => r.outcome)).toEqual(['error', 'step']);
    expect(alice.output()).toContain('API overloaded (mid-stream), retrying in 5ms (attempt 2/6)');
  });

  it('retry.429-and-500-are-retried-too', async () => {
    const { store, root } = await agentTeam(['alice']);
    const server = await scripted({ alice: { steps: [{ error: { status: 429 } }, { error: { status: 500 } }, ok] } });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'go' });
    await waitForMessage(store, 'lead', (m) => m.type === 'result', 'the result');
    expect(alice.output()).toContain('rate limited (429), retrying');
    expect(alice.output()).toContain('API error (500), retrying');
  });

  it('retry.a-400-fails-at-once-and-the-member-lives-on', async () => {
    const { store, root } = await agentTeam(['alice']);
    const server = await scripted({ alice: { steps: [{ error: { status: 400, message: 'messages: bad' } }, ok] } });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'go' });
    const idle = await waitForMessage(store, 'lead', (m) => m.type === 'idle_notification', 'the idle notification');
    expect(idle.payload).toEqual({ reason: 'failed' });
    expect(idle.text).toContain('request rejected (400): messages: bad');
    expect((await inbox(store, 'lead')).some((m) => m.type === 'result')).toBe(false);
    expect(alice.output()).toContain('model call failed: request rejected (400): messages: bad');
    expect(callsOf(server, 'alice')).toHaveLength(1);

    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'try again' });
    await waitForMessage(store, 'lead', (m) => m.type === 'result' && m.text === 'Recovered and done.', 'the result');
  });

  it('retry.gives-up-after-the-last-attempt', async () => {
    const { store, root } = await agentTeam(['alice']);
    const server = await scripted({ alice: { steps: [{ error: { status: 529, times: 3 } }, ok] } });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root, { retry: { attempts: 3, baseMs: 1, maxMs: 5 } });
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'go' });
    await waitFor(() => alice.output().includes('gave up after 3 attempts'), 'giving up');
    expect(callsOf(server, 'alice')).toHaveLength(3);
  });
});

describe('retry (pure)', () => {
  const f = (over: Partial<Failure>): Failure => ({ status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfterMs: null, connection: false, ...over });
  const policy = { attempts: 6, baseMs: 1000, maxMs: 30_000 };

  it('retry.backoff-doubles-honours-retry-after-and-caps', () => {
    expect(retryDecision(f({}), 1, policy)).toEqual({ retry: true, delayMs: 1000, notice: 'API overloaded (529), retrying in 1s (attempt 2/6)' });
    expect(retryDecision(f({}), 2, policy)).toMatchObject({ delayMs: 2000, notice: 'API overloaded (529), retrying in 2s (attempt 3/6)' });
    expect(retryDecision(f({}), 5, policy)).toMatchObject({ delayMs: 16_000 });
    expect(retryDecision(f({ status: 429, type: 'rate_limit_error', retryAfterMs: 7000 }), 1, policy)).toMatchObject({ delayMs: 7000 });
    expect(retryDecision(f({ retryAfterMs: 90_000 }), 1, policy)).toMatchObject({ delayMs: 30_000 });
    expect(retryDecision(f({}), 6, policy)).toEqual({ retry: false, message: 'API overloaded (529): gave up after 6 attempts (Overloaded)' });
  });

  it('retry.what-is-retried', () => {
    const retried = (over: Partial<Failure>) => retryDecision(f(over), 1, policy).retry;
    expect(retried({ status: 500, type: 'api_error' })).toBe(true);
    expect(retried({ status: 503, type: null })).toBe(true);
    expect(retried({ status: undefined, type: 'overloaded_error' })).toBe(true);
    expect(retried({ status: undefined, type: null, connection: true })).toBe(true);
    expect(retried({ status: 400, type: 'invalid_request_error' })).toBe(false);
    expect(retried({ status: 401, type: 'authentication_error' })).toBe(false);
    expect(describeFailure(f({ status: 401, type: 'authentication_error' }))).toBe('authentication failed (401): check ANTHROPIC_API_KEY');
    expect(formatDelay(250)).toBe('250ms');
    expect(formatDelay(1500)).toBe('1.5s');
  });
});
