// CellReader reads xterm's own cell words (content, fg, bg) instead of asking the public API cell by
// cell. The cells it gives must be exactly what the API says: text (wide chars, their '' placeholder,
// combining marks, emoji clusters), widths and packed attrs (256 colours, truecolor, extended
// underline styles), and blanks past the end of a line.
import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { attrOfCell, CellReader, type Cell } from '../../src/vt/cells.js';
import { rawLineOf } from '../../src/vt/xterm-internals.js';
import { teamuxUnicode, UNICODE_VERSION } from '../../src/vt/width.js';

const { Terminal } = xtermHeadless;

function terminal(cols: number, rows: number): InstanceType<typeof Terminal> {
  const term = new Terminal({ cols, rows, allowProposedApi: true, logLevel: 'off' });
  term.unicode.register(teamuxUnicode);
  term.unicode.activeVersion = UNICODE_VERSION;
  return term;
}

const write = (term: InstanceType<typeof Terminal>, data: string): Promise<void> => new Promise((resolve) => term.write(data, resolve));

/** The cells of a line as the public API gives them, one accessor at a time. */
function apiCells(term: InstanceType<typeof Terminal>, y: number, cols: number): Cell[] {
  const line = term.buffer.active.getLine(y);
  const out: Cell[] = [];
  for (let x = 0; x < cols; x++) {
    const cell = line?.getCell(x);
    if (!cell) out.push({ ch: ' ', width: 1, attr: attrOfCell(term.buffer.active.getNullCell()) });
    else if (cell.getWidth() === 0) out.push({ ch: '', width: 0, attr: attrOfCell(cell) });
    else out.push({ ch: cell.getChars() || ' ', width: cell.getWidth() === 2 ? 2 : 1, attr: attrOfCell(cell) });
  }
  return out;
}

describe('CellReader', () => {
  it('cells.the-word-path-reads-what-the-api-says', async () => {
    const cols = 30;
    const term = terminal(cols, 6);
    await write(term, [
      'plain \x1b[1;31mbold red\x1b[0m \x1b[38;5;208m208\x1b[48;5;17m on 17\x1b[m',
      '宽字符 and 😀 e\u0301 👨\u200d👩\u200d👧 x',
      '\x1b[38;2;250;10;10mtrue\x1b[48;2;0;0;200mcolour\x1b[m \x1b[3;2;7mita-dim-inv\x1b[m',
      '\x1b[4:3mcurly\x1b[58;5;9mcoloured\x1b[m \x1b]8;;http://x\x07link\x1b]8;;\x07',
      '┌──┐ │é│ ~€ \x1b[9mstrike\x1b[m',
      'short',
    ].join('\r\n'));
    const reader = new CellReader(term.buffer.active.getNullCell());
    const out: Cell[] = [];
    for (let y = 0; y < 6; y++) {
      const line = term.buffer.active.getLine(y)!;
      expect(rawLineOf(line), 'the word path is taken').not.toBeNull();
      reader.read(line, cols, out);
      expect(out.map((c) => ({ ...c })), `row ${y}`).toEqual(apiCells(term, y, cols));
    }
    term.dispose();
  });

  it('cells.reads-blanks-past-the-line-and-reuses-the-array', async () => {
    const term = terminal(10, 2);
    await write(term, '\x1b[7mabc');
    const reader = new CellReader(term.buffer.active.getNullCell());
    const out: Cell[] = [];
    expect(reader.read(term.buffer.active.getLine(0), 14, out)).toBe(14);
    const first = out[0];
    expect(out.slice(10).every((c) => c.ch === ' ' && c.width === 1 && c.attr === attrOfCell(term.buffer.active.getNullCell()))).toBe(true);
    expect(reader.read(undefined, 4, out)).toBe(4);
    expect(out).toHaveLength(4);
    expect(out[0]).toBe(first);
    expect(out.every((c) => c.ch === ' ')).toBe(true);
    term.dispose();
  });
});
