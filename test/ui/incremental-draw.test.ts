// Drawing only what changed: panes side by side take a random workload (text, colours, wide and
// combining chars, emoji, cursor moves, erases, scroll regions, the alternate screen); after every
// step each pane is painted with only its changed rows and changed cells (paintPane, all = false) and
// the flush scans only the changed spans (ui/blessed-draw.ts). What the terminal receives must equal
// the panes cell for cell, as a full repaint would; and the spans marked are exactly the cells changed.
import { afterEach, describe, expect, it } from 'vitest';
import { paintPane, type PaneRect } from '../../src/ui/pane-view.js';
import { gridOf } from '../../src/ui/screen.js';
import type { GridLine } from '../../src/ui/surface.js';
import { DirtyRows } from '../../src/vt/dirty-rows.js';
import { PaneTerminal } from '../../src/vt/terminal.js';
import { offscreen, type Offscreen } from '../vt/helpers.js';
import { prng as rng } from '../helpers/prng.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

const WORDS = ['hello', 'wörld', '宽字', 'e\u0301', '😀', '👨\u200d👩\u200d👧', '┌─┐', 'tab\tstop', 'x'.repeat(30), '中文字符', 'ok'];

function step(r: () => number, rows: number, cols: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const n = (max: number): number => 1 + Math.floor(r() * max);
  switch (Math.floor(r() * 12)) {
    case 0: return `\x1b[${n(rows)};${n(cols)}H${pick(WORDS)}`;
    case 1: return `\x1b[${pick([1, 3, 4, 7, 0, 2])}m\x1b[38;5;${n(255)}m${pick(WORDS)}\x1b[m`;
    case 2: return `\x1b[38;2;${n(255)};${n(255)};${n(255)}m\x1b[48;5;${n(255)}m${pick(WORDS)} ${pick(WORDS)}\x1b[m`;
    case 3: return `${pick(WORDS)}\r\n`.repeat(n(rows + 2));
    case 4: return `\x1b[${pick([0, 1, 2])}K`;
    case 5: return `\x1b[${pick([0, 1, 2])}J`;
    case 6: return `\x1b[${n(rows)};${rows}r\x1b[${n(rows)};1H\r\n${pick(WORDS)}\r\n\x1b[r`;
    case 7: return `\x1b[${n(3)}L${pick(WORDS)}\x1b[${n(3)}M`;
    case 8: return pick(['\x1b[?1049h', '\x1b[?1049l']) + pick(WORDS);
    case 9: return `\x1b[${n(cols)}G${pick(WORDS)}\x1b[${n(4)}P\x1b[${n(4)}@`;
    case 10: return `${pick(WORDS)} `.repeat(n(12));
    default: return `\x1b[${n(rows)};${cols - 1}H${pick(['中', '😀', 'ab', 'e\u0301'])}`;
  }
}

function cellsAt(term: PaneTerminal, rect: PaneRect): string[] {
  const rows: string[] = [];
  for (let y = 0; y < rect.height; y++) rows.push(term.readRow(rect.top + y).slice(rect.left, rect.left + rect.width).map((c) => `${c.ch}/${c.width}/${c.attr}`).join(' '));
  return rows;
}

function snapshot(lines: GridLine[]): string[][] {
  return lines.map((line) => line.map((c) => `${c[0]}|${c[1]}`));
}

describe('incremental drawing', () => {
  it('draw.changed-cells-only-equals-a-full-repaint-after-a-random-workload', async () => {
    const cols = 61;
    const height = 12;
    const view: Offscreen = offscreen(cols, height);
    const receiver = new PaneTerminal({ cols, rows: height, scrollback: 0 });
    cleanup.push(() => view.destroy(), () => receiver.dispose());
    const grid = gridOf(view.screen);
    // three panes: two side by side on top, one below the left one, with one blank column between
    const rects: PaneRect[] = [{ left: 0, top: 0, width: 30, height: 6 }, { left: 31, top: 0, width: 30, height: 12 }, { left: 0, top: 7, width: 30, height: 5 }];
    const panes = rects.map((rect) => {
      const term = new PaneTerminal({ cols: rect.width, rows: rect.height, scrollback: 50 });
      const dirty = new DirtyRows();
      expect(term.onRowsChanged((s, e) => dirty.mark(s, e))).not.toBeNull();
      cleanup.push(() => term.dispose());
      return { term, dirty, rect };
    });
    const r = rng(20261201);
    let first = true;
    for (let i = 0; i < 250; i++) {
      for (const p of panes) if (r() < 0.7) await p.term.writeAsync(step(r, p.rect.height, p.rect.width));
      const before = snapshot(grid.lines);
      for (const p of panes) paintPane(grid, p.term, p.rect, first ? null : p.dirty.take(), first);
      first = false;
      // the spans marked are exactly the cells that changed: each span starts and ends on a changed cell
      const after = snapshot(grid.lines);
      grid.lines.forEach((line, y) => {
        const changed = after[y]!.flatMap((cell, x) => (cell !== before[y]![x] ? [x] : []));
        if (i === 0) return;
        expect(Boolean(line.dirty), `row ${y} dirty at step ${i}`).toBe(changed.length > 0);
        if (changed.length === 0) return;
        const spans = line.dirtySpans ?? [];
        expect(spans.length, `row ${y} has spans`).toBeGreaterThan(0);
        for (const x of changed) expect(spans.some((_, k) => k % 2 === 0 && x >= spans[k]! && x <= spans[k + 1]!), `cell ${x},${y} in a span`).toBe(true);
        for (let k = 0; k < spans.length; k += 2) {
          expect(changed, `span start ${spans[k]} of row ${y}`).toContain(spans[k]);
          expect(changed, `span end ${spans[k + 1]} of row ${y}`).toContain(spans[k + 1]);
        }
      });
      view.screen.render();
      await receiver.writeAsync(view.take());
      for (const p of panes) {
        expect(cellsAt(receiver, p.rect), `pane at ${p.rect.left},${p.rect.top}, step ${i}`).toEqual(cellsAt(p.term, { ...p.rect, left: 0, top: 0 }));
      }
    }
  }, 120_000);
});
