/**
 * Claude Code's input box read off a pane's screen (rows as Claude Code 2.1.328 drew them in a real
 * pane, captured with tmux), and the wake that waits for the operator: nothing is typed into an idle
 * Claude pane while its box holds their draft or within OPERATOR_QUIET_MS of their last key there.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { wakeIfIdle } from '../../../src/agents/claude/wake.js';
import { OPERATOR_QUIET_MS, readPromptBox, wakeGate } from '../../../src/agents/claude/prompt-box.js';
import { updateClaudeActivity } from '../../../src/store/claude.js';
import { makeTeam } from '../../helpers/team.js';

const RULE = '─'.repeat(100);
const HEADER = [' ▐▛███▛█   Claude Code v2.1.328', '▝▜██████▀  Opus 5.5 · API Usage Billing', ' ▝▝   ▝▝   /tmp/lead-exp/proj'];
/** Idle after a turn: the earlier prompt stays in the history (no rules around it), the live box is empty. */
const IDLE = [...HEADER, '', '❯ hello', '', '● Hi there.', '', '✻ Cooked for 2s · done 3:42 PM', '', RULE, '❯\u00a0', RULE, '  ⏸ manual mode on · ? for shortcuts', '', ''];
const DRAFT = [...HEADER, '', RULE, '❯\u00a0half typed text', RULE, '  ⏸ manual mode on'];
const TWO_LINES = [...HEADER, '', RULE, '❯ line one', '  line two', RULE, '  ⏸ manual mode on'];
const SCROLLED = [...HEADER, '', '❯ hello', '', '● Hi there.'];

describe('Claude Code input box', () => {
  it('claude.prompt-box-is-read-from-the-lowest-ruled-box', () => {
    expect(readPromptBox(IDLE)).toEqual({ kind: 'empty' });
    expect(readPromptBox(DRAFT)).toEqual({ kind: 'text', text: 'half typed text' });
    expect(readPromptBox(TWO_LINES)).toEqual({ kind: 'text', text: 'line one\nline two' });
    expect(readPromptBox(SCROLLED)).toEqual({ kind: 'unknown' });
    expect(readPromptBox([...HEADER, RULE, '❯ cut off'])).toEqual({ kind: 'unknown' });
  });

  it('claude.wake-gate-waits-for-a-quiet-operator-and-an-empty-box', () => {
    const now = 1_000_000;
    expect(wakeGate(now, 0, IDLE)).toEqual({ now: true });
    expect(wakeGate(now, now - 500, IDLE)).toEqual({ now: false, retryInMs: OPERATOR_QUIET_MS - 500, why: 'the operator is typing in its pane' });
    expect(wakeGate(now, now - OPERATOR_QUIET_MS, IDLE)).toEqual({ now: true });
    expect(wakeGate(now, now - 60_000, DRAFT)).toMatchObject({ now: false, why: 'its input line holds text not yet sent' });
    expect(wakeGate(now, 0, SCROLLED)).toEqual({ now: true });
    expect(wakeGate(now, 0, null)).toEqual({ now: true });
  });
});

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('the wake and the operator', () => {
  it('claude.wake-defers-while-the-operator-types-and-delivers-once-the-box-is-empty', async () => {
    const t = await makeTeam(['amy'], { runtime: 'claude' });
    cleanup = t.cleanup;
    const typed: string[] = [];
    let screen = DRAFT;
    const pane = { lastTypedAt: Date.now(), exited: () => false, write: (d: string) => void typed.push(d), screenText: () => screen };
    await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: 'status?' });
    await updateClaudeActivity(t.store.paths, 'amy', { state: 'idle' });
    const typing = await wakeIfIdle(t.store, 'amy', pane);
    expect(typing).toMatchObject({ typed: false, why: 'the operator is typing in its pane' });
    // Quiet now, but the draft is still in the box.
    pane.lastTypedAt = Date.now() - OPERATOR_QUIET_MS;
    expect(await wakeIfIdle(t.store, 'amy', pane)).toMatchObject({ typed: false, retryInMs: 1000, why: 'its input line holds text not yet sent' });
    expect(typed).toEqual([]);
    // Nothing was handed over: the message is still unread.
    expect((await t.store.mail.unread('amy', 'amy')).messages.map((m) => m.text)).toEqual(['status?']);
    screen = IDLE;
    expect(await wakeIfIdle(t.store, 'amy', pane)).toEqual({ typed: true });
    expect(typed).toEqual(['\x1b[200~<message from="lead" type="message">status?</message>\x1b[201~\r']);
  });
});
