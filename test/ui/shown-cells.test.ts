// What the terminal shows, kept as typed rows (issue 12, memory): blessed's per-cell [attr, text]
// arrays are replaced by ShownRows, and drawing through them still brings the terminal (a receiving
// emulator) to exactly the painted cells, after a resize's reallocation and after blessed puts back
// a row of its own.
import { afterEach, describe, expect, it } from 'vitest';
import type { BlessedScreenInternals } from '../../src/ui/blessed-attrs.js';
import { installBlessedAttrs } from '../../src/ui/screen.js';
import { ShownRow } from '../../src/ui/shown-cells.js';
import { PaneTerminal } from '../../src/vt/terminal.js';
import { expectSameCells, Mirror } from '../vt/mirror.js';

const cleanup: Array<{ dispose(): void }> = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c.dispose();
});

function setup(cols: number, rows: number): { mirror: Mirror; source: PaneTerminal; screen: BlessedScreenInternals & { alloc(): void } } {
  installBlessedAttrs();
  const mirror = new Mirror(cols, rows);
  const source = new PaneTerminal({ cols, rows, scrollback: 0 });
  cleanup.push(mirror, source);
  return { mirror, source, screen: mirror.view.screen as unknown as BlessedScreenInternals & { alloc(): void } };
}

const sample = '\x1b[1;31mred\x1b[m plain \x1b[44m blue \x1b[m 漢字 e\u0301 😀\r\n\x1b[3mitalic\x1b[m ┌─┐\r\nthird row';

describe('shown cells', () => {
  it('shown-cells.the-screen-keeps-typed-rows-and-the-terminal-gets-the-painted-cells', async () => {
    const { mirror, source, screen } = setup(40, 6);
    expect(screen.olines.length).toBe(6);
    for (const row of screen.olines) {
      expect(row).toBeInstanceOf(ShownRow);
      expect((row as ShownRow).attrs).toBeInstanceOf(Uint32Array);
      expect(row.length).toBe(40);
    }
    await source.writeAsync(sample);
    await mirror.sync(source);
    expectSameCells(mirror.receiver, source);
    // a change of one cell sends that cell, not the row
    await source.writeAsync('\x1b[1;2HX');
    await mirror.sync(source);
    expectSameCells(mirror.receiver, source);
    expect(mirror.lastOutput).toContain('X');
    expect(mirror.lastOutput).not.toContain('plain');
  });

  it('shown-cells.after-a-reallocation-everything-is-drawn-again', async () => {
    const { mirror, source, screen } = setup(40, 6);
    await source.writeAsync(sample);
    await mirror.sync(source);
    // blessed reallocates on a resize and clears the terminal: the next frame draws every painted cell
    screen.alloc();
    await mirror.receiver.writeAsync(mirror.view.take());
    expect(mirror.receiver.snapshotText().every((row) => row === '')).toBe(true);
    for (const line of screen.lines) line.dirty = true;
    await mirror.sync(source);
    expectSameCells(mirror.receiver, source);
    expect(screen.olines.every((row) => row instanceof ShownRow)).toBe(true);
  });

  it('shown-cells.a-row-blessed-puts-back-as-cells-is-taken-over-as-it-was', async () => {
    const { mirror, source, screen } = setup(30, 4);
    await source.writeAsync('one\r\ntwo\r\nthree');
    await mirror.sync(source);
    // blessed's own line insertion splices in a row of [attr, text] cells saying what the terminal shows
    const shown = screen.olines[1] as ShownRow;
    screen.olines[1] = Array.from({ length: 30 }, (_, x) => [shown.attrs[x]!, shown.texts[x]!] as [number, string]);
    await source.writeAsync('\x1b[2;1Htwo changed');
    await mirror.sync(source);
    expectSameCells(mirror.receiver, source);
    expect(screen.olines[1]).toBeInstanceOf(ShownRow);
    // only the new cells went out: the row's unchanged start was read from the taken-over row
    expect(mirror.lastOutput).toContain('\x1b[2;5Hchanged');
    expect(mirror.lastOutput).not.toContain('two');
  });
});
