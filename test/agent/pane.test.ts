/**
 * The agent's pane, replayed into a headless terminal at 80x24 and read back as text: content
 * scrolls above a status line and an input line that stay put; long lines are cut to the width; the
 * status line shows the state, tokens, cost and a DEMO badge. Without a terminal the same calls
 * print plain lines.
 */
import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { Pane } from '../../src/agent/pane.js';
import { estimateCost, formatTokens } from '../../src/protocol/pricing.js';
import { fit, holdPartialWord, statusLine, wrapText, type StatusInfo } from '../../src/agent/view.js';
import { CaptureSink } from './helpers.js';

const { Terminal } = xtermHeadless;

const status = (over: Partial<StatusInfo> = {}): StatusInfo => ({
  member: 'alice', state: 'working', model: 'claude-sonnet-5-5', demo: false,
  usage: { input: 12_345, output: 1_234, cacheRead: 0, cacheWrite: 0 }, cost: 0.0556, note: null, ...over,
});

async function screenOf(bytes: string, cols = 80, rows = 24): Promise<string[]> {
  const term = new Terminal({ cols, rows, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(bytes, resolve));
  const lines: string[] = [];
  for (let y = 0; y < rows; y++) lines.push(term.buffer.active.getLine(term.buffer.active.viewportY + y)!.translateToString(true));
  term.dispose();
  return lines;
}

describe('pane', () => {
  it('pane.content-scrolls-above-a-fixed-status-and-input-line-at-80x24', async () => {
    const sink = new CaptureSink(true, { columns: 80, rows: 24 });
    const pane = new Pane(sink);
    pane.start();
    pane.status(status());
    for (let i = 1; i <= 30; i++) pane.line(`line ${i}`);
    pane.text('Streaming a reply ');
    pane.input('also check');
    pane.text('in two parts.');
    pane.tool('bash', 'x'.repeat(200));
    pane.toolResult('exit code 0\none\ntwo\nthree\nfour', false);
    pane.status(status({ state: 'idle' }));
    const screen = await screenOf(sink.text);
    // The status line is drawn in reverse video across the whole width.
    expect(screen[22]!.trimEnd()).toBe(' alice │ idle │ claude-sonnet-5-5 │ ↑12k ↓1.2k │ $0.06');
    expect(screen[22]).toHaveLength(80);
    expect(screen[23]).toBe('› also check');
    // The scroll region is rows 1-22; the newest content sits at its bottom, above a fresh line.
    expect(screen.slice(12, 22)).toEqual([
      'line 28',
      'line 29',
      'line 30',
      'Streaming a reply in two parts.',
      `▸ bash ${'x'.repeat(72)}…`,
      '  ⎿ exit code 0',
      '    one',
      '    two',
      '    … 2 more lines',
      '',
    ]);
    expect(screen.every((l) => [...l].length <= 80)).toBe(true);

    pane.dispose();
    const after = await screenOf(sink.text);
    expect(after[23]).toBe('');
  });

  it('pane.text-reaching-the-last-column-is-not-overwritten', async () => {
    const sink = new CaptureSink(true, { columns: 40, rows: 10 });
    const pane = new Pane(sink);
    pane.start();
    pane.status(status());
    // The first piece ends exactly at the last column; the status redraw moves the cursor in between.
    pane.text(`${'a'.repeat(34)} done `);
    pane.status(status({ note: 'x' }));
    pane.text('next words\n');
    pane.line('z'.repeat(40));
    pane.line('after');
    const screen = await screenOf(sink.text, 40, 10);
    expect(screen.slice(3, 8)).toEqual([`${'a'.repeat(34)} done `, 'next words', 'z'.repeat(40), 'after', '']);
  });

  it('pane.wrap-text-is-pure', () => {
    const start = { col: 0, justWrapped: false };
    expect(wrapText('abcdef', start, 4)).toEqual({ out: 'abcd\r\nef', state: { col: 2, justWrapped: false } });
    expect(wrapText('abcd\nx', start, 4)).toEqual({ out: 'abcd\r\nx', state: { col: 1, justWrapped: false } });
    expect(wrapText('one two three', start, 9).out).toBe('one two \r\nthree');
    expect(wrapText('one two   three', start, 8).out).toBe('one two \r\nthree');
    expect(wrapText('\x1b[2mab\x1b[0m\tc', start, 80).out).toBe('\x1b[2mab\x1b[0m      c');
    expect(holdPartialWord('the quick bro')).toEqual({ ready: 'the quick ', held: 'bro' });
    expect(holdPartialWord('done.\n')).toEqual({ ready: 'done.\n', held: '' });
  });

  it('pane.streamed-words-wrap-whole', async () => {
    const sink = new CaptureSink(true, { columns: 20, rows: 8 });
    const pane = new Pane(sink);
    pane.start();
    for (const piece of ['The quick br', 'own fox jum', 'ps over the lazy dog.']) pane.text(piece);
    pane.endText();
    const screen = await screenOf(sink.text, 20, 8);
    expect(screen.slice(2, 6).map((l) => l.trimEnd())).toEqual(['The quick brown fox', 'jumps over the lazy', 'dog.', '']);
  });

  it('pane.plain-output-without-a-terminal', () => {
    const sink = new CaptureSink(false, { columns: 80, rows: 24 });
    const pane = new Pane(sink);
    pane.start();
    pane.status(status({ demo: true }));
    pane.status(status({ demo: true }));
    pane.text('Hello');
    pane.tool('task_list', 'all');
    pane.status(status({ demo: true, state: 'idle' }));
    pane.dispose();
    expect(sink.text).not.toContain('\x1b');
    expect(sink.text).toBe([
      '── DEMO alice │ working │ claude-sonnet-5-5 │ ↑12k ↓1.2k │ no cost ──',
      'Hello',
      '▸ task_list all',
      '── DEMO alice │ idle │ claude-sonnet-5-5 │ ↑12k ↓1.2k │ no cost ──',
      '',
    ].join('\n'));
  });

  it('pane.status-line-fits-narrow-panes', () => {
    expect(statusLine(status({ note: 'retrying' }), 80)).toBe('alice │ working (retrying) │ claude-sonnet-5-5 │ ↑12k ↓1.2k │ $0.06');
    expect(statusLine(status({ state: 'waiting for approval' }), 50)).toBe('alice │ waiting for approval │ ↑12k ↓1.2k │ $0.06');
    expect([...statusLine(status({ state: 'waiting for approval', note: 'no API key' }), 30)]).toHaveLength(30);
    expect(statusLine(status({ cost: null }), 80)).toContain('$?');
    expect(fit('abcdef', 4)).toBe('abc…');
  });

  it('pricing.by-model-family', () => {
    expect(estimateCost('claude-sonnet-5-5', { input: 1_000_000, output: 1_000_000, cacheRead: 0, cacheWrite: 0 })).toBe(18);
    expect(estimateCost('claude-opus-5-5', { input: 0, output: 0, cacheRead: 1_000_000, cacheWrite: 0 })).toBeCloseTo(0.5);
    expect(estimateCost('claude-haiku-5-5', { input: 1_000_000, output: 0, cacheRead: 0, cacheWrite: 0 })).toBe(1);
    expect(estimateCost('claude-mythos-5-2', { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 })).toBeNull();
    expect([formatTokens(950), formatTokens(1234), formatTokens(12_345), formatTokens(2_500_000)]).toEqual(['950', '1.2k', '12k', '2.5M']);
  });
});
