/**
 * The PaneControl of the tmux stand-in's bridge process (bridge-process.ts): it acts on the team's
 * session in the backend's private tmux server directly, so Claude Code's teammates open while no
 * screen is attached. A pane is named by its tmux pane id (`%7`); what the bridge reads about panes
 * (facts) comes from a listing taken before each stand-in command (refresh) and after each change.
 * It owns that listing and nothing else: tmux holds the panes, their tags and their processes.
 */
import type { Log } from '../../store/log.js';
import type { TmuxRunner } from '../../host/tmux/runner.js';
import { killPaneArgv, listTaggedArgv, openPaneArgv, parseOpened, parseTagged, respawnPaneArgv, titleArgv, type TaggedPane } from '../../host/tmux/pane-control.js';
import { focusRequestArgv } from '../../host/tmux/focus-request.js';
import { timedOut } from './tmux-deadline.js';
import type { PaneControl, PaneFacts } from './mux-pane-control.js';

/** Where the control acts. */
export interface TmuxPaneControlOptions {
  runner: TmuxRunner;
  /** The private server (`tmux -L`). */
  socket: string;
  /** The team's session name (as tmux spells it). */
  session: string;
  log: Log;
  /** The time focus requests are stamped with (default Date.now). */
  now?: () => number;
}

/** The PaneControl with an explicit refresh (the bridge calls it before each command). */
export interface RefreshingPaneControl extends PaneControl<string> {
  refresh(): Promise<void>;
  /** The tagged panes as last read. */
  tagged(): TaggedPane[];
}

/** A PaneControl on the team's tmux session. */
export function tmuxPaneControl(o: TmuxPaneControlOptions): RefreshingPaneControl {
  let panes: TaggedPane[] = [];
  const run = async (argv: string[], what: string): Promise<string> => {
    const r = await o.runner.run(argv);
    if (r.code !== 0) throw new Error(`tmux ${what} failed: ${r.stderr.trim() || `exit ${r.code}`}`);
    return r.stdout;
  };
  const refresh = async (): Promise<void> => {
    const r = await o.runner.run(listTaggedArgv(o.socket, o.session));
    // A listing past its deadline (a wedged server) says nothing: the last one stands.
    if (!timedOut(r)) panes = r.code === 0 ? parseTagged(r.stdout) : [];
  };
  const byId = (id: string): TaggedPane | undefined => panes.find((p) => p.paneId === id);
  return {
    refresh,
    tagged: () => [...panes],
    all: () => [...panes].sort((a, b) => (a.slot ?? -1) - (b.slot ?? -1)).map((p) => p.paneId),
    facts(id): PaneFacts | null {
      const p = byId(id);
      // Each member has a window of its own: a pane's rectangle is its window.
      return p ? { name: p.member, rect: { left: 0, top: 0, width: p.width, height: p.height }, alive: !p.dead, pid: p.pid, focused: false } : null;
    },
    area() {
      const first = panes[0];
      return first ? { width: first.width, height: first.height } : { width: 80, height: 24 };
    },
    async open(launch) {
      const slot = Math.max(0, ...panes.map((p) => p.slot ?? 0)) + 1;
      const shimId = launch.env.TMUX_PANE ?? launch.name;
      const made = parseOpened(await run(openPaneArgv(o.socket, o.session, launch, shimId, slot), 'new-window'));
      if (!made) throw new Error('tmux new-window printed no pane id');
      await refresh();
      return made.paneId;
    },
    async replace(id, launch) {
      await run(respawnPaneArgv(o.socket, id, launch), 'respawn-pane');
      await refresh();
      return id;
    },
    async close(id) {
      await run(killPaneArgv(o.socket, id), 'kill-pane');
      await refresh();
    },
    setTitle: (id, title) => void o.runner.run(titleArgv(o.socket, id, title)),
    // The screen acts on it when one is attached, the operator first (src/agents/claude/pane-focus.ts).
    focus(id) {
      const p = byId(id);
      if (p) void o.runner.run(focusRequestArgv(o.socket, o.session, p.member, (o.now ?? Date.now)()));
    },
    say: (text) => o.log.info(`tmux stand-in: ${text}`),
  };
}
