/**
 * How a script is played: `when` holds a step back (answering the idle reply), positions are kept per
 * member and picked by the x-teamux-member header, metadata.user_id or the default script, an
 * exhausted script says "(script finished)", and reset() rewinds.
 */
import { describe, expect, it } from 'vitest';
import type Anthropic from '@anthropic-ai/sdk';
import { ask, clientFor, MODEL, serve, textOf } from './helpers.js';

const toolResult = (content: string): Anthropic.MessageCreateParamsNonStreaming => ({
  model: MODEL,
  max_tokens: 1024,
  messages: [
    { role: 'user', content: 'start' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'read_inbox', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: [{ type: 'text', text: content }] }] },
  ],
});

describe('when', () => {
  it('when.holds-the-step-back-until-the-last-user-message-matches', async () => {
    const server = await serve({
      scripts: {
        default: {
          steps: [
            { when: { last_user_contains: 'task_assignment' }, reply: [{ text: 'On it.' }] },
            { reply: [{ text: 'Next.' }] },
          ],
        },
      },
    });
    const client = clientFor(server);

    const idle = await client.messages.stream(ask('nothing yet')).finalMessage();
    expect(textOf(idle)).toBe('(waiting)');
    expect(idle.stop_reason).toBe('end_turn');
    expect(textOf(await client.messages.create(toolResult('inbox is empty')))).toBe('(waiting)');

    const played = await client.messages.create(toolResult('{"type":"task_assignment","taskId":"1"}'));
    expect(textOf(played)).toBe('On it.');
    expect(textOf(await client.messages.create(ask('anything')))).toBe('Next.');
    expect(server.requests.map((r) => r.outcome)).toEqual(['idle', 'idle', 'step', 'step']);
    expect(server.requests.map((r) => r.step)).toEqual([null, null, 0, 1]);
  });

  it('when.regex-form-and-custom-idle-reply', async () => {
    const server = await serve({
      scripts: {
        default: {
          idle_reply: 'Still waiting for the plan.',
          steps: [{ when: { last_user_contains: '/plan (approved|accepted)/i' }, reply: [{ text: 'Starting.' }] }],
        },
      },
    });
    const client = clientFor(server);
    expect(textOf(await client.messages.create(ask('plan rejected')))).toBe('Still waiting for the plan.');
    expect(textOf(await client.messages.create(ask('Plan Accepted by lead')))).toBe('Starting.');
  });

  it('when.only-the-last-user-message-counts', async () => {
    const server = await serve({
      scripts: { default: { steps: [{ when: { last_user_contains: 'go' }, reply: [{ text: 'Going.' }] }] } },
    });
    const body = ask('stop');
    body.messages = [{ role: 'user', content: 'go' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'stop' }];
    expect(textOf(await clientFor(server).messages.create(body))).toBe('(waiting)');
  });
});

describe('position', () => {
  it('exhausted-script-answers-script-finished', async () => {
    const server = await serve({ scripts: { default: { steps: [{ reply: [{ text: 'Only turn.' }] }] } } });
    const client = clientFor(server);
    expect(textOf(await client.messages.create(ask('1')))).toBe('Only turn.');
    const after = await client.messages.stream(ask('2')).finalMessage();
    expect(textOf(after)).toBe('(script finished)');
    expect(after.stop_reason).toBe('end_turn');
    expect(server.requests[1]).toMatchObject({ outcome: 'finished', step: null });
  });

  it('reset-rewinds-one-member-or-all', async () => {
    const script = { steps: [{ reply: [{ text: 'one' }] }, { reply: [{ text: 'two' }] }] };
    const server = await serve({ scripts: { a: script, b: script } });
    const a = clientFor(server, { member: 'a' });
    const b = clientFor(server, { member: 'b' });
    await a.messages.create(ask('x'));
    await b.messages.create(ask('x'));
    server.reset('a');
    expect(textOf(await a.messages.create(ask('x')))).toBe('one');
    expect(textOf(await b.messages.create(ask('x')))).toBe('two');
    server.reset();
    expect(textOf(await b.messages.create(ask('x')))).toBe('one');
  });
});

describe('selection', () => {
  const scripts = {
    lead: { steps: [{ reply: [{ text: 'lead 1' }] }, { reply: [{ text: 'lead 2' }] }] },
    alice: { steps: [{ reply: [{ text: 'alice 1' }] }] },
    default: { steps: [{ reply: [{ text: 'default 1' }] }, { reply: [{ text: 'default 2' }] }] },
  };

  it('selection.by-x-teamux-member-header-with-independent-positions', async () => {
    const server = await serve({ scripts });
    const lead = clientFor(server, { member: 'lead' });
    const alice = clientFor(server, { member: 'alice' });
    expect(textOf(await lead.messages.create(ask('x')))).toBe('lead 1');
    expect(textOf(await alice.messages.stream(ask('x')).finalMessage())).toBe('alice 1');
    expect(textOf(await lead.messages.create(ask('x')))).toBe('lead 2');
    expect(server.requests.map((r) => [r.member, r.script])).toEqual([
      ['lead', 'lead'],
      ['alice', 'alice'],
      ['lead', 'lead'],
    ]);
  });

  it('selection.falls-back-to-metadata-user-id', async () => {
    const server = await serve({ scripts });
    const message = await clientFor(server).messages.create({ ...ask('x'), metadata: { user_id: 'alice' } });
    expect(textOf(message)).toBe('alice 1');
  });

  it('selection.header-wins-over-metadata', async () => {
    const server = await serve({ scripts });
    const message = await clientFor(server, { member: 'lead' }).messages.create({ ...ask('x'), metadata: { user_id: 'alice' } });
    expect(textOf(message)).toBe('lead 1');
  });

  it('selection.unknown-members-share-the-default-script-with-their-own-positions', async () => {
    const server = await serve({ scripts });
    const bob = clientFor(server, { member: 'bob' });
    const carol = clientFor(server, { member: 'carol' });
    expect(textOf(await bob.messages.create(ask('x')))).toBe('default 1');
    expect(textOf(await carol.messages.create(ask('x')))).toBe('default 1');
    expect(textOf(await bob.messages.create(ask('x')))).toBe('default 2');
    expect(textOf(await clientFor(server).messages.create(ask('x')))).toBe('default 1');
  });

  it('selection.no-script-and-no-default-is-a-400-naming-the-member', async () => {
    const server = await serve({ scripts: { lead: scripts.lead } });
    const err = await clientFor(server, { member: 'bob' })
      .messages.create(ask('x'))
      .then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ status: 400, type: 'invalid_request_error' });
    expect(String((err as Error).message)).toContain("no demo script for member 'bob'");
    expect(server.requests).toHaveLength(1);
  });
});

describe('conditions over the whole conversation', () => {
  it('when.all-user-contains-and-else-skip', async () => {
    const { nextAnswer, START } = await import('../../src/demo/player.js');
    const { scriptFromObject } = await import('../../src/demo/script.js');
    const parsed = scriptFromObject({
      idle_reply: 'idle',
      steps: [
        { when: { last_user_contains: 'blocked', else: 'skip' }, reply: [{ text: 'narrate' }] },
        { when: { all_user_contains: ['one done', 'two done'] }, reply: [{ text: 'both' }] },
      ],
    });
    if (!parsed.ok) throw new Error('bad script');
    const script = parsed.value;
    // The optional step is passed over; the next waits until both facts have been seen anywhere.
    let r = nextAnswer(script, START, { last: 'one done', all: 'one done' });
    expect(r.answer).toMatchObject({ outcome: 'idle' });
    expect(r.state.step).toBe(1);
    r = nextAnswer(script, r.state, { last: 'two done', all: 'one done\ntwo done' });
    expect(r.answer).toMatchObject({ outcome: 'step', reply: [{ type: 'text', text: 'both' }] });
    // And when its condition holds, the optional step plays.
    expect(nextAnswer(script, START, { last: 'blocked: plan', all: 'blocked: plan' }).answer).toMatchObject({ reply: [{ type: 'text', text: 'narrate' }] });
  });
});
