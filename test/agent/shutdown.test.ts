/**
 * The shutdown handshake from the member's side: a shutdown_request is answered by the runtime (no
 * model call), after the current tool step when one is running; tasks still held are released; the
 * member is recorded as exited and run() resolves 0. A member without an API key stays idle, says
 * why in its pane, and still answers.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentTeam, callsOf, endpointOf, inbox, scripted, startAgent, waitFor, waitForMessage } from './helpers.js';

describe('shutdown', () => {
  it('shutdown.idle-member-approves-releases-and-exits-0', async () => {
    const { store, root } = await agentTeam(['alice']);
    await store.tasks.create({ subject: 'Half done' });
    await store.claim('alice', '1');
    const server = await scripted({ alice: { steps: [] } });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await waitFor(() => alice.output().includes('idle'), 'alice idle');

    const req = await store.openRequest('shutdown', 'lead', 'alice', 'we are done');
    expect(req.ok).toBe(true);
    expect(await alice.done).toBe(0);
    const answered = await store.requests.get(req.ok ? req.value.id : '');
    expect(answered.ok && answered.value).toMatchObject({ status: 'approved', response: { by: 'alice', approve: true, text: 'shutting down; released task 1' } });
    const response = (await inbox(store, 'lead')).find((m) => m.type === 'shutdown_response')!;
    expect(response).toMatchObject({ from: 'alice', payload: { approve: true } });
    const task = await store.tasks.get('1');
    expect(task.ok && [task.value.status, task.value.owner]).toEqual(['pending', null]);
    const me = await store.member('alice');
    expect(me.ok && [me.value.status, me.value.exitCode]).toEqual(['exited', 0]);
    expect(callsOf(server, 'alice')).toHaveLength(0);
    expect(alice.output()).toContain('shutdown requested by lead: we are done; approving');
    const events = (await store.events.read()).events.map((e) => e.type);
    expect(events).toEqual(expect.arrayContaining(['member_stopping', 'member_exited', 'request_resolved']));
  });

  it('shutdown.waits-for-the-current-tool-step', async () => {
    const { store, root } = await agentTeam(['alice']);
    const server = await scripted({
      alice: {
        steps: [
          { reply: [{ text: 'Running the long job.' }, { tool_use: { name: 'bash', input: { command: 'while [ ! -e go ]; do sleep 0.01; done; echo finished' } } }] },
          { reply: [{ text: 'never played' }] },
        ],
      },
    });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'run it' });
    await waitFor(() => alice.output().includes('▸ bash'), 'the tool to start');
    const req = await store.openRequest('shutdown', 'lead', 'alice', 'stop');
    // The request waits while the tool runs.
    const during = await store.requests.get(req.ok ? req.value.id : '');
    expect(during.ok && during.value.status).toBe('pending');
    writeFileSync(path.join(root, 'go'), '');
    expect(await alice.done).toBe(0);
    expect(callsOf(server, 'alice')).toHaveLength(1);
    const transcript = JSON.parse(readFileSync(store.paths.transcript('alice'), 'utf8')) as { messages: { role: string; content: { type: string; content?: string }[] }[] };
    const last = transcript.messages[transcript.messages.length - 1]!;
    expect(last.content[0]).toMatchObject({ type: 'tool_result', content: 'exit code 0\nfinished' });
    const answered = await store.requests.get(req.ok ? req.value.id : '');
    expect(answered.ok && answered.value.status).toBe('approved');
  });

  it('shutdown.a-member-without-a-key-stays-idle-and-still-answers', async () => {
    const { store, root } = await agentTeam(['alice']);
    const alice = startAgent(store, 'alice', { ok: false, reason: 'no ANTHROPIC_API_KEY is set, so this agent cannot call a model.' }, root);
    await waitFor(() => alice.output().includes('idle (no API key)'), 'the pane to say no API key');
    expect(alice.output()).toContain('no ANTHROPIC_API_KEY is set');
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'are you there?' });
    // Kept in the transcript for when a key is set and the member restarts.
    await waitFor(() => existsSync(store.paths.transcript('alice')) && readFileSync(store.paths.transcript('alice'), 'utf8').includes('are you there?'), 'the message saved');
    expect(alice.output()).toContain('✉ lead · message: are you there?');
    const req = await store.openRequest('shutdown', 'lead', 'alice', 'bye');
    expect(await alice.done).toBe(0);
    await waitForMessage(store, 'lead', (m) => m.type === 'shutdown_response' && m.request_id === (req.ok ? req.value.id : ''), 'the response');
  });

  it('shutdown.exit-stops-a-running-turn', async () => {
    const { store, root } = await agentTeam(['alice']);
    const server = await scripted({ alice: { steps: [{ reply: [{ tool_use: { name: 'bash', input: { command: 'sleep 30' } } }] }] } });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'go' });
    await waitFor(() => alice.output().includes('▸ bash'), 'the tool to start');
    alice.runtime.exit(130, 'Ctrl-C twice');
    expect(await alice.done).toBe(130);
    const me = await store.member('alice');
    expect(me.ok && [me.value.status, me.value.exitCode]).toEqual(['exited', 130]);
  });
});
