// One width function: the emulator's cells, the chrome's layout (cellsOf/textWidth/paintRow) and
// tmux 3.3a's screen agree on emoji, ZWJ sequences, flags, variation selectors, combining marks and
// CJK; and a terminal that measures a character differently garbles at most that cell.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import xtermHeadless from '@xterm/headless';
import { afterEach, describe, expect, it } from 'vitest';
import { paintRow } from '../../src/ui/paint.js';
import { paintPane } from '../../src/ui/pane-view.js';
import { gridOf } from '../../src/ui/screen.js';
import type { BlessedScreenInternals } from '../../src/ui/blessed-attrs.js';
import { fit, textWidth as chromeWidth } from '../../src/ui/text.js';
import { PaneTerminal } from '../../src/vt/terminal.js';
import { cellsOf, textWidth } from '../../src/vt/width.js';
import { offscreen } from './helpers.js';
import { Mirror, expectSameCells } from './mirror.js';

const cleanup: { dispose(): void }[] = [];
afterEach(() => {
  for (const item of cleanup.splice(0)) item.dispose();
});

// Columns each string took in a plain tmux 3.3a pane (cursor position reported by DSR after it).
const TMUX_WIDTHS: Array<[string, string, number]> = [
  ['ascii', 'abc', 3], ['emoji', '🙂', 2], ['emoji (Unicode 9)', '🤖', 2], ['emoji (Unicode 14)', '🫠', 2],
  ['ZWJ family', '👨\u200d👩\u200d👧', 2], ['ZWJ rainbow flag', '🏳\ufe0f\u200d🌈', 1], ['flag', '🇫🇷', 2],
  ['VS16 heart', '❤\ufe0f', 1], ['VS15', '☺\ufe0e', 1], ['combining acute', 'e\u0301', 1], ['three marks', 'a\u0301\u0308\u0323', 1],
  ['CJK', '中文', 4], ['wide symbol', '⚡', 2], ['keycap', '1\ufe0f\u20e3', 1], ['skin tone', '👍🏽', 4],
  ['Hangul jamo', '\u1100\u1161', 2], ['fullwidth A', 'Ａ', 2], ['zero-width space', 'a\u200bb', 2], ['check mark', '✅', 2], ['sun', '☀', 1],
];

function term(cols = 40, rows = 6): PaneTerminal {
  const t = new PaneTerminal({ cols, rows, scrollback: 0 });
  cleanup.push(t);
  return t;
}

describe('one width function', () => {
  for (const [name, text, tmuxWidth] of TMUX_WIDTHS) {
    it(`width.${name}: emulator, chrome and tmux agree (${tmuxWidth})`, async () => {
      const t = term();
      await t.writeAsync(text);
      expect(t.cursor.x).toBe(tmuxWidth);
      expect(textWidth(text)).toBe(tmuxWidth);
      expect(chromeWidth(text)).toBe(tmuxWidth);
      // the chrome lays out the same cells the emulator holds
      const cells = t.readRow(0).filter((c) => c.width > 0 && c.ch !== ' ').map((c) => [c.ch, c.width]);
      expect(cellsOf(text).map((c) => [c.ch, c.width])).toEqual(cells);
    });
  }

  it('width.fit-cuts-between-clusters-never-inside-one', () => {
    expect(fit('ab👨\u200d👩\u200d👧cd', 5)).toBe('ab👨\u200d👩\u200d👧…');
    expect(fit('ab👨\u200d👩\u200d👧cd', 4)).toBe('ab…');
    expect(fit('e\u0301e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301…');
  });

  it('paint.chrome-rows-take-the-cells-the-emulator-would', async () => {
    const view = offscreen(30, 3);
    cleanup.push({ dispose: () => view.destroy() });
    const text = 'a🙂b👨\u200d👩\u200d👧c🇫🇷e\u0301中|';
    paintRow(gridOf(view.screen), 0, 0, 30, [{ text, attr: 0 }], 0);
    const line = (view.screen as unknown as BlessedScreenInternals).lines[0]!;
    const t = term(30, 3);
    await t.writeAsync(text);
    expect(line.map((c) => c[1])).toEqual(t.readRow(0).map((c) => c.ch === ' ' && c.width === 1 ? ' ' : c.ch));
  });

  it('paint.ascii-fast-path-clips-at-the-rectangle', () => {
    const view = offscreen(10, 1);
    cleanup.push({ dispose: () => view.destroy() });
    paintRow(gridOf(view.screen), 2, 0, 5, [{ text: 'abc', attr: 0 }, { text: 'defgh', attr: 0 }], 0);
    const line = (view.screen as unknown as BlessedScreenInternals).lines[0]!;
    expect(line.map((c) => c[1]).join('')).toBe('  abcde   ');
  });

  it('paint.round-trips-the-width-fixture', async () => {
    const fixture = readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'vt', 'inputs', 'widths.txt'), 'utf8');
    const t = term(60, 30);
    await t.writeAsync(fixture.replaceAll('\n', '\r\n'));
    for (const fullUnicode of [true, false]) {
      const mirror = new Mirror(60, 30, { fullUnicode });
      cleanup.push(mirror);
      await mirror.sync(t);
      expectSameCells(mirror.receiver, t);
    }
  });

  it('draw.a-terminal-that-measures-differently-garbles-at-most-that-cell', async () => {
    // The receiver uses xterm's Unicode 6 widths, where 🙂 and ⚡ take one cell, not two.
    const t = term(30, 2);
    await t.writeAsync('a🙂b⚡c|end');
    const view = offscreen(30, 2);
    cleanup.push({ dispose: () => view.destroy() });
    paintPane(gridOf(view.screen), t, { left: 0, top: 0, width: 30, height: 2 });
    view.screen.render();
    const output = view.take();
    const receiver = new xtermHeadless.Terminal({ cols: 30, rows: 2, allowProposedApi: true, logLevel: 'off' });
    cleanup.push(receiver);
    await new Promise<void>((resolve) => receiver.write(output, resolve));
    const row = receiver.buffer.active.getLine(0)!;
    // every narrow character lands in the column the emulator gave it
    const columns = (cells: string[]): number[] => [...'abc|end'].map((ch) => cells.indexOf(ch));
    const mine = columns(t.readRow(0).map((c) => c.ch));
    expect(mine).toEqual([0, 3, 6, 7, 8, 9, 10]);
    expect(columns(Array.from({ length: 30 }, (_, x) => row.getCell(x)!.getChars()))).toEqual(mine);
  });
});
