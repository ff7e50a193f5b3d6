import { afterEach, describe, expect, it } from 'vitest';
import { ATTR_DEFAULT, FLAG_BOLD, packAttr } from '../../src/vt/attr.js';
import { PaneTerminal } from '../../src/vt/terminal.js';
import { paintPane } from '../../src/ui/pane-view.js';
import { gridOf } from '../../src/ui/screen.js';
import type { BlessedScreenInternals } from '../../src/ui/blessed-attrs.js';
import { offscreen, type Offscreen } from './helpers.js';
import { Mirror } from './mirror.js';

const cleanup: { dispose(): void }[] = [];
afterEach(() => {
  for (const item of cleanup.splice(0)) item.dispose();
});
function term(cols: number, rows: number): PaneTerminal {
  const created = new PaneTerminal({ cols, rows, scrollback: 100 });
  cleanup.push(created);
  return created;
}
function view(cols: number, rows: number): Offscreen {
  const created = offscreen(cols, rows);
  cleanup.push({ dispose: () => created.destroy() });
  created.take();
  return created;
}
function linesOf(v: Offscreen): BlessedScreenInternals['lines'] {
  return (v.screen as unknown as BlessedScreenInternals).lines;
}
function rowText(v: Offscreen, y: number): string {
  return linesOf(v)[y]!.map((cell) => cell[1]).join('');
}

describe('paintPane', () => {
  it('copies cells and attrs into screen.lines at the rect, marking changed rows dirty', async () => {
    const v = view(30, 6);
    const t = term(10, 3);
    await t.writeAsync('\x1b[1mbold\x1b[m ok\r\nrow two');
    for (const line of linesOf(v)) line.dirty = false;
    paintPane(gridOf(v.screen), t, { left: 5, top: 2, width: 10, height: 3 });
    expect(rowText(v, 2)).toBe('     bold ok'.padEnd(30));
    expect(rowText(v, 3)).toBe('     row two'.padEnd(30));
    expect(linesOf(v)[2]![5]).toEqual([packAttr(FLAG_BOLD, 0x1ff, 0x1ff), 'b']);
    expect(linesOf(v)[2]![9]).toEqual([ATTR_DEFAULT, ' ']);
    expect(linesOf(v).map((line) => Boolean(line.dirty))).toEqual([false, false, true, true, false, false]);
    for (const line of linesOf(v)) line.dirty = false;
    paintPane(gridOf(v.screen), t, { left: 5, top: 2, width: 10, height: 3 });
    expect(linesOf(v).some((line) => line.dirty)).toBe(false);
  });

  it('does not render: nothing is written until the owner draws a frame', async () => {
    const v = view(20, 4);
    const t = term(20, 4);
    await t.writeAsync('quiet');
    paintPane(gridOf(v.screen), t, { left: 0, top: 0, width: 20, height: 4 });
    expect(v.take()).toBe('');
    v.screen.render();
    expect(v.take()).toContain('quiet');
  });

  it('returns the cursor in screen coordinates, hidden when the app hides it', async () => {
    const v = view(40, 10);
    const t = term(20, 5);
    await t.writeAsync('\x1b[3;7H');
    expect(paintPane(gridOf(v.screen), t, { left: 10, top: 4, width: 20, height: 5 })).toEqual({ x: 16, y: 6, visible: true });
    await t.writeAsync('\x1b[?25l');
    expect(paintPane(gridOf(v.screen), t, { left: 10, top: 4, width: 20, height: 5 }).visible).toBe(false);
  });

  it('clips to the rect and to the screen; a wide char cut at the edge becomes a blank', async () => {
    const v = view(12, 3);
    const t = term(10, 3);
    await t.writeAsync('abcdefgh中\r\n0123456789');
    const cursor = paintPane(gridOf(v.screen), t, { left: 0, top: 0, width: 9, height: 2 });
    expect(rowText(v, 0)).toBe('abcdefgh    ');
    expect(rowText(v, 1)).toBe('012345678   ');
    expect(rowText(v, 2)).toBe('            ');
    expect(cursor.visible).toBe(false); // cursor at column 10 of row 1 is outside a 9-wide rect
    paintPane(gridOf(v.screen), t, { left: 5, top: 1, width: 10, height: 3 });
    expect(rowText(v, 1)).toBe('01234abcdefg');
  });

  it('blanks the part of the rect the emulator does not cover yet (resize in flight)', async () => {
    const v = view(10, 4);
    const t = term(4, 2);
    await t.writeAsync('wxyz\r\nWXYZ');
    paintPane(gridOf(v.screen), t, { left: 0, top: 0, width: 6, height: 3 });
    linesOf(v)[2]![0] = [ATTR_DEFAULT, '#'];
    paintPane(gridOf(v.screen), t, { left: 0, top: 0, width: 6, height: 3 });
    expect([rowText(v, 0), rowText(v, 1), rowText(v, 2)]).toEqual(['wxyz      ', 'WXYZ      ', '          ']);
  });

  it('paints the scrolled-back viewport', async () => {
    const v = view(10, 3);
    const t = term(10, 3);
    for (let i = 1; i <= 6; i++) await t.writeAsync(`n${i}\r\n`);
    t.scrollBy(-2);
    paintPane(gridOf(v.screen), t, { left: 0, top: 0, width: 10, height: 3 });
    expect([rowText(v, 0), rowText(v, 1), rowText(v, 2)].map((s) => s.trimEnd())).toEqual(['n3', 'n4', 'n5']);
  });

  it('two panes side by side reach the terminal in their own columns', async () => {
    const mirror = new Mirror(41, 4);
    cleanup.push(mirror);
    const left = term(20, 4);
    const right = term(20, 4);
    await left.writeAsync('left 中文 pane\r\n\x1b[31mred\x1b[m');
    await right.writeAsync('right pane\r\n\x1b[3mitalic\x1b[m');
    paintPane(gridOf(mirror.view.screen), left, { left: 0, top: 0, width: 20, height: 4 });
    await mirror.sync(right, { left: 21, top: 0, width: 20, height: 4 });
    const text = mirror.receiver.snapshotText();
    expect(text[0]).toBe('left 中文 pane' + ' '.repeat(7) + 'right pane');
    expect(text[1]).toBe('red' + ' '.repeat(18) + 'italic');
    expect(mirror.receiver.readRow(1)[0]!.attr).toBe(packAttr(0, 1, 0x1ff));
    expect(mirror.receiver.readRow(1)[21]!.attr).toBe(packAttr(32, 0x1ff, 0x1ff));
  });

  it('box-drawing output survives blessed alternate-charset translation', async () => {
    const mirror = new Mirror(20, 3);
    cleanup.push(mirror);
    const t = term(20, 3);
    await t.writeAsync('┌──┐ x\r\n│中│ y\r\n└──┘ z');
    await mirror.sync(t);
    expect(mirror.receiver.snapshotText()).toEqual(['┌──┐ x', '│中│ y', '└──┘ z']);
  });
});
