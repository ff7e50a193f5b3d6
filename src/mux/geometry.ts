/**
 * Layout geometry: where each pane, the sidebar and the status line go, for tmux's five layout
 * names. Pure functions of (layout, pane count, terminal size); the screen code only draws the
 * rectangles these return. Panes are separated by one-cell lines, as in tmux.
 */
import { LAYOUT_NAMES, type LayoutName } from '../config/schema.js';

/** A rectangle in screen cells. */
export interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

// The layout names are the config's (tmux's five presets); geometry gives each its rectangles.
export { LAYOUT_NAMES, type LayoutName };

/** The main pane's size: a percentage of the area, or a number of cells. */
export type MainSize = { percent: number } | { cells: number };

/** The smallest pane that is still usable: a title row plus two rows, and twelve columns. */
export const MIN_PANE = { width: 12, height: 3 };

/** Split `total` cells into `n` parts separated by one-cell gaps; the remainder goes to the first parts. */
export function split(total: number, n: number): Array<{ start: number; size: number }> {
  if (n <= 0) return [];
  const usable = total - (n - 1);
  const base = Math.floor(usable / n);
  const extra = usable - base * n;
  const out: Array<{ start: number; size: number }> = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    const size = base + (i < extra ? 1 : 0);
    out.push({ start: at, size });
    at += size + 1;
  }
  return out;
}

function mainCells(size: MainSize, total: number): number {
  const cells = 'percent' in size ? Math.round((total * size.percent) / 100) : size.cells;
  return Math.max(1, Math.min(total - 2, cells));
}

/** The rectangles of `count` panes in `area` for a layout; pane 0 is the main (lead) pane. */
export function layoutRects(layout: LayoutName, mainSize: MainSize, count: number, area: Rect): Rect[] {
  if (count <= 0) return [];
  if (count === 1) return [{ ...area }];
  const { left, top, width, height } = area;
  switch (layout) {
    case 'even-horizontal':
      return split(width, count).map((p) => ({ left: left + p.start, top, width: p.size, height }));
    case 'even-vertical':
      return split(height, count).map((p) => ({ left, top: top + p.start, width, height: p.size }));
    case 'main-vertical': {
      const w = mainCells(mainSize, width);
      const rest = split(height, count - 1).map((p) => ({ left: left + w + 1, top: top + p.start, width: width - w - 1, height: p.size }));
      return [{ left, top, width: w, height }, ...rest];
    }
    case 'main-horizontal': {
      const h = mainCells(mainSize, height);
      const rest = split(width, count - 1).map((p) => ({ left: left + p.start, top: top + h + 1, width: p.size, height: height - h - 1 }));
      return [{ left, top, width, height: h }, ...rest];
    }
    case 'tiled': {
      const cols = Math.ceil(Math.sqrt(count));
      const rows = Math.ceil(count / cols);
      const rowSplit = split(height, rows);
      const out: Rect[] = [];
      for (let r = 0; r < rows; r++) {
        const inRow = r === rows - 1 ? count - cols * (rows - 1) : cols;
        for (const c of split(width, inRow)) out.push({ left: left + c.start, top: top + rowSplit[r]!.start, width: c.size, height: rowSplit[r]!.size });
      }
      return out;
    }
  }
}

/** Where the sidebar goes. */
export interface SidebarSpec {
  position: 'left' | 'right';
  width: number;
  hidden: boolean;
}

/** The sidebar's size as the layout gives it. */
export interface SidebarSize {
  /** Columns as given, or a percentage of the terminal kept within minWidth..maxWidth. */
  width: { cells: number } | { percent: number };
  minWidth: number;
  maxWidth: number;
  /** Below this many terminal columns the sidebar hides itself unless shown by hand. */
  hideBelow: number;
  hidden: boolean;
}

/** The narrowest sidebar worth drawing. */
export const MIN_SIDEBAR = 16;

/**
 * The sidebar's width in columns on a terminal `cols` wide, 0 when it is not shown. `shown` is the
 * person's toggle (null: not touched), which overrides both `hidden` and the narrow-terminal rule.
 */
export function sidebarWidth(size: SidebarSize, cols: number, shown: boolean | null): number {
  const visible = shown ?? (!size.hidden && cols >= size.hideBelow);
  if (!visible) return 0;
  const want = 'cells' in size.width ? size.width.cells : Math.min(size.maxWidth, Math.max(size.minWidth, Math.round((cols * size.width.percent) / 100)));
  // The panes keep at least one usable column range beside it.
  const width = Math.min(want, cols - MIN_PANE.width - 1);
  return width >= MIN_SIDEBAR ? width : 0;
}

/** The whole screen: pane area, sidebar and status line; `tooSmall` says why nothing fits. */
export interface ScreenLayout {
  panes: Rect[];
  sidebar: Rect | null;
  status: Rect;
  tooSmall: string | null;
}

/** Lay out the screen: a status line at the bottom, the sidebar on one side, panes in the rest. */
export function screenLayout(cols: number, rows: number, layout: LayoutName, mainSize: MainSize, count: number, sidebar: SidebarSpec, zoomed: number | null): ScreenLayout {
  const status: Rect = { left: 0, top: Math.max(0, rows - 1), width: cols, height: 1 };
  const bodyHeight = rows - 1;
  const sideWidth = sidebar.hidden ? 0 : Math.min(sidebar.width, Math.max(0, cols - MIN_PANE.width - 1));
  const showSidebar = !sidebar.hidden && sideWidth >= MIN_SIDEBAR;
  const paneArea: Rect = {
    left: showSidebar && sidebar.position === 'left' ? sideWidth + 1 : 0,
    top: 0,
    width: cols - (showSidebar ? sideWidth + 1 : 0),
    height: bodyHeight,
  };
  const side = showSidebar ? { left: sidebar.position === 'left' ? 0 : cols - sideWidth, top: 0, width: sideWidth, height: bodyHeight } : null;
  let panes = zoomed !== null && zoomed < count ? Array.from({ length: count }, (_, i) => (i === zoomed ? { ...paneArea } : { ...paneArea, width: 0, height: 0 })) : layoutRects(layout, mainSize, count, paneArea);
  let tooSmall: string | null = null;
  const visible = panes.filter((p) => p.width > 0);
  if (bodyHeight < MIN_PANE.height || visible.some((p) => p.width < MIN_PANE.width || p.height < MIN_PANE.height)) {
    tooSmall = `terminal ${cols}x${rows} is too small for ${count} pane${count === 1 ? '' : 's'} in ${layout}; enlarge it, hide the sidebar, or zoom a pane`;
    panes = panes.map((p) => ({ ...p, width: 0, height: 0 }));
  }
  return { panes, sidebar: side, status, tooSmall };
}

/** The emulator size inside a pane rectangle (the first row is the pane's title). */
export function innerSize(rect: Rect): { cols: number; rows: number } {
  return { cols: Math.max(1, rect.width), rows: Math.max(1, rect.height - 1) };
}
