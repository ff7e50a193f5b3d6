/**
 * The narrow interface the tmux stand-in's bridge drives panes through (open, replace, close, focus,
 * list with rectangles), and its implementation on today's Multiplexer using only its public
 * surface. Kept apart so the bridge can be re-attached to another multiplexer core unchanged.
 */
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
  /** A line in the status bar (and teamux.log). */
  say(text: string): void;
}

const STOP_GRACE_MS = 2_000;

/** End a pane's process: SIGHUP (as tmux's kill-pane does), then SIGKILL if it lingers. */
async function stopProcess(p: Pane): Promise<void> {
  if (p.exited() || !p.proc) return;
  p.kill('SIGHUP');
  if (await p.waitExit(STOP_GRACE_MS)) return;
  p.kill('SIGKILL');
  await p.waitExit(STOP_GRACE_MS);
}

/** The PaneControl of a running Multiplexer. */
export function multiplexerPanes(mux: Multiplexer): PaneControl<Pane> {
  return {
    all: () => [...mux.panes],
    facts(p) {
      const i = mux.panes.indexOf(p);
      if (i < 0) return null;
      const r = mux.geometry?.panes[i];
      const rect = r && r.width > 0 && r.height > 1 ? { left: r.left, top: r.top + 1, width: r.width, height: r.height - 1 } : null;
      return { name: p.name, rect, alive: !p.exited(), pid: p.pid ?? null, focused: i === mux.focused };
    },
    area() {
      const g = mux.geometry;
      const width = g ? Math.max(0, ...g.panes.map((r) => r.left + r.width)) - Math.min(...g.panes.map((r) => r.left)) : 80;
      const height = g ? g.status.top : 24;
      return { width: Number.isFinite(width) ? width : 80, height };
    },
    open: (launch) => mux.openPane(launch),
    async replace(old, launch) {
      await stopProcess(old);
      const fresh = await mux.openPane(launch);
      // The new pane takes the old one's place in the layout.
      mux.panes.splice(mux.panes.indexOf(fresh), 1);
      mux.panes.splice(mux.panes.indexOf(old) + 1, 0, fresh);
      mux.closePane(old);
      return fresh;
    },
    async close(p) {
      await stopProcess(p);
      mux.closePane(p);
    },
    focus(p) {
      const i = mux.panes.indexOf(p);
      if (i < 0) return;
      mux.focused = i;
      mux.invalidate();
    },
    say: (text) => mux.say(text),
  };
}
