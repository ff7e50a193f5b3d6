/**
 * The narrow interface the tmux stand-in's bridge drives panes through (open, replace, close, focus,
 * title, list with rectangles), and its implementation on the Multiplexer through its public state
 * and its run-time events (open-pane, close-pane, set-pane-title). Kept apart so the bridge does not
 * depend on the multiplexer's core.
 */
import { layoutOf, paneIndex } from '../mux/state.js';
import type { MemberLaunch, Multiplexer } from './multiplexer.js';
import type { Pane } from './pane.js';

/** A pane as the bridge sees it. */
export interface PaneFacts {
  name: string;
  /** The pane's inner rectangle (without its title row), in screen cells; null when not shown. */
  rect: { left: number; top: number; width: number; height: number } | null;
  alive: boolean;
  pid: number | null;
  focused: boolean;
}

/** What the bridge may do to the multiplexer's panes. `H` is an opaque pane handle. */
export interface PaneControl<H> {
  /** Every pane, in layout order. */
  all(): H[];
  /** A pane's facts, or null once it is gone. */
  facts(h: H): PaneFacts | null;
  /** The panes' area in cells (the screen without sidebar and status line). */
  area(): { width: number; height: number };
  /** Open a new pane running `launch` (the layout re-tiles). */
  open(launch: MemberLaunch): Promise<H>;
  /** End a pane's process and run `launch` in its place, under the launch's name. */
  replace(h: H, launch: MemberLaunch): Promise<H>;
  /** End a pane's process and remove the pane. */
  close(h: H): Promise<void>;
  focus(h: H): void;
  /** Show a title for the pane (tmux's select-pane -T). */
  setTitle?(h: H, title: string): void;
  /** A line in the status bar (and teamux.log). */
  say(text: string): void;
}

const STOP_GRACE_MS = 2_000;

/** End a pane's process: SIGHUP (as tmux's kill-pane does), then SIGKILL if it lingers. */
async function stopProcess(p: Pane | undefined): Promise<void> {
  if (!p || p.exited() || p.pid === undefined) return;
  p.kill('SIGHUP');
  if (await p.waitExit(STOP_GRACE_MS)) return;
  p.kill('SIGKILL');
  await p.waitExit(STOP_GRACE_MS);
}

/** The PaneControl of a running Multiplexer: panes are named by their ids, and changed through its events. */
export function multiplexerPanes(mux: Multiplexer): PaneControl<string> {
  const live = (id: string): Pane | undefined => mux.panes.find((p) => p.name === id);
  return {
    all: () => mux.state.panes.map((p) => p.id),
    facts(id) {
      const i = paneIndex(mux.state, id);
      if (i < 0) return null;
      const r = layoutOf(mux.state).panes[i];
      const rect = r && r.width > 0 && r.height > 1 ? { left: r.left, top: r.top + 1, width: r.width, height: r.height - 1 } : null;
      const p = live(id);
      return { name: id, rect, alive: mux.state.panes[i]!.life !== 'exited', pid: p?.pid ?? null, focused: i === mux.state.focused };
    },
    area() {
      const g = layoutOf(mux.state);
      const rects = g.panes.filter((r) => r.width > 0);
      const width = rects.length > 0 ? Math.max(...rects.map((r) => r.left + r.width)) - Math.min(...rects.map((r) => r.left)) : mux.state.cols;
      return { width, height: g.status.top };
    },
    async open(launch) {
      await mux.openPane(launch);
      return launch.name;
    },
    async replace(old, launch) {
      // The new pane opens where new panes open (the end); the placeholder was the newest pane.
      await stopProcess(live(old));
      mux.dispatch({ kind: 'close-pane', pane: old });
      await mux.openPane(launch);
      return launch.name;
    },
    async close(id) {
      await stopProcess(live(id));
      mux.dispatch({ kind: 'close-pane', pane: id, signal: 'SIGKILL' });
    },
    setTitle: (id, title) => mux.dispatch({ kind: 'set-pane-title', pane: id, title }),
    // The multiplexer has no run-time focus event yet; Claude Code 2.1.328 never asks for focus.
    focus: () => undefined,
    say: (text) => mux.dispatch({ kind: 'say', text }),
  };
}
