/**
 * The transcript: a restarted member resumes its conversation (the next request carries the earlier
 * turns), a conversation cut off in the middle of a tool step is repaired and continued, a corrupt
 * transcript is set aside, and the API key never reaches the transcript, the log, the events or
 * the lead's inbox — even when a tool or the model's own text contains it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repairConversation } from '../../src/agent/conversation.js';
import { scrubSecrets } from '../../src/agent/transcript.js';
import { agentTeam, bodyOf, callsOf, contentText, endpointOf, inbox, scripted, startAgent, waitFor, waitForMessage } from './helpers.js';

describe('resume', () => {
  it('resume.a-restarted-member-continues-its-conversation', async () => {
    const { store, root } = await agentTeam(['alice']);
    const server = await scripted({
      alice: {
        steps: [
          { when: { last_user_contains: 'remember 42' }, reply: [{ text: 'Noted: 42.' }] },
          { when: { last_user_contains: 'what number' }, reply: [{ text: 'It was 42.' }] },
        ],
      },
    });
    const first = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'remember 42' });
    await waitForMessage(store, 'lead', (m) => m.text === 'Noted: 42.', 'first answer');
    first.runtime.exit(0, 'restart');
    expect(await first.done).toBe(0);

    const second = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await waitFor(() => second.output().includes('resumed the conversation from the transcript (2 turns)'), 'the resume notice');
    expect(callsOf(server, 'alice')).toHaveLength(1);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'what number was it?' });
    await waitForMessage(store, 'lead', (m) => m.text === 'It was 42.', 'second answer');
    const messages = bodyOf(callsOf(server, 'alice')[1]).messages;
    expect(messages.map((m) => [m.role, contentText(m.content)])).toEqual([
      ['user', '<message from="lead" type="message">remember 42</message>'],
      ['assistant', 'Noted: 42.'],
      ['user', '<message from="lead" type="message">what number was it?</message>'],
    ]);
  });

  it('resume.a-step-cut-off-by-a-crash-is-repaired-and-continued', async () => {
    const { store, root } = await agentTeam(['alice']);
    writeFileSync(store.paths.transcript('alice'), JSON.stringify({
      version: 1, member: 'alice', model: 'm', savedAt: '', contextTokens: 0, compactions: 0, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'build it' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'make' } }] },
      ],
    }));
    const server = await scripted({ alice: { steps: [{ when: { last_user_contains: 'restarted' }, reply: [{ text: 'I will run make again.' }] }] } });
    startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await waitForMessage(store, 'lead', (m) => m.type === 'result', 'the continued turn');
    const last = bodyOf(callsOf(server, 'alice')[0]).messages[2]!;
    expect(last.content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'not run: the member restarted before this tool step finished', is_error: true }]);
    expect(repairConversation([{ role: 'user', content: 'hi' }])).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('resume.a-corrupt-transcript-is-set-aside', async () => {
    const { store, root } = await agentTeam(['alice']);
    writeFileSync(store.paths.transcript('alice'), '{"version": 1, "messa');
    const server = await scripted({ alice: { steps: [] } });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await waitFor(() => alice.output().includes('is unreadable'), 'the notice');
    expect(existsSync(`${store.paths.transcript('alice')}.bad`)).toBe(true);
  });
});

describe('secrets', () => {
  it('secrets.the-api-key-never-reaches-the-disk-or-the-lead', async () => {
    const key = 'sk-ant-api03-SECRETSECRETSECRET-0123456789';
    const { store, root } = await agentTeam(['alice']);
    writeFileSync(path.join(root, 'leak.txt'), `token: ${key}\n`);
    const server = await scripted({
      alice: {
        steps: [
          { reply: [{ tool_use: { name: 'read_file', input: { path: 'leak.txt' } } }, { tool_use: { name: 'bash', input: { command: 'echo "env=[$ANTHROPIC_API_KEY]"' } } }] },
          { reply: [{ text: `I found ${key} somewhere.` }] },
        ],
      },
    }, { apiKey: key });
    startAgent(store, 'alice', endpointOf(server, 'alice', key), root, {}, { ...process.env, ANTHROPIC_API_KEY: key });
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'look around' });
    const result = await waitForMessage(store, 'lead', (m) => m.type === 'result', 'the result');
    // The key did authenticate every call.
    expect(callsOf(server, 'alice').map((r) => r.status)).toEqual([200, 200]);
    expect(result.text).toBe('I found [redacted] somewhere.');
    const toolResults = contentText(bodyOf(callsOf(server, 'alice')[1]).messages[2]!.content);
    expect(toolResults).toBe('token: [redacted]\n\nexit code 0\nenv=[]');
    for (const file of [store.paths.transcript('alice'), store.paths.events, store.paths.inbox('lead'), store.paths.config]) {
      expect(readFileSync(file, 'utf8'), file).not.toContain(key);
    }
    if (existsSync(store.paths.log)) expect(readFileSync(store.paths.log, 'utf8')).not.toContain(key);
    expect(JSON.stringify(await inbox(store, 'lead'))).not.toContain('SECRETSECRET');
  });

  it('secrets.scrub-walks-every-string', () => {
    const key = 'plain-secret-value';
    expect(scrubSecrets({ a: [`x ${key} y`, 1, { b: key }], c: null }, [key])).toEqual({ a: ['x [redacted] y', 1, { b: '[redacted]' }], c: null });
    expect(scrubSecrets('sk-ant-abcdefghijkl', [])).toBe('[redacted]');
  });
});
