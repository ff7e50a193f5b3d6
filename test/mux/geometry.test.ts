// Layout geometry for every layout name, for resize, zoom, the sidebar and terminals too small.
import { describe, expect, it } from 'vitest';
import { LAYOUT_NAMES, innerSize, layoutRects, screenLayout, split, type Rect } from '../../src/mux/geometry.js';

const area: Rect = { left: 0, top: 0, width: 120, height: 40 };
const half = { percent: 50 };

function assertTiles(rects: Rect[], a: Rect): void {
  // No overlap, and everything inside the area.
  for (const r of rects) {
    expect(r.left).toBeGreaterThanOrEqual(a.left);
    expect(r.top).toBeGreaterThanOrEqual(a.top);
    expect(r.left + r.width).toBeLessThanOrEqual(a.left + a.width);
    expect(r.top + r.height).toBeLessThanOrEqual(a.top + a.height);
  }
  for (let i = 0; i < rects.length; i++) for (let j = i + 1; j < rects.length; j++) {
    const p = rects[i]!, q = rects[j]!;
    const overlap = p.left < q.left + q.width && q.left < p.left + p.width && p.top < q.top + q.height && q.top < p.top + p.height;
    expect(overlap, `${JSON.stringify(p)} vs ${JSON.stringify(q)}`).toBe(false);
  }
}

describe('geometry', () => {
  it('split.distributes-remainder-with-one-cell-gaps', () => {
    expect(split(10, 3)).toEqual([{ start: 0, size: 3 }, { start: 4, size: 3 }, { start: 8, size: 2 }]);
    expect(split(7, 1)).toEqual([{ start: 0, size: 7 }]);
  });

  it('main-vertical.main-left-rest-stacked', () => {
    expect(layoutRects('main-vertical', half, 3, area)).toEqual([
      { left: 0, top: 0, width: 60, height: 40 },
      { left: 61, top: 0, width: 59, height: 20 },
      { left: 61, top: 21, width: 59, height: 19 },
    ]);
  });

  it('main-horizontal.main-top-rest-side-by-side', () => {
    expect(layoutRects('main-horizontal', { cells: 10 }, 3, area)).toEqual([
      { left: 0, top: 0, width: 120, height: 10 },
      { left: 0, top: 11, width: 60, height: 29 },
      { left: 61, top: 11, width: 59, height: 29 },
    ]);
  });

  it('even-horizontal-and-even-vertical', () => {
    expect(layoutRects('even-horizontal', half, 3, area).map((r) => r.width)).toEqual([40, 39, 39]);
    expect(layoutRects('even-vertical', half, 4, area).map((r) => r.height)).toEqual([10, 9, 9, 9]);
  });

  it('tiled.grid', () => {
    const r = layoutRects('tiled', half, 5, area);
    expect(r.map((x) => [x.left, x.top])).toEqual([[0, 0], [41, 0], [81, 0], [0, 21], [61, 21]]);
  });

  it('every-layout.tiles-without-overlap-for-1-to-9-panes-and-resizes', () => {
    for (const name of LAYOUT_NAMES) {
      for (let n = 1; n <= 9; n++) {
        for (const a of [area, { left: 3, top: 0, width: 200, height: 60 }, { left: 0, top: 0, width: 81, height: 23 }]) {
          const rects = layoutRects(name, { percent: 60 }, n, a);
          expect(rects).toHaveLength(n);
          assertTiles(rects, a);
        }
      }
    }
  });

  it('screen.sidebar-right-status-bottom-and-zoom', () => {
    const s = screenLayout(120, 40, 'main-vertical', half, 2, { position: 'right', width: 30, hidden: false }, null);
    expect(s.sidebar).toEqual({ left: 90, top: 0, width: 30, height: 39 });
    expect(s.status).toEqual({ left: 0, top: 39, width: 120, height: 1 });
    expect(s.panes[0]).toEqual({ left: 0, top: 0, width: 45, height: 39 });
    const z = screenLayout(120, 40, 'main-vertical', half, 2, { position: 'left', width: 30, hidden: false }, 1);
    expect(z.panes).toEqual([{ left: 31, top: 0, width: 0, height: 0 }, { left: 31, top: 0, width: 89, height: 39 }]);
    expect(innerSize(z.panes[1]!)).toEqual({ cols: 89, rows: 38 });
  });

  it('screen.too-small-is-a-message-not-a-crash', () => {
    const s = screenLayout(20, 6, 'tiled', half, 6, { position: 'right', width: 30, hidden: false }, null);
    expect(s.tooSmall).toMatch(/too small/);
    expect(s.panes.every((p) => p.width === 0)).toBe(true);
  });
});
