// Terminal answers (issue 15): bytes in, replies and screen out. Size reports in characters and
// pixels, never an operation that changes the window, OSC 10/11/12 colour queries, answers only to
// the pane that asked, and a query flood that does not hold the event loop.
import { afterEach, describe, expect, it } from 'vitest';
import { parseXColor, xColor } from '../../src/vt/answers.js';
import { PaneTerminal, type PaneTerminalOptions } from '../../src/vt/terminal.js';

const terms: PaneTerminal[] = [];
afterEach(() => {
  for (const t of terms.splice(0)) t.dispose();
});

async function ask(bytes: string, options: Partial<PaneTerminalOptions> = {}): Promise<{ replies: string[]; term: PaneTerminal }> {
  const term = new PaneTerminal({ cols: 80, rows: 24, scrollback: 10, ...options });
  terms.push(term);
  const replies: string[] = [];
  term.onReply((data) => replies.push(data));
  await term.writeAsync(bytes);
  return { replies, term };
}

describe('window reports (XTWINOPS)', () => {
  it('answers.CSI-18t-and-19t-report-the-size-in-characters', async () => {
    const { replies, term } = await ask('\x1b[18t\x1b[19t');
    expect(replies).toEqual(['\x1b[8;24;80t', '\x1b[9;24;80t']);
    term.resize(100, 30);
    replies.length = 0;
    await term.writeAsync('\x1b[18t');
    expect(replies).toEqual(['\x1b[8;30;100t']);
  });

  it('answers.CSI-14t-and-16t-report-pixels-from-the-stated-or-given-cell-size', async () => {
    expect((await ask('\x1b[14t\x1b[16t')).replies).toEqual(['\x1b[4;384;640t', '\x1b[6;16;8t']);
    const given = await ask('\x1b[14t\x1b[16t', { cellPixels: { width: 9, height: 18 } });
    expect(given.replies).toEqual(['\x1b[4;432;720t', '\x1b[6;18;9t']);
  });

  it('answers.operations-that-change-the-window-get-no-answer-and-change-nothing', async () => {
    const ops = ['8;10;10', '4;100;100', '3;0;0', '9;1', '10;1', '1', '2', '5', '6', '7', '11', '13', '15', '20', '21', '24', '48', '22;0', '23;0'];
    const { replies, term } = await ask(ops.map((op) => `\x1b[${op}t`).join('') + 'after');
    expect(replies).toEqual([]);
    expect([term.cols, term.rows]).toEqual([80, 24]);
    expect(term.snapshotText()[0]).toBe('after');
  });
});

describe('dynamic colour queries (OSC 10/11/12)', () => {
  it('answers.OSC-10-11-12-queries-with-the-stated-defaults', async () => {
    const { replies } = await ask('\x1b]10;?\x1b\\\x1b]11;?\x07\x1b]12;?\x1b\\');
    expect(replies).toEqual(['\x1b]10;rgb:e5e5/e5e5/e5e5\x1b\\', '\x1b]11;rgb:0000/0000/0000\x1b\\', '\x1b]12;rgb:e5e5/e5e5/e5e5\x1b\\']);
  });

  it('answers.with-the-given-colours-and-one-slot-per-parameter', async () => {
    const colors = { foreground: { r: 0x20, g: 0x30, b: 0x40 }, background: { r: 0xfd, g: 0xf6, b: 0xe3 }, cursor: { r: 255, g: 0, b: 0 } };
    const { replies } = await ask('\x1b]10;?;?;?\x1b\\', { colors });
    expect(replies).toEqual(['\x1b]10;rgb:2020/3030/4040\x1b\\', '\x1b]11;rgb:fdfd/f6f6/e3e3\x1b\\', '\x1b]12;rgb:ffff/0000/0000\x1b\\']);
  });

  it('answers.a-colour-the-program-set-until-it-resets-it', async () => {
    const { replies, term } = await ask('\x1b]11;#102030\x1b\\\x1b]11;?\x1b\\');
    expect(replies).toEqual(['\x1b]11;rgb:1010/2020/3030\x1b\\']);
    replies.length = 0;
    await term.writeAsync('\x1b]111\x1b\\\x1b]11;?\x1b\\');
    expect(replies).toEqual(['\x1b]11;rgb:0000/0000/0000\x1b\\']);
  });

  it('colors.parse-and-format-the-x11-forms', () => {
    // as xterm: the digits of a # form are the high bits of each channel
    expect(parseXColor('#fff')).toEqual({ r: 0xf0, g: 0xf0, b: 0xf0 });
    expect(parseXColor('#102030')).toEqual({ r: 0x10, g: 0x20, b: 0x30 });
    expect(parseXColor('#f00f00f00')).toEqual({ r: 0xf0, g: 0xf0, b: 0xf0 });
    expect(parseXColor('#800080008000')).toEqual({ r: 0x80, g: 0x80, b: 0x80 });
    expect(parseXColor('#ffff00000000')).toEqual({ r: 255, g: 0, b: 0 });
    expect(parseXColor('rgb:ff/80/0')).toEqual({ r: 255, g: 128, b: 0 });
    expect(parseXColor('rgb:ffff/0/8')).toEqual({ r: 255, g: 0, b: 136 });
    expect(parseXColor('red')).toBeNull();
    expect(parseXColor('#12345')).toBeNull();
    expect(xColor({ r: 1, g: 0xab, b: 255 })).toBe('rgb:0101/abab/ffff');
  });
});

describe('answers and hostile input', () => {
  it('answers.go-only-to-the-pane-that-asked', async () => {
    const a = await ask('');
    const b = await ask('');
    await a.term.writeAsync('\x1b[18t\x1b]11;?\x1b\\');
    expect(a.replies).toHaveLength(2);
    expect(b.replies).toEqual([]);
  });

  it('answers.a-query-flood-pauses-the-parser-and-the-screen-keeps-up', async () => {
    const { term, replies } = await ask('');
    let ticks = 0;
    let live = true;
    const tick = (): void => {
      ticks++;
      if (live) setImmediate(tick);
    };
    setImmediate(tick);
    await term.writeAsync('\x1b[18t'.repeat(100_000) + 'done');
    live = false;
    expect(replies).toHaveLength(100_000);
    expect(term.parserPauses).toBeGreaterThan(10);
    expect(ticks).toBeGreaterThan(10);
    expect(term.snapshotText()[0]).toBe('done');
  }, 60_000);
});

describe('DECRQCRA (rectangle checksum)', () => {
  const sumOf = (reply: string): number => 0x10000 - parseInt(/!~([0-9A-F]{4})\x1b\\$/.exec(reply)![1]!, 16);

  it('answers.DECRQCRA-with-the-negated-sum-of-one-cell-or-a-rectangle', async () => {
    const { replies } = await ask('ab\r\ncd\x1b[7;0;1;1;1;1*y\x1b[8;0;1;2;1;2*y\x1b[9;0;1;1;2;2*y\x1b[10;0;5;5;5;5*y');
    expect(replies[0]).toMatch(/^\x1bP7!~[0-9A-F]{4}\x1b\\$/);
    expect(replies.map(sumOf)).toEqual([0x61, 0x62, 0x61 + 0x62 + 0x63 + 0x64, 0x20]);
  });

  it('answers.DECRQCRA-defaults-to-the-whole-screen-and-follows-origin-mode', async () => {
    const { replies, term } = await ask('\x1b[2;0*y');
    expect(sumOf(replies[0]!) & 0xffff).toBe((0x20 * 80 * 24) & 0xffff);
    replies.length = 0;
    // rows 3..5 as the scroll region, origin mode on: row 1 of the request is screen row 3
    await term.writeAsync('\x1b[3;5r\x1b[?6h\x1b[1;1Hz\x1b[?6l\x1b[3;1Hy\x1b[?6h\x1b[4;0;1;1;1;1*y');
    expect(replies.map(sumOf)).toEqual([0x79]);
  });
});

describe('DECALN', () => {
  it('answers.DECALN-resets-the-scroll-margins-before-filling', async () => {
    const { term } = await ask('\x1b[5;10r\x1b#8\x1b[24;1H\n');
    const text = term.snapshotText();
    // with the margins reset, a line feed on the last row scrolls the whole screen
    expect(text[0]).toBe('E'.repeat(80));
    expect(text[22]).toBe('E'.repeat(80));
    expect(text[23]).toBe('');
  });
});

describe('DECSCL conformance level', () => {
  it('answers.DECRQM-below-level-3-gets-no-answer-and-again-at-level-5', async () => {
    const { replies, term } = await ask('\x1b[4$p');
    expect(replies).toEqual(['\x1b[4;2$y']);
    replies.length = 0;
    await term.writeAsync('\x1b[62;1"p\x1b[4$p\x1b[?7$p');
    expect(replies).toEqual([]);
    await term.writeAsync('\x1b[65;1"p\x1b[?7$p');
    expect(replies).toEqual(['\x1b[?7;1$y']);
    replies.length = 0;
    await term.writeAsync('\x1b[62;1"p\x1bc\x1b[4$p');
    expect(replies).toEqual(['\x1b[4;2$y']);
  });
});

describe('cursor position reports (CPR, DECXCPR)', () => {
  it('answers.CPR-says-the-last-column-while-a-wrap-is-pending', async () => {
    const { replies, term } = await ask('\x1b[1;79Ha\x1b[6nb\x1b[6n\x1b[?6n');
    expect(replies).toEqual(['\x1b[1;80R', '\x1b[1;80R', '\x1b[?1;80R']);
    expect(term.snapshotText()[0]).toBe(' '.repeat(78) + 'ab');
  });

  it('answers.CPR-counts-rows-from-the-top-margin-under-origin-mode', async () => {
    const { replies } = await ask('\x1b[5;10r\x1b[?6h\x1b[2;3H\x1b[6n\x1b[?6n\x1b[?6l\x1b[6n');
    expect(replies).toEqual(['\x1b[2;3R', '\x1b[?2;3R', '\x1b[1;1R']);
  });
});
