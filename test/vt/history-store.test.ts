// The packed history store (issue 12, memory): lines pushed in come back exactly, oldest first, across
// block boundaries, while the ring drops the oldest, and through a pane's scrollback read as rows.
import { afterEach, describe, expect, it } from 'vitest';
import { compactWords, type CompactLine } from '../../src/vt/history.js';
import { BLOCK_LINES, HistoryStore } from '../../src/vt/history-store.js';
import { PaneTerminal, XTERM_SCROLLBACK } from '../../src/vt/terminal.js';
import { prng } from '../helpers/prng.js';

/** A random line: plain, coloured (runs), wide/combined (layout) or both; some empty, some wrapped. */
function randomLine(rand: () => number, n: number): CompactLine {
  const kind = Math.floor(rand() * 4);
  const cells = Math.floor(rand() * 30);
  let text = `${n}:`;
  const layout: number[] = [];
  for (let x = text.length; x < cells; x++) text += String.fromCharCode(0x61 + Math.floor(rand() * 26));
  if (kind >= 2) {
    // every cell described: one char, a wide one (two cells, the second empty) or a combined pair
    const chars = [...text, '漢', '', 'e\u0301'];
    let offset = 0;
    for (const ch of chars) {
      offset += ch.length;
      layout.push(offset, ch === '漢' ? 2 : ch === '' ? 0 : 1);
    }
    text = chars.join('');
  }
  const runs = kind % 2 === 1 ? Uint32Array.from([1, 0x1234 + n, 3, 0x3ffff]) : null;
  return { text, layout: layout.length > 0 ? Uint16Array.from(layout) : null, runs, wrapped: rand() < 0.3 };
}

const plain = (line: CompactLine | undefined) =>
  line && { text: line.text, wrapped: line.wrapped, runs: line.runs && [...line.runs], layout: line.layout && [...line.layout] };

/**
 * Random xterm cell words (content, fg, bg per cell) for `cols` cells: plain ASCII, Latin-1 and box
 * drawing, default or coloured attribute words, trailing blanks; `odd` adds a wide, combined or astral
 * cell that pushWords must refuse. Returns the words and attrAt (the packed attr of a cell's words).
 */
function randomWords(rand: () => number, cols: number, odd: boolean): { data: Uint32Array; attrAt: (x: number) => number } {
  const data = new Uint32Array(cols * 3);
  const used = Math.floor(rand() * (cols + 1));
  const chars = [0x61, 0x7a, 0x20, 0xe9, 0x2500, 0];
  let fg = 0;
  let bg = 0;
  for (let x = 0; x < cols; x++) {
    if (rand() < 0.2) fg = rand() < 0.5 ? 0 : 0x1000000 | Math.floor(rand() * 256);
    if (rand() < 0.1) bg = rand() < 0.5 ? 0 : 0x2000000 | Math.floor(rand() * 256);
    const cp = x < used ? chars[Math.floor(rand() * chars.length)]! : 0;
    data[x * 3] = cp | (1 << 22);
    data[x * 3 + 1] = x < used ? fg : 0;
    data[x * 3 + 2] = x < used ? bg : 0;
  }
  if (odd && cols > 2) {
    const x = Math.floor(rand() * (cols - 1));
    const kind = Math.floor(rand() * 3);
    // a wide cell (width 2, then a width-0 cell), a combined one, or an astral code point
    if (kind === 0) [data[x * 3], data[x * 3 + 3]] = [0x6f22 | (2 << 22), 0];
    else if (kind === 1) data[x * 3] = 0x200000 | (1 << 22);
    else data[x * 3] = 0x1f600 | (1 << 22);
  }
  return { data, attrAt: (x) => ((data[x * 3 + 1]! & 0xff) << 9) | (data[x * 3 + 2]! & 0xff) | 0x40000 };
}

describe('HistoryStore', () => {
  it('history-store.words-pushed-straight-read-back-as-compactWords-makes-them', () => {
    const rand = prng(7);
    const capacity = BLOCK_LINES * 2 + 9;
    const straight = new HistoryStore(capacity);
    const reference = new HistoryStore(capacity);
    let refused = 0;
    for (let n = 0; n < BLOCK_LINES * 5; n++) {
      const cols = 1 + Math.floor(rand() * 100);
      const odd = rand() < 0.1;
      const { data, attrAt } = randomWords(rand, cols, odd);
      const wrapped = rand() < 0.3;
      const combined = { [0]: 'e\u0301' } as Record<number, string>;
      const expected = compactWords(data, combined, cols, wrapped, attrAt);
      reference.push(expected);
      if (!straight.pushWords(data, cols, wrapped, attrAt)) {
        // refused only for what it cannot hold as plain units, and then nothing was added
        expect(odd).toBe(true);
        expect(straight.added).toBe(reference.added - 1);
        refused++;
        straight.push(expected);
      }
      expect(straight.added).toBe(reference.added);
    }
    expect(refused).toBeGreaterThan(10);
    expect(straight.length).toBe(capacity);
    for (let i = 0; i < capacity; i++) expect(plain(straight.get(i))).toEqual(plain(reference.get(i)));
  });

  it('history-store.lines-read-back-exactly-across-blocks-while-the-oldest-drop', () => {
    const rand = prng(12);
    const capacity = BLOCK_LINES * 3 + 17;
    const store = new HistoryStore(capacity);
    const pushed: CompactLine[] = [];
    for (let n = 0; n < BLOCK_LINES * 7 + 5; n++) {
      const line = randomLine(rand, n);
      pushed.push(line);
      store.push(line);
      // checked at a few points: before the first block seals, at boundaries, after blocks are dropped
      if (n === 3 || n % 97 === 0 || n === BLOCK_LINES || n === capacity + 1) {
        const held = pushed.slice(-capacity);
        expect(store.length).toBe(held.length);
        for (let i = 0; i < held.length; i++) expect(plain(store.get(i))).toEqual(plain(held[i]));
      }
    }
    expect(store.added).toBe(pushed.length);
    expect(store.get(-1)).toBeUndefined();
    expect(store.get(capacity)).toBeUndefined();
    const held = pushed.slice(-capacity);
    for (let i = 0; i < held.length; i++) expect(plain(store.get(i))).toEqual(plain(held[i]));
  });

  it('history-store.a-ring-smaller-than-a-block-keeps-only-its-newest-lines', () => {
    const store = new HistoryStore(5);
    for (let n = 0; n < BLOCK_LINES * 2 + 3; n++) store.push({ text: `l${n}`, layout: null, runs: null, wrapped: false });
    expect(store.length).toBe(5);
    expect([0, 1, 2, 3, 4].map((i) => store.get(i)?.text)).toEqual([-5, -4, -3, -2, -1].map((d) => `l${BLOCK_LINES * 2 + 3 + d}`));
  });

  it('history-store.clear-forgets-every-line-and-takes-new-ones', () => {
    const store = new HistoryStore(1000);
    for (let n = 0; n < 600; n++) store.push({ text: `a${n}`, layout: null, runs: Uint32Array.from([0, 7]), wrapped: true });
    store.clear();
    expect(store.length).toBe(0);
    expect(store.get(0)).toBeUndefined();
    store.push({ text: 'fresh', layout: null, runs: null, wrapped: false });
    expect(plain(store.get(0))).toEqual({ text: 'fresh', wrapped: false, runs: null, layout: null });
    expect(store.added).toBe(601);
  });

  it('history-store.a-zero-capacity-keeps-nothing', () => {
    const store = new HistoryStore(0);
    store.push({ text: 'x', layout: null, runs: null, wrapped: false });
    expect(store.length).toBe(0);
    expect(store.get(0)).toBeUndefined();
  });
});

describe('a pane whose history spans many blocks', () => {
  const terms: PaneTerminal[] = [];
  afterEach(() => {
    for (const t of terms.splice(0)) t.dispose();
  });

  it('history-store.coloured-wide-and-wrapped-rows-read-back-as-the-live-screen-showed-them', async () => {
    const cols = 30;
    const rows = 8;
    const rand = prng(7);
    // lines of every kind: colours, a wide char, a combining mark, long ones that wrap
    const lines = Array.from({ length: XTERM_SCROLLBACK + BLOCK_LINES * 3 }, (_, n) => {
      const pieces = [`${n} `];
      if (n % 3 === 0) pieces.push(`\x1b[3${n % 8}mred-ish\x1b[0m`);
      if (n % 5 === 0) pieces.push(' 漢字');
      if (n % 7 === 0) pieces.push(' e\u0301');
      if (n % 11 === 0) pieces.push(' ' + 'w'.repeat(cols + Math.floor(rand() * cols)));
      return pieces.join('');
    });
    // what the live screen shows for each line, row by row (the reference emulator holds everything)
    const live = new PaneTerminal({ cols, rows: 4000, scrollback: 0 });
    terms.push(live);
    await live.writeAsync(lines.join('\r\n'));
    const expected: ReturnType<PaneTerminal['readRow']>[] = [];
    for (let y = 0; y < 4000; y++) expected.push(live.readRow(y));
    const used = expected.findLastIndex((row) => row.some((c) => c.ch !== ' '));

    const term = new PaneTerminal({ cols, rows, scrollback: 100_000 });
    terms.push(term);
    await term.writeAsync(lines.join('\r\n'));
    expect(term.historyLength + rows).toBeGreaterThan(used);
    term.scrollBy(-1_000_000);
    const seen: ReturnType<PaneTerminal['readRow']>[] = [];
    for (;;) {
      const take = Math.min(rows, term.scrollOffset);
      for (let y = 0; y < take; y++) seen.push(term.readRow(y));
      if (term.scrollOffset === 0) break;
      term.scrollBy(take);
    }
    for (let y = 0; y < rows; y++) seen.push(term.readRow(y));
    expect(seen.slice(0, used + 1)).toEqual(expected.slice(0, used + 1));
  });
});
