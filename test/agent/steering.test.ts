/**
 * Steering from the pane: a line typed while the member works is queued and reaches the model at
 * the next turn boundary (with the tool results of the step that was running); Esc aborts the
 * streaming reply without killing the member; the keyboard decoding and line editing are pure, and
 * the console maps Enter, Esc and a double Ctrl-C onto the runtime.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CTRL_C, PaneConsole, type Steerable } from '../../src/agent/console.js';
import { ctrlC, decodeKeys, editLine } from '../../src/agent/keys.js';
import { Pane } from '../../src/agent/pane.js';
import { agentTeam, bodyOf, callsOf, CaptureSink, contentText, endpointOf, lastUser, scripted, startAgent, waitFor, waitForMessage } from './helpers.js';

describe('steering (agent)', () => {
  it('steer.typed-input-is-delivered-at-the-next-turn-boundary', async () => {
    const { store, root } = await agentTeam(['alice']);
    const server = await scripted({
      alice: {
        steps: [
          { reply: [{ text: 'Building.' }, { tool_use: { name: 'bash', input: { command: 'while [ ! -e go ]; do sleep 0.01; done; echo built' } } }] },
          { when: { last_user_contains: 'also update the changelog' }, reply: [{ text: 'Built, and I will update the changelog.' }] },
        ],
      },
    });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'build it' });
    await waitFor(() => alice.output().includes('▸ bash'), 'the tool step to start');

    alice.runtime.steer('also update the changelog');
    expect(alice.output()).toContain('› also update the changelog  (queued for the next turn)');
    expect(callsOf(server, 'alice')).toHaveLength(1);
    writeFileSync(path.join(root, 'go'), '');

    await waitForMessage(store, 'lead', (m) => m.type === 'result', 'the result');
    const calls = callsOf(server, 'alice');
    expect(calls).toHaveLength(2);
    expect(contentText(bodyOf(calls[0]).messages[0]!.content)).not.toContain('changelog');
    // The queued line rides in the same user turn as the tool result, after it.
    expect(lastUser(calls[1]).content).toMatchObject([
      { type: 'tool_result', content: 'exit code 0\nbuilt' },
      { type: 'text', text: '<pane_input>also update the changelog</pane_input>' },
    ]);
  });

  it('steer.esc-interrupts-the-stream-and-the-member-lives-on', async () => {
    const { store, root } = await agentTeam(['alice']);
    const long = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
    const server = await scripted({
      alice: { steps: [{ reply: [{ text: long }] }, { when: { last_user_contains: 'shorter please' }, reply: [{ text: 'Short answer.' }] }] },
    }, { chunkDelayMs: 20 });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'explain everything' });
    await waitFor(() => alice.output().includes('word3 '), 'streaming to begin');

    const keyboard = new PaneConsole(alice.runtime, new Pane(alice.sink));
    keyboard.feed('\x1b');
    await waitFor(() => alice.output().includes('interrupted; type to steer'), 'the interrupt');
    expect(alice.output()).not.toContain('word299');
    // Interrupted by the person: nothing is reported to the lead.
    expect((await store.mail.unread('lead', 'observer')).messages).toEqual([]);

    keyboard.feed('shorter please\r');
    await waitForMessage(store, 'lead', (m) => m.type === 'result' && m.text === 'Short answer.', 'the steered answer');
    const calls = callsOf(server, 'alice');
    expect(calls).toHaveLength(2);
    // The aborted reply was dropped: the new request carries one user turn with both texts.
    expect(bodyOf(calls[1]).messages).toHaveLength(1);
    expect(contentText(bodyOf(calls[1]).messages[0]!.content)).toBe('<message from="lead" type="message">explain everything</message>\n<pane_input>shorter please</pane_input>');
  });
  it('steer.interrupting-a-tool-step-and-typing-starts-a-new-turn', async () => {
    const { store, root } = await agentTeam(['alice']);
    const server = await scripted({
      alice: {
        steps: [
          { reply: [{ tool_use: { name: 'bash', input: { command: 'sleep 30' } } }, { tool_use: { name: 'task_list', input: {} } }] },
          { when: { last_user_contains: 'skip the slow job' }, reply: [{ text: 'Skipped it.' }] },
        ],
      },
    });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'run the slow job' });
    await waitFor(() => alice.output().includes('▸ bash'), 'the slow tool to start');
    expect(alice.runtime.interrupt()).toBe(true);
    alice.runtime.steer('skip the slow job');
    await waitForMessage(store, 'lead', (m) => m.type === 'result' && m.text === 'Skipped it.', 'the new turn');
    expect(lastUser(callsOf(server, 'alice')[1]).content).toMatchObject([
      { type: 'tool_result', is_error: true, content: expect.stringContaining('interrupted by the person at the pane') },
      { type: 'tool_result', is_error: true, content: 'not run: the turn was interrupted by the person at the pane' },
      { type: 'text', text: '<pane_input>skip the slow job</pane_input>' },
    ]);
  });
});

describe('keyboard (pure)', () => {
  it('keys.decode-text-controls-and-escape-sequences', () => {
    expect(decodeKeys('hi there\r')).toEqual([{ kind: 'char', text: 'hi there' }, { kind: 'enter' }]);
    expect(decodeKeys('\x1b')).toEqual([{ kind: 'escape' }]);
    // Cursor keys, function keys and paste markers are swallowed; the text around them is kept.
    expect(decodeKeys('a\x1b[Ab\x1bOPc\x1b[200~d').map((k) => (k.kind === 'char' ? k.text : k.kind)).join('')).toBe('abcd');
    expect(decodeKeys('\x1b[1;5C')).toEqual([]);
    expect(decodeKeys('x\x7f\x03\x15\x17\r\n')).toEqual([
      { kind: 'char', text: 'x' }, { kind: 'backspace' }, { kind: 'ctrl-c' }, { kind: 'ctrl-u' }, { kind: 'ctrl-w' }, { kind: 'enter' },
    ]);
    expect(decodeKeys('\x1b\x1b')).toEqual([{ kind: 'escape' }, { kind: 'escape' }]);
    expect(decodeKeys('é✓')).toEqual([{ kind: 'char', text: 'é✓' }]);
  });

  it('keys.line-editing', () => {
    expect(editLine('ab', { kind: 'char', text: 'c' })).toEqual({ kind: 'edit', line: 'abc' });
    expect(editLine('ab✓', { kind: 'backspace' })).toEqual({ kind: 'edit', line: 'ab' });
    expect(editLine('fix the bug', { kind: 'ctrl-w' })).toEqual({ kind: 'edit', line: 'fix the ' });
    expect(editLine('fix', { kind: 'ctrl-u' })).toEqual({ kind: 'edit', line: '' });
    expect(editLine('fix', { kind: 'enter' })).toEqual({ kind: 'submit', text: 'fix' });
    expect(ctrlC(null, 1000)).toBe('interrupt');
    expect(ctrlC(1000, 2500)).toBe('exit');
    expect(ctrlC(1000, 3500)).toBe('interrupt');
  });

  it('console.enter-steers-esc-interrupts-double-ctrl-c-exits', () => {
    const calls: string[] = [];
    const target: Steerable = {
      steer: (t) => calls.push(`steer:${t}`),
      interrupt: () => (calls.push('interrupt'), true),
      exit: (code, why) => calls.push(`exit:${code}:${why}`),
    };
    let now = 10_000;
    const sink = new CaptureSink(true, { columns: 80, rows: 24 });
    const keyboard = new PaneConsole(target, new Pane(sink), () => now);
    keyboard.feed('check the log');
    expect(sink.text).toContain('check the log');
    keyboard.feed('s\r');
    keyboard.feed('\r');
    keyboard.feed('\x1b');
    keyboard.feed('\x03');
    now += 3000;
    keyboard.feed('\x03');
    now += 1500;
    keyboard.feed('\x03');
    expect(calls).toEqual(['steer:check the logs', 'steer:', 'interrupt', 'interrupt', 'interrupt', `exit:${EXIT_CTRL_C}:Ctrl-C twice`]);
  });
});
