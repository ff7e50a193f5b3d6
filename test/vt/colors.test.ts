import { afterEach, describe, expect, it } from 'vitest';
import {
  ATTR_DEFAULT,
  ATTR_DEFAULT_COLOR,
  FLAG_BLINK,
  FLAG_BOLD,
  FLAG_DIM,
  FLAG_INVERSE,
  FLAG_INVISIBLE,
  FLAG_ITALIC,
  FLAG_UNDERLINE,
  attrBg,
  attrFg,
  attrFlags,
  packAttr,
} from '../../src/vt/attr.js';
import type { PaneTerminal } from '../../src/vt/terminal.js';
import { replay } from './helpers.js';
import { Mirror, expectSameCells } from './mirror.js';

const cleanup: { dispose(): void }[] = [];
afterEach(() => {
  for (const item of cleanup.splice(0)) item.dispose();
});
async function colours(): Promise<PaneTerminal> {
  const term = await replay('colors', 'done');
  cleanup.push(term);
  return term;
}

/** The attr of the first cell of `word` (a whole word, unless `within`) on row y. */
function attrAt(term: PaneTerminal, y: number, word: string, within = false): number {
  const text = term.snapshotText()[y]!;
  const x = within ? text.indexOf(word) : text.search(new RegExp(`\\b${word}\\b`));
  expect(x, `${word} on row ${y}`).toBeGreaterThanOrEqual(0);
  return term.readRow(y)[x]!.attr;
}

describe('colours and styles (recorded, sh colors.sh)', () => {
  it('text.is-plain-on-screen', async () => {
    const text = (await colours()).snapshotText();
    expect(text[0]).toBe('16: f0f1f2f3f4f5f6f7b0b1b2b3b4b5b6b7');
    expect(text[3]).toBe('rgb: RED GREEN BLUEBG GREY SALMON');
    expect(text[4]).toBe('styles: bold dim italic underline inverse blink invisible mixed');
    expect(text[5]).toBe('after: plain text');
  });

  it('palette.16-colours-map-to-0..15', async () => {
    const term = await colours();
    for (let n = 0; n < 8; n++) {
      expect(attrAt(term, 0, `f${n}`, true)).toBe(packAttr(0, n, ATTR_DEFAULT_COLOR));
      expect(attrAt(term, 0, `b${n}`, true)).toBe(packAttr(0, n + 8, ATTR_DEFAULT_COLOR));
    }
  });

  it('palette.256-colours-keep-their-index', async () => {
    const term = await colours();
    for (const n of [16, 52, 88, 124, 160, 196, 202, 226, 46, 21, 232, 244, 255]) {
      expect(attrFg(attrAt(term, 1, `c${n}`))).toBe(n);
    }
    expect(attrBg(attrAt(term, 2, 'violet'))).toBe(57);
    expect(attrBg(attrAt(term, 2, 'grey'))).toBe(236);
  });

  it('truecolor.reduces-to-nearest-palette-entry', async () => {
    const term = await colours();
    expect(attrFg(attrAt(term, 3, 'RED'))).toBe(196);
    expect(attrFg(attrAt(term, 3, 'GREEN'))).toBe(46);
    expect(attrBg(attrAt(term, 3, 'BLUEBG'))).toBe(21);
    expect(attrFg(attrAt(term, 3, 'GREY'))).toBe(244);
    expect(attrFg(attrAt(term, 3, 'SALMON'))).toBe(209);
  });

  it('styles.map-to-blessed-flags', async () => {
    const term = await colours();
    expect(attrFlags(attrAt(term, 4, 'bold'))).toBe(FLAG_BOLD);
    expect(attrFlags(attrAt(term, 4, 'dim'))).toBe(FLAG_DIM);
    expect(attrFlags(attrAt(term, 4, 'italic'))).toBe(FLAG_ITALIC);
    expect(attrFlags(attrAt(term, 4, 'underline'))).toBe(FLAG_UNDERLINE);
    expect(attrFlags(attrAt(term, 4, 'inverse'))).toBe(FLAG_INVERSE);
    expect(attrFlags(attrAt(term, 4, 'blink'))).toBe(FLAG_BLINK);
    expect(attrFlags(attrAt(term, 4, 'invisible'))).toBe(FLAG_INVISIBLE);
    expect(attrAt(term, 4, 'mixed')).toBe(packAttr(FLAG_BOLD | FLAG_ITALIC | FLAG_UNDERLINE, 1, 2));
    expect(attrAt(term, 5, 'after')).toBe(ATTR_DEFAULT);
  });

  it('paint.round-trips-every-attr-through-blessed', async () => {
    const term = await colours();
    const mirror = new Mirror(80, 24);
    cleanup.push(mirror);
    await mirror.sync(term);
    expectSameCells(mirror.receiver, term);
    expect(mirror.lastOutput).toContain('\x1b[3m');
    expect(mirror.lastOutput).toContain('\x1b[2m');
    expect(mirror.lastOutput).toContain('\x1b[38;5;209m');
    expect(mirror.lastOutput).toContain('\x1b[1;3;4;42;31m');
  });
});
