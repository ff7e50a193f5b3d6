/**
 * The agent loop through the real SDK against the scripted server: an idle member makes no model
 * call; a message wakes it; text streams into the pane; tool calls run and their results go back;
 * the final text goes to the lead as a `result`, followed by an `idle_notification`; the transcript
 * and heartbeat are written; with auto_claim a member takes ready tasks as the board changes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentTeam, bodyOf, callsOf, contentText, endpointOf, inbox, lastUser, scripted, startAgent, waitFor, waitForMessage } from './helpers.js';

describe('loop', () => {
  it('loop.idle-until-a-message-then-streams-runs-tools-and-reports', async () => {
    const { store, root } = await agentTeam(['alice']);
    await store.tasks.create({ subject: 'Write the docs' });
    const server = await scripted({
      alice: {
        steps: [
          { when: { last_user_contains: 'task_assignment' }, reply: [{ text: 'Looking at the board before I start.' }, { tool_use: { name: 'task_list', input: {} } }] },
          { reply: [{ text: 'All clear: the docs task is the only one.' }] },
        ],
      },
    }, { chunkDelayMs: 1 });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);

    // Idle: no model call while nothing has arrived.
    await waitFor(() => alice.output().includes('idle'), 'alice idle');
    expect(callsOf(server, 'alice')).toHaveLength(0);

    await store.send({ from: 'lead', to: 'alice', type: 'task_assignment', text: 'Please take task 1', payload: { task_id: '1' } });
    const idle = await waitForMessage(store, 'lead', (m) => m.type === 'idle_notification', 'idle notification');
    expect(idle.from).toBe('alice');

    const calls = callsOf(server, 'alice');
    expect(calls).toHaveLength(2);
    const first = bodyOf(calls[0]);
    expect(contentText(first.messages[0]!.content)).toBe('<message from="lead" type="task_assignment" task_id="1">Please take task 1</message>');
    expect(first.system).toContain('You are alice, a teammate of the team "t"');
    const tools = first.tools!.map((t) => t.name);
    expect(tools).toContain('task_list');
    expect(tools).toContain('bash');
    expect(tools).not.toContain('create_task');
    const second = lastUser(calls[1]);
    expect(second.content).toMatchObject([{ type: 'tool_result', content: expect.stringContaining('"subject":"Write the docs"') }]);

    const lead = await inbox(store, 'lead');
    expect(lead.map((m) => [m.from, m.type, m.text])).toEqual([
      ['alice', 'result', 'All clear: the docs task is the only one.'],
      ['alice', 'idle_notification', 'alice is idle'],
    ]);
    const out = alice.output();
    expect(out).toContain('Looking at the board before I start.');
    expect(out).toContain('▸ task_list');
    expect(out).toContain('✉ lead · task_assignment: Please take task 1');
    await waitFor(async () => {
      const me = await store.member('alice');
      return me.ok && me.value.status === 'idle';
    }, 'alice recorded as idle in team.json');
    await waitFor(() => existsSync(store.paths.heartbeat('alice')), 'a heartbeat');
    const transcript = JSON.parse(readFileSync(store.paths.transcript('alice'), 'utf8')) as { messages: unknown[]; usage: { output: number } };
    expect(transcript.messages).toHaveLength(4);
    expect(transcript.usage.output).toBeGreaterThan(0);
    // The inbox cursor was committed: the message is not delivered again.
    expect((await store.mail.unread('alice', 'alice')).messages).toHaveLength(0);
  });

  it('loop.text-streams-into-the-pane-in-pieces', async () => {
    const { store, root } = await agentTeam(['alice']);
    const text = 'one two three four five six seven eight nine ten eleven twelve';
    const server = await scripted({ alice: { steps: [{ reply: [{ text }] }] } });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'hello' });
    await waitFor(() => alice.output().includes(text), 'the whole reply');
    // Each text delta is written as it arrives: the reply reached the pane in several pieces.
    const pieces = alice.sink.writes.filter((w) => w.trim() !== '' && text.includes(w));
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    expect(pieces.join('')).toBe(text);
  });

  it('loop.auto-claim-takes-ready-tasks-as-the-board-changes', async () => {
    const { store, root } = await agentTeam(['alice']);
    const server = await scripted({
      alice: {
        steps: [
          { when: { last_user_contains: 'task_claimed id="1"' }, reply: [{ tool_use: { name: 'task_complete', input: { id: '1', result: 'first done' } } }] },
          { reply: [{ text: 'Task 1 finished.' }] },
          { when: { last_user_contains: 'task_claimed id="2"' }, reply: [{ tool_use: { name: 'task_complete', input: { id: '2', result: 'second done' } } }] },
          { reply: [{ text: 'Task 2 finished.' }] },
        ],
      },
    });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root, { autoClaim: true });
    await waitFor(() => alice.output().includes('idle'), 'alice idle on an empty board');
    expect(callsOf(server, 'alice')).toHaveLength(0);

    // Creating tasks wakes her through the watch on the task folder; 2 becomes ready when 1 completes.
    const one = await store.tasks.create({ subject: 'First' });
    await store.tasks.create({ subject: 'Second', blockedBy: [one.ok ? one.value.id : ''] });
    await waitFor(async () => {
      const t = await store.tasks.get('2');
      return t.ok && t.value.status === 'completed';
    }, 'task 2 completed');
    const board = await store.tasks.snapshot();
    expect(board.tasks.map((t) => [t.id, t.status, t.owner, t.result])).toEqual([
      ['1', 'completed', 'alice', 'first done'],
      ['2', 'completed', 'alice', 'second done'],
    ]);
    await waitForMessage(store, 'lead', (m) => m.type === 'result' && m.text === 'Task 2 finished.', 'second result');
    expect(alice.output()).toContain('auto_claim: claimed task 2: Second');
  });

  it('loop.a-fresh-lead-starts-from-its-kickoff', async () => {
    const { store, root } = await agentTeam(['alice']);
    const server = await scripted({ lead: { steps: [{ reply: [{ text: 'Planning now.' }] }] } });
    const lead = startAgent(store, 'lead', endpointOf(server, 'lead'), root, { kickoff: 'You have just started as the lead.' });
    await waitFor(() => lead.output().includes('Planning now.'), 'the lead to answer its kickoff');
    await waitFor(() => lead.output().includes('idle'), 'the lead idle');
    expect(contentText(bodyOf(callsOf(server, 'lead')[0]).messages[0]!.content)).toBe('You have just started as the lead.');
    // The lead reports to nobody.
    expect(await inbox(store, 'lead')).toEqual([]);
    expect(bodyOf(callsOf(server, 'lead')[0]).tools!.map((t) => t.name)).toEqual(expect.arrayContaining(['create_task', 'assign_task', 'spawn_teammate', 'approve_plan']));
  });
});
