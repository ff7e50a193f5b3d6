/**
 * Compaction: past the threshold, the older turns are summarised by one model call (tools offered
 * but tool_choice none) and replaced by the summary, with the identity block injected again; the
 * last assistant turns are kept verbatim so tool calls stay paired with their results.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compacted, shouldCompact, splitForCompaction, SUMMARY_INSTRUCTION, summaryRequest } from '../../src/agent/compaction.js';
import type { Turn } from '../../src/agent/conversation.js';
import { agentTeam, bodyOf, callsOf, contentText, endpointOf, scripted, startAgent, waitForMessage } from './helpers.js';

const u = (text: string): Turn => ({ role: 'user', content: [{ type: 'text', text }] });
const a = (text: string): Turn => ({ role: 'assistant', content: [{ type: 'text', text }] });

describe('compaction (pure)', () => {
  it('compaction.cuts-before-the-kept-assistant-turns', () => {
    const conv = [u('u0'), a('a1'), u('u1'), a('a2'), u('u2'), a('a3'), u('u3')];
    expect(splitForCompaction(conv, 2)).toEqual({ older: conv.slice(0, 3), tail: conv.slice(3) });
    expect(splitForCompaction(conv, 3)).toBeNull();
    expect(splitForCompaction(conv.slice(0, 5), 2)).toBeNull();
    expect(shouldCompact(150_001, 150_000)).toBe(true);
    expect(shouldCompact(150_000, 150_000)).toBe(false);
    const req = summaryRequest(conv.slice(0, 3));
    expect(req).toHaveLength(3);
    expect(contentText(req[2]!.content)).toBe(`u1\n${SUMMARY_INSTRUCTION}`);
    const next = compacted('I am alice', 'we did things', conv.slice(3));
    expect(next.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(contentText(next[0]!.content)).toContain('<identity>\nI am alice\n</identity>');
  });
});

describe('compaction (agent)', () => {
  it('compaction.summarises-older-turns-and-reinjects-the-identity', async () => {
    const { store, root } = await agentTeam(['alice']);
    const look = { reply: [{ tool_use: { name: 'task_list', input: {} } }] };
    const server = await scripted({
      alice: {
        steps: [
          look, look, look,
          { when: { last_user_contains: 'Summarise the conversation so far' }, reply: [{ text: 'SUMMARY: looked at the board three times.' }] },
          { reply: [{ text: 'Done after compaction.' }] },
        ],
      },
    });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root, { compactAt: 100 });
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'look at the board' });
    await waitForMessage(store, 'lead', (m) => m.type === 'result' && m.text === 'Done after compaction.', 'the result');

    const calls = callsOf(server, 'alice');
    expect(calls).toHaveLength(5);
    const summary = bodyOf(calls[3]);
    expect(summary.tool_choice).toEqual({ type: 'none' });
    expect(summary.messages).toHaveLength(3);
    expect(contentText(summary.messages[2]!.content)).toContain(SUMMARY_INSTRUCTION);
    const after = bodyOf(calls[4]).messages;
    expect(after.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    const head = contentText(after[0]!.content);
    expect(head).toContain('<identity>\nYou are alice');
    expect(head).toContain('SUMMARY: looked at the board three times.');
    expect(after[1]!.content).toMatchObject([{ type: 'tool_use', name: 'task_list' }]);
    expect(alice.output()).toContain('compacted 7 turns into 5');
    const transcript = JSON.parse(readFileSync(store.paths.transcript('alice'), 'utf8')) as { compactions: number; messages: unknown[] };
    expect(transcript.compactions).toBe(1);
    expect(transcript.messages).toHaveLength(6);
  });
});
