// Copying only the rows that changed: the emulator says which visible rows a parse touched (xterm's
// own dirty-row tracking), DirtyRows gathers them between frames, and paintPane reads only those.
// The grid here is a plain CellGrid (no blessed): rows outside the range must stay untouched.
import { describe, expect, it } from 'vitest';
import { paintPane } from '../../src/ui/pane-view.js';
import type { CellGrid, GridLine } from '../../src/ui/surface.js';
import { DirtyRows } from '../../src/vt/dirty-rows.js';
import { PaneTerminal } from '../../src/vt/terminal.js';

function grid(cols: number, rows: number): CellGrid {
  const lines: GridLine[] = Array.from({ length: rows }, () => Array.from({ length: cols }, (): [number, string] => [0, '#']));
  return { lines, blank: 0 };
}

const text = (g: CellGrid, y: number): string => g.lines[y]!.map((c) => c[1] || '').join('');

async function tracked(cols = 20, rows = 6): Promise<{ term: PaneTerminal; dirty: DirtyRows }> {
  const term = new PaneTerminal({ cols, rows, scrollback: 100 });
  const dirty = new DirtyRows();
  expect(term.onRowsChanged((s, e) => dirty.mark(s, e))).not.toBeNull();
  return { term, dirty };
}

describe('dirty rows', () => {
  it('paint.copies-only-the-rows-a-write-changed', async () => {
    const { term, dirty } = await tracked();
    expect(dirty.take(), 'a new pane is drawn whole').toBeNull();
    // xterm counts the row the cursor starts a parse on as touched, so ranges begin there too.
    await term.writeAsync('\x1b[3;1Hhello\x1b[5;4Hworld');
    expect(dirty.take()).toEqual({ start: 0, end: 4 });
    await term.writeAsync('\x1b[4;1Hmid');
    const rows = dirty.take();
    expect(rows).toEqual({ start: 3, end: 4 });
    const g = grid(20, 6);
    paintPane(g, term, { left: 0, top: 0, width: 20, height: 6 }, rows);
    expect(text(g, 3)).toBe('mid'.padEnd(20));
    expect(text(g, 4)).toBe('   world'.padEnd(20));
    // Rows outside the range were not read or written, though the emulator has text there.
    expect(text(g, 2)).toBe('#'.repeat(20));
    expect(g.lines[2]!.dirty).toBeUndefined();
    expect(g.lines[3]!.dirty).toBe(true);
    paintPane(g, term, { left: 0, top: 0, width: 20, height: 6 }, null);
    expect(text(g, 2)).toBe('hello'.padEnd(20));
    term.dispose();
  });

  it('paint.a-scroll-marks-the-scrolled-rows', async () => {
    const { term, dirty } = await tracked(10, 4);
    await term.writeAsync('a\r\nb\r\nc\r\nd');
    dirty.take();
    await term.writeAsync('\r\ne');
    expect(dirty.take(), 'the whole screen moved up one row').toEqual({ start: 0, end: 3 });
    // In a scroll region (rows 2-3), only that region moves.
    await term.writeAsync('\x1b[2;3r\x1b[3;1H');
    dirty.take();
    await term.writeAsync('\r\nf');
    // The region (rows 1-2) moved; rows 0 and 3 are left alone.
    expect(dirty.take()).toEqual({ start: 1, end: 2 });
    term.dispose();
  });

  it('paint.the-alternate-screen-marks-every-row', async () => {
    const { term, dirty } = await tracked(10, 4);
    await term.writeAsync('x');
    dirty.take();
    await term.writeAsync('\x1b[?1049h');
    expect(dirty.take()).toEqual({ start: 0, end: 3 });
    term.dispose();
  });
});
