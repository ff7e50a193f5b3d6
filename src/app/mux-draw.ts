/**
 * Drawing one frame of the multiplexer on a Surface from its state and its panes' emulators: pane
 * titles, pane contents (only panes marked dirty, unless the frame is full), separators, the
 * sidebar, the status line and the overlays (reader, help), then where the cursor goes. As in tmux,
 * this is the only place that draws; data callbacks only mark panes dirty. The frame flags come from
 * the runner and the panes' dirty marks are cleared here once drawn; the only data kept is, per
 * surface, what each title and the status line were last painted from, so that a pane printing
 * does not lay out an unchanged title every frame.
 */
import { memberActivity, type Activity } from '../protocol/activity.js';
import { claudeUsageLabel } from '../ui/claude-usage.js';
import { keyRows } from '../mux/actions.js';
import { badge, keyOf, readerSize, type MuxState, type PaneState } from '../mux/state.js';
import { quittingNote } from '../mux/transitions.js';
import { helpBox, panelBox, statusRow, titleRow, type TitleInfo } from '../ui/chrome.js';
import type { Rect, ScreenLayout } from '../mux/geometry.js';
import { paintRow, paintRows } from '../ui/paint.js';
import { paintPane } from '../ui/pane-view.js';
import { readerBox } from '../ui/reader.js';
import { renderSidebar } from '../ui/sidebar.js';
import { pendingRequests } from '../mux/sidebar-data.js';
import type { Surface, SurfaceCursor } from '../ui/surface.js';
import type { PaneCursor } from '../vt/terminal.js';
import { C, rowText, style, textWidth } from '../ui/text.js';
import type { Pane } from './pane.js';

const SEPARATOR = style(240);

/** What one frame draws from. */
export interface FrameInput {
  state: MuxState;
  geometry: ScreenLayout;
  /** The pane objects in state order (undefined where a pane's emulator is not there yet). */
  panes: ReadonlyArray<Pane | undefined>;
  backend: string;
  /** Redraw every cell (after a relayout or an overlay). */
  full: boolean;
  /** Redraw titles and the sidebar (the team folder changed). */
  chrome: boolean;
}

/** Break text into lines of at most `width` columns at spaces. */
function wrapWords(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = '';
    }
    line = line ? `${line} ${word}` : word.slice(0, Math.max(1, width));
  }
  if (line) out.push(line);
  return out;
}

/** What a pane's member is doing, from its process and the team folder (the same words as the roster). */
export function paneActivity(s: MuxState, p: PaneState, pane: Pane | undefined): Activity {
  const m = s.snapshot.roster.find((x) => x.name === p.id);
  return memberActivity({
    name: p.id, runtime: m?.runtime ?? 'command', status: m?.reportedStatus ?? 'working', exitCode: m?.exitCode ?? null,
    pending: pendingRequests(s.snapshot), stopping: s.notices.has(p.id), hooks: s.snapshot.claude?.[p.id]?.state,
    process: { life: pane?.life ?? p.life, exitCode: pane?.exit?.exitCode ?? null, signal: pane?.exit?.signal ?? null, endedByShutdown: pane?.endedByShutdown ?? false },
  });
}

function titleInfo(s: MuxState, p: PaneState, pane: Pane | undefined, i: number): TitleInfo {
  const a = paneActivity(s, p, pane);
  // A Claude Code member's title also carries its tokens and cost: "idle · 28.6k tok · $0.11".
  const activity = { ...a, label: claudeUsageLabel(a.label, s.snapshot.claude?.[p.id]) };
  return {
    index: p.number, name: p.id, role: p.title ?? p.role, activity, focused: i === s.focused, zoomed: s.zoomed === i,
    scrolled: p.scrollMode || (pane?.term.isScrolledBack ?? false), note: p.note,
  };
}

/** What the titles and the status line were last painted from, per surface (STATUS: the status line). */
interface ChromeMemo {
  titles: Map<string, readonly unknown[]>;
}
const STATUS = '\0status';
const memos = new WeakMap<Surface, ChromeMemo>();

function memoOf(surface: Surface): ChromeMemo {
  let memo = memos.get(surface);
  if (!memo) {
    memo = { titles: new Map() };
    memos.set(surface, memo);
  }
  return memo;
}

/** Whether a row painted from `key` must be painted (always when `force`); remembers the key. */
function fresh(painted: Map<string, readonly unknown[]>, id: string, key: readonly unknown[], force: boolean): boolean {
  const last = painted.get(id);
  if (!force && last && last.length === key.length && last.every((v, i) => v === key[i])) return false;
  painted.set(id, key);
  return true;
}

/** Draw one frame and flush it with the cursor placed; returns true when overlays need the next frame full. */
export function drawFrame(surface: Surface, f: FrameInput): boolean {
  const s = f.state;
  const g = f.geometry;
  const { cols, rows } = s;
  const chrome = f.full || f.chrome;
  const memo = memoOf(surface);
  if (f.full) paintRows(surface, { left: 0, top: 0, width: cols, height: rows }, [], style());
  let cursor: SurfaceCursor = null;
  if (g.tooSmall) {
    const lines = wrapWords(cols < 40 ? 'too small: enlarge the terminal' : g.tooSmall, cols);
    const top = Math.max(0, Math.floor((rows - 1 - lines.length) / 2));
    lines.slice(0, Math.max(1, rows - 1)).forEach((l, i) => paintRow(surface, 0, top + i, cols, [{ text: l, attr: style(C.yellow, C.default, { bold: true }) }], style()));
  } else {
    s.panes.forEach((p, i) => {
      const r = g.panes[i];
      const pane = f.panes[i];
      if (!r || r.width === 0) return;
      if (chrome || pane?.dirty) {
        // A title is laid out again only when something it shows may have changed.
        const key = [s, pane, pane?.life, pane?.exit, pane?.term.isScrolledBack, r.left, r.top, r.width, i];
        if (fresh(memo.titles, p.id, key, chrome)) paintRow(surface, r.left, r.top, r.width, titleRow(titleInfo(s, p, pane, i), r.width), style());
      }
      if (!pane) return;
      let at: PaneCursor | null = null;
      if (f.full || pane.dirty) {
        const rows = pane.rows.take();
        at = paintPane(surface, pane.term, { left: r.left, top: r.top + 1, width: r.width, height: r.height - 1 }, f.full ? null : rows, f.full);
        pane.dirty = false;
      }
      if (i !== s.focused || p.scrollMode) return;
      // the cursor of the focused pane only: an emulator read costs on every frame (an echo's among them)
      if (!at) {
        const c = pane.term.cursor;
        at = { x: r.left + c.x, y: r.top + 1 + c.y, visible: c.visible };
      }
      if (at.visible) cursor = { x: at.x, y: at.y };
    });
    if (f.full) paintSeparators(surface, g, cols);
    if (g.sidebar && chrome) paintSidebar(surface, s, f.panes, g.sidebar);
  }
  if (fresh(memo.titles, STATUS, [s, f.backend, g.status.left, g.status.top, g.status.width], chrome)) {
    paintRow(surface, g.status.left, g.status.top, g.status.width, statusRow(statusInfo(s, f.backend), g.status.width), style(C.black, C.green));
  }
  let overlay = false;
  if (s.reader) overlay = paintReader(surface, s) || overlay;
  if (s.help) overlay = paintHelp(surface, s) || overlay;
  if (s.panel) overlay = paintPanel(surface, s) || overlay;
  if (s.prompt) cursor = { x: Math.min(cols - 1, s.prompt.edit.label.length + 1 + s.prompt.edit.cursor), y: g.status.top };
  else if (s.help || s.panel || s.reader) cursor = null;
  surface.flush(cursor);
  return overlay;
}

function paintSeparators(surface: Surface, g: ScreenLayout, cols: number): void {
  // Which cells the panes and the sidebar cover, filled once per rectangle; every other cell above
  // the status line is a separator: vertical beside a covered cell, else horizontal. Each row's
  // separators are painted as one run per stretch between covered cells.
  const rows = g.status.top;
  const covered = new Uint8Array(cols * rows);
  const cover = (left: number, top: number, width: number, height: number): void => {
    for (let y = Math.max(0, top); y < Math.min(rows, top + height); y++) covered.fill(1, y * cols + Math.max(0, left), y * cols + Math.min(cols, left + width));
  };
  for (const r of g.panes) cover(r.left, r.top, r.width, r.height);
  if (g.sidebar !== null) cover(g.sidebar.left, 0, g.sidebar.width, rows);
  const at = (x: number, y: number): boolean => x >= 0 && x < cols && covered[y * cols + x] === 1;
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; ) {
      if (at(x, y)) {
        x++;
        continue;
      }
      const start = x;
      let text = '';
      for (; x < cols && !at(x, y); x++) text += at(x - 1, y) || at(x + 1, y) ? '│' : '─';
      paintRow(surface, start, y, x - start, [{ text, attr: SEPARATOR }], SEPARATOR);
    }
  }
}

function paintSidebar(surface: Surface, s: MuxState, panes: ReadonlyArray<Pane | undefined>, r: Rect): void {
  const activities = new Map(s.panes.map((p, i) => [p.id, paneActivity(s, p, panes[i])] as const));
  const rows = renderSidebar(s.snapshot, { width: r.width, height: r.height, sections: s.cfg.sidebar.sections, selectedRequest: s.selectedRequest, notices: [...s.notices.entries()].map(([n, t]) => `${n}: ${t}`), activities });
  paintRows(surface, r, rows, style());
}

function paintReader(surface: Surface, s: MuxState): boolean {
  const req = s.snapshot.requests.find((r) => r.id === s.reader!.id);
  if (!req) return false;
  const { width, height } = readerSize(s);
  const keys = s.cfg.keys;
  const [yes, no] = req.type === 'permission' ? ['allows', 'denies'] : ['approves', 'rejects'];
  const answerable = req.status === 'pending' && (req.type === 'plan_approval' || req.type === 'permission');
  const answer = answerable ? ` · ${keys.prefix} ${keyOf(keys, 'approve') ?? '?'} ${yes}, ${keys.prefix} ${keyOf(keys, 'reject') ?? '?'} ${no}` : '';
  const box = readerBox(req, s.reader!.top, width, height, `↑↓ PgUp PgDn g G · q closes${answer}`);
  paintRows(surface, { left: Math.floor((s.cols - width) / 2), top: 0, width, height }, box.rows, style());
  return true;
}

function paintHelp(surface: Surface, s: MuxState): boolean {
  const box = helpBox(s.cfg.keys.prefix, keyRows(s.cfg.keys.bindings), s.cols, s.rows - 1);
  const width = Math.max(...box.map((r) => textWidth(rowText(r))));
  const rect = { left: Math.max(0, Math.floor((s.cols - width) / 2)), top: Math.max(0, Math.floor((s.rows - 1 - box.length) / 2)), width, height: box.length };
  paintRows(surface, rect, box, style(C.default, 235));
  return true;
}

function paintPanel(surface: Surface, s: MuxState): boolean {
  const p = s.panel!;
  const box = panelBox(p.title, [...p.lines, '', 'any key closes'], p.qr, s.cols, s.rows - 1);
  const width = Math.max(...box.map((r) => textWidth(rowText(r))));
  const rect = { left: Math.max(0, Math.floor((s.cols - width) / 2)), top: Math.max(0, Math.floor((s.rows - 1 - box.length) / 2)), width, height: box.length };
  paintRows(surface, rect, box, style(C.default, 235));
  return true;
}

function statusInfo(s: MuxState, backend: string): Parameters<typeof statusRow>[0] {
  // A team on a NATS store says so, and says loudly when the server is out of reach.
  const link = s.snapshot.store;
  return {
    team: s.cfg.team, prefix: s.cfg.keys.prefix, prefixPending: s.mode === 'prefix', focused: s.panes[s.focused]?.id ?? '-',
    demo: s.cfg.demo, message: s.message?.text ?? quittingNote(s), prompt: s.prompt ? { label: s.prompt.edit.label, text: s.prompt.edit.text } : null,
    backend: link ? `${backend} · nats` : backend,
    badge: badge(s),
    storeAlert: link && link.state !== 'connected' ? `store: ${link.detail}` : null,
  };
}
