// Compact history (issue 12, memory): scrollback older than xterm's own few hundred lines is kept
// as text plus attribute runs and read back like live rows. Bytes in, the viewport's text and cells out.
import { afterEach, describe, expect, it } from 'vitest';
import { compactLine, expandLine } from '../../src/vt/history.js';
import { PaneTerminal, XTERM_SCROLLBACK, type Cell } from '../../src/vt/terminal.js';

const terms: PaneTerminal[] = [];
afterEach(() => {
  for (const t of terms.splice(0)) t.dispose();
});

async function pane(scrollback: number, bytes: string, cols = 40, rows = 10): Promise<PaneTerminal> {
  const term = new PaneTerminal({ cols, rows, scrollback });
  terms.push(term);
  await term.writeAsync(bytes);
  return term;
}

const numbered = (from: number, to: number): string => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}\r\n`).join('');

describe('history older than xterm keeps', () => {
  it('history.every-line-up-to-the-scrollback-is-kept-in-order', async () => {
    const term = await pane(1000, numbered(1, 3000));
    // 3000 lines and the empty cursor row: 2991 scrolled off, the newest 1000 kept
    expect(term.historyLength).toBe(1000);
    term.scrollBy(-1_000_000);
    expect(term.scrollOffset).toBe(1000);
    const seen: string[] = [];
    for (;;) {
      const rows = term.snapshotText();
      const take = Math.min(10, term.scrollOffset);
      seen.push(...rows.slice(0, take));
      if (term.scrollOffset === 0) break;
      term.scrollBy(take);
    }
    expect(seen).toEqual(Array.from({ length: 1000 }, (_, i) => `line ${1992 + i}`));
    expect(term.snapshotText().slice(0, 9)).toEqual(Array.from({ length: 9 }, (_, i) => `line ${2992 + i}`));
  });

  it('history.colours-wide-and-combined-characters-read-back-as-they-were', async () => {
    const line = '\x1b[1;31mred\x1b[0m plain \x1b[44m blue bg \x1b[0m 漢字 e\u0301 \x1b[38;2;10;200;30mtrue\x1b[0m\r\n';
    const live = await pane(10, line);
    const before = live.readRow(0);
    const term = await pane(XTERM_SCROLLBACK + 50, line + numbered(1, XTERM_SCROLLBACK + 20));
    term.scrollBy(-1_000_000);
    expect(term.readRow(0)).toEqual(before);
    expect(term.snapshotText()[0]).toBe('red plain  blue bg  漢字 e\u0301 true');
  });

  it('history.the-viewport-stays-on-its-lines-while-output-arrives', async () => {
    const term = await pane(1000, numbered(1, 600));
    term.scrollBy(-500);
    const shown = term.snapshotText();
    await term.writeAsync(numbered(601, 900));
    expect(term.snapshotText()).toEqual(shown);
    expect(term.cursor.visible).toBe(false);
    term.scrollToBottom();
    expect(term.snapshotText()[8]).toBe('line 900');
    expect(term.cursor).toEqual({ x: 0, y: 9, visible: true });
  });

  it('history.ED-3-clears-the-compact-history-too', async () => {
    const term = await pane(1000, numbered(1, 600));
    expect(term.historyLength).toBeGreaterThan(XTERM_SCROLLBACK);
    await term.writeAsync('\x1b[3J');
    expect(term.historyLength).toBe(0);
    term.scrollBy(-10);
    expect(term.scrollOffset).toBe(0);
    await term.writeAsync(numbered(601, 700));
    term.scrollBy(-1_000_000);
    expect(term.snapshotText()[0]).toBe('line 592');
  });

  it('history.RIS-starts-over-without-history-as-xterm-does', async () => {
    const term = await pane(1000, numbered(1, 600) + '\x1bc');
    expect(term.historyLength).toBe(0);
    await term.writeAsync(numbered(601, 620));
    term.scrollBy(-1_000_000);
    expect(term.snapshotText()[0]).toBe('line 601');
  });

  it('history.the-alternate-screen-shows-no-history', async () => {
    const term = await pane(1000, numbered(1, 600) + '\x1b[?1049h\x1b[Halt');
    expect(term.historyLength).toBe(0);
    term.scrollBy(-5);
    expect(term.snapshotText()[0]).toBe('alt');
    await term.writeAsync('\x1b[?1049l');
    expect(term.historyLength).toBe(591);
  });
});

describe('the compact form', () => {
  it('history.plain-text-keeps-no-layout-or-runs-and-trailing-blanks-go', () => {
    const cells: Cell[] = [...'hello     '].map((ch) => ({ ch, width: 1, attr: 0x3ffff }));
    const line = compactLine(cells, cells.length, true);
    expect(line).toEqual({ text: 'hello', layout: null, runs: null, wrapped: true });
    const out: Cell[] = [];
    expandLine(line, 12, out);
    expect(out.map((c) => c.ch).join('')).toBe('hello       ');
  });
});
