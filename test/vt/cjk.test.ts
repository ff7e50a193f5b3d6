import { afterEach, describe, expect, it } from 'vitest';
import type { PaneTerminal } from '../../src/vt/terminal.js';
import { replay } from './helpers.js';
import { Mirror, expectSameCells } from './mirror.js';

const cleanup: { dispose(): void }[] = [];
afterEach(() => {
  for (const item of cleanup.splice(0)) item.dispose();
});
async function cjk(): Promise<PaneTerminal> {
  const term = await replay('cjk', 'done', 7);
  cleanup.push(term);
  return term;
}

describe('CJK text (recorded, cat cjk.txt)', () => {
  it('text.keeps-wide-chars-and-wraps-them-whole', async () => {
    const text = (await cjk()).snapshotText();
    expect(text[0]).toBe('ASCII then 中文字符 then ASCII');
    expect(text[1]).toBe('日本語のテキスト|end');
    expect(text[2]).toBe('한국어 텍스트|end');
    expect(text[3]).toBe('|中|a|文|b|');
    expect(text[4]).toBe('x'.repeat(79));
    expect(text[5]).toBe('中wrap');
    expect(text[6]).toBe('全角'.repeat(20));
    expect(text[7]).toBe('after full row');
  });

  it('cells.wide-char-is-width-2-then-empty-placeholder', async () => {
    const row = (await cjk()).readRow(3);
    expect(row.slice(0, 8).map((c) => [c.ch, c.width])).toEqual([
      ['|', 1], ['中', 2], ['', 0], ['|', 1], ['a', 1], ['|', 1], ['文', 2], ['', 0],
    ]);
    expect(row).toHaveLength(80);
  });

  it('cells.columns-after-wide-chars-stay-aligned', async () => {
    const term = await cjk();
    const row = term.readRow(1);
    // 8 wide chars take columns 0..15; the bar is in column 16
    expect(row[16]!.ch).toBe('|');
    expect(row.slice(0, 16).filter((c) => c.width === 2)).toHaveLength(8);
    expect(term.readRow(6).every((c, x) => c.width === (x % 2 === 0 ? 2 : 0))).toBe(true);
  });

  it('paint.round-trips-wide-chars-with-columns-intact', async () => {
    const term = await cjk();
    const mirror = new Mirror(80, 24);
    cleanup.push(mirror);
    await mirror.sync(term);
    expectSameCells(mirror.receiver, term);
  });

  it('paint.round-trips-without-fullUnicode-too', async () => {
    const term = await cjk();
    const mirror = new Mirror(80, 24, { fullUnicode: false });
    cleanup.push(mirror);
    await mirror.sync(term);
    expectSameCells(mirror.receiver, term);
  });

  for (const fullUnicode of [true, false]) {
    it(`paint.incremental-redraw-around-wide-chars (fullUnicode ${fullUnicode})`, async () => {
      const term = await cjk();
      const mirror = new Mirror(80, 24, { fullUnicode });
      cleanup.push(mirror);
      await mirror.sync(term);
      // a wide char replaced by another with the cell after it changed, a wide char split into two
      // narrow ones, narrow chars overwriting a wide one, and the tail of a full row erased
      await term.writeAsync('\x1b[4;2H国Z\x1b[4;7Hyy\x1b[2;3Hab\x1b[7;79H\x1b[K');
      await mirror.sync(term);
      expect(term.snapshotText()[3]).toBe('|国Za|yy|b|');
      expect(term.snapshotText()[1]).toBe('日ab語のテキスト|end');
      expect(term.snapshotText()[6]).toBe('全角'.repeat(19) + '全');
      expectSameCells(mirror.receiver, term);
    });
  }
});
