// The packed history store (issue 12, memory): lines pushed in come back exactly, oldest first, across
// block boundaries, while the ring drops the oldest, and through a pane's scrollback read as rows.
import { afterEach, describe, expect, it } from 'vitest';
import type { CompactLine } from '../../src/vt/history.js';
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

describe('HistoryStore', () => {
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
