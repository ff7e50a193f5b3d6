// Reverse wraparound (issue 15): BS and CUB move back across lines under DECAWM with mode 45
// (within soft-wrapped lines) or 1045 (the whole screen), as xterm does. Bytes in, the cursor
// position report (CPR) and the screen out.
import { afterEach, describe, expect, it } from 'vitest';
import { reverseWrapTarget } from '../../src/vt/reverse-wrap.js';
import { PaneTerminal } from '../../src/vt/terminal.js';

const terms: PaneTerminal[] = [];
afterEach(() => {
  for (const t of terms.splice(0)) t.dispose();
});

const CPR = '\x1b[6n';

/** Feed bytes to an 80x24 pane; returns the replies (the last is usually a CPR) and the pane. */
async function run(bytes: string): Promise<{ replies: string[]; term: PaneTerminal }> {
  const term = new PaneTerminal({ cols: 80, rows: 24, scrollback: 10 });
  terms.push(term);
  const replies: string[] = [];
  term.onReply((data) => replies.push(data));
  await term.writeAsync(bytes);
  return { replies, term };
}

async function cursorAfter(bytes: string): Promise<string> {
  const { replies } = await run(bytes + CPR);
  return replies.at(-1)!;
}

describe('mode 45: back through soft-wrapped lines', () => {
  it('reverse-wrap.CUB-crosses-a-wrap-back-to-the-line-above', async () => {
    // "ab" ends row 1, "cd" wrapped onto row 2; four back from after "d" lands on "a"
    expect(await cursorAfter('\x1b[1;79Habcd\x1b[?45h\x1b[?7h\x1b[4D')).toBe('\x1b[1;79R');
  });

  it('reverse-wrap.stops-at-the-first-column-of-the-line-where-the-text-began', async () => {
    // row 3 holds a line written after a newline; rows 4 and 5 continue it; then a newline and another
    const long = '*'.repeat(82 * 2);
    const bytes = `\x1b[?7h\x1b[?45h\x1b[3;1H${long}\n${long}`;
    expect(await cursorAfter(bytes + '\x1b[400D')).toBe('\x1b[6;1R');
    expect(await cursorAfter(bytes + '\b'.repeat(400))).toBe('\x1b[6;1R');
  });

  it('reverse-wrap.never-leaves-a-line-that-began-with-a-newline', async () => {
    expect(await cursorAfter('\x1b[?7h\x1b[?45h\x1b[1;1H\x1bE\b')).toBe('\x1b[2;1R');
    expect(await cursorAfter('\x1b[?7h\x1b[?45h\x1b[3;1H\x1b[5D')).toBe('\x1b[3;1R');
  });

  it('reverse-wrap.BS-from-the-pending-wrap-column-stays-on-the-last-column', async () => {
    const { replies, term } = await run('\x1b[?45h\x1b[?7h\x1b[1;79Hab\bX' + CPR);
    expect(term.snapshotText()[0]).toBe(' '.repeat(78) + 'aX');
    expect(replies).toEqual(['\x1b[1;80R']);
  });

  it('reverse-wrap.needs-autowrap-and-keeps-the-line-wrapped', async () => {
    // without DECAWM a wrapped line is not crossed (xterm's headless core would cross it)
    expect(await cursorAfter('\x1b[1;79Habcd\x1b[?45h\x1b[?7l\b\b\b')).toBe('\x1b[2;1R');
    // crossing back and forth leaves the soft wrap in place, so the next pass crosses again
    expect(await cursorAfter('\x1b[1;79Habcd\x1b[?45h\b\b\b\b\x1b[2;3H\b\b\b\b')).toBe('\x1b[1;79R');
  });
});

describe('mode 1045: back through every line of the screen', () => {
  it('reverse-wrap.BS-from-the-first-column-goes-to-the-end-of-the-line-above', async () => {
    expect(await cursorAfter('\x1b[?7h\x1b[?1045h\x1b[3;1H\b')).toBe('\x1b[2;80R');
  });

  it('reverse-wrap.from-the-top-margin-to-the-bottom-margin', async () => {
    expect(await cursorAfter('\x1b[?7h\x1b[?1045h\x1b[2;5r\x1b[2;1H\b')).toBe('\x1b[5;80R');
    expect(await cursorAfter('\x1b[?7h\x1b[?1045h\x1b[1;1H\b')).toBe('\x1b[24;80R');
  });

  it('reverse-wrap.CUB-counts-cells-across-lines-and-around-the-screen', async () => {
    expect(await cursorAfter('\x1b[?7h\x1b[?1045h\x1b[8;9H\x1b[400D')).toBe('\x1b[3;9R');
    // a count past the screen goes round it, in constant time
    expect(await cursorAfter(`\x1b[?7h\x1b[?1045h\x1b[8;9H\x1b[${400 + 80 * 24 * 1000}D`)).toBe('\x1b[3;9R');
  });

  it('reverse-wrap.DECRQM-reports-1045-and-DECSTR-and-RIS-clear-it', async () => {
    const { replies, term } = await run('\x1b[?1045$p\x1b[?1045h\x1b[?1045$p\x1b[!p\x1b[?1045$p');
    expect(replies).toEqual(['\x1b[?1045;2$y', '\x1b[?1045;1$y', '\x1b[?1045;2$y']);
    replies.length = 0;
    await term.writeAsync('\x1b[?1045h\x1bc\x1b[3;1H\b' + CPR);
    expect(replies).toEqual(['\x1b[3;1R']);
  });
});

describe('without reverse wraparound', () => {
  it('reverse-wrap.BS-and-CUB-stop-at-the-first-column', async () => {
    expect(await cursorAfter('\x1b[1;79Habcd\x1b[4D')).toBe('\x1b[2;1R');
    expect(await cursorAfter('\x1b[3;1H\b')).toBe('\x1b[3;1R');
    const { term } = await run('\x1b[1;79Hab\bX');
    expect(term.snapshotText()[0]).toBe(' '.repeat(78) + 'Xb');
  });

  it('reverse-wrap.target-is-pure-arithmetic', () => {
    const start = { x: 2, y: 3, cols: 10, rows: 5, top: 0, bottom: 4, wrapped: (y: number) => y === 3 };
    expect(reverseWrapTarget(start, 4, 'inline')).toEqual({ x: 8, y: 2 });
    expect(reverseWrapTarget(start, 40, 'inline')).toEqual({ x: 0, y: 2 });
    expect(reverseWrapTarget(start, 4, 'extended')).toEqual({ x: 8, y: 2 });
    expect(reverseWrapTarget(start, 33, 'extended')).toEqual({ x: 9, y: 4 });
  });
});
