/**
 * The narrow interface the tmux stand-in's bridge drives panes through (open, replace, close, focus,
 * title, list with rectangles), and its implementation on the Multiplexer through its public state
 * and its run-time events (open-pane, replace-pane, close-pane, focus-pane, set-pane-title). Kept
 * apart so the bridge does not depend on the multiplexer's core. Owns the focus requests that wait
 * for the operator (pane-focus.ts).
 */
import { layoutOf, paneIndex } from '../../mux/state.js';
import { FocusRequests } from './pane-focus.js';
import type { MemberLaunch, Multiplexer } from '../../app/multiplexer.js';
import type { Pane } from '../../app/pane.js';

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
  /** Release what the control holds (a focus request waiting for the operator). */
  dispose?(): void;
  /** Read the panes again before a command (a control whose facts come from elsewhere: tmux). */
  refresh?(): Promise<void>;
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
  const focusing = new FocusRequests({
    focused: () => mux.state.panes[mux.state.focused]?.id ?? null,
    exists: (id) => paneIndex(mux.state, id) >= 0,
    facts: () => {
      const s = mux.state;
      const focused = live(s.panes[s.focused]?.id ?? '');
      return {
        lastTypedAt: Math.max(0, ...mux.panes.map((p) => p.lastTypedAt)),
        focusedRows: focused ? focused.screenText() : null,
        busy: s.mode !== 'attach' || s.prompt !== null || s.help || s.reader !== null,
      };
    },
    focus: (id) => mux.dispatch({ kind: 'focus-pane', pane: id }),
    note: (text) => mux.opts.store.log.info(`tmux stand-in: ${text}`),
    now: () => Date.now(),
  });
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
      // The teammate takes the placeholder's slot: its place in the layout, its number, its focus.
      await stopProcess(live(old));
      await mux.replacePane(old, launch);
      if (paneIndex(mux.state, launch.name) < 0) throw new Error(`the pane ${old} could not be replaced by ${launch.name}`);
      return launch.name;
    },
    async close(id) {
      await stopProcess(live(id));
      mux.dispatch({ kind: 'close-pane', pane: id, signal: 'SIGKILL' });
    },
    setTitle: (id, title) => mux.dispatch({ kind: 'set-pane-title', pane: id, title }),
    // tmux's select-pane, but the operator first: see pane-focus.ts.
    focus: (id) => void focusing.request(id),
    say: (text) => mux.dispatch({ kind: 'say', text }),
    dispose: () => focusing.dispose(),
  };
}
