/**
 * TeamView: the multiplexer's handle on the team. A team folder is read and watched only by
 * store/team-watch.ts; a team on a NATS store is followed by store/backend-watch.ts (KV watch and event
 * stream). This adapter gives their state the sidebar's shape (TeamSnapshot) and keeps the names the
 * multiplexer uses (start, onChange, snapshot, refreshRoster, dispose).
 */
import { BackendWatch } from '../store/backend-watch.js';
import { TeamWatch, type TeamState } from '../store/team-watch.js';
import type { TeamStore } from '../store/team.js';
import type { SidebarData } from '../mux/sidebar-data.js';

export { COALESCE_MS, TRAFFIC_LIMIT } from '../store/team-watch.js';

/** What the sidebar and pane titles render from: the sidebar's data, complete, plus a generation (`board` is optional: a snapshot built by hand has only `tasks`). */
export type TeamSnapshot = Omit<TeamState, 'board'> & SidebarData;

/** Watches a team folder (through the store) and hands out snapshots of it. */
export class TeamView {
  private readonly watch: TeamWatch | BackendWatch;

  constructor(store: TeamStore) {
    this.watch = store.backend.kind === 'folder' ? new TeamWatch(store) : new BackendWatch(store);
  }

  /** Load everything once and start watching. */
  start(): Promise<void> {
    return this.watch.start();
  }

  /** Subscribe to fresh snapshots. */
  onChange(listener: (s: TeamSnapshot) => void): { dispose(): void } {
    return this.watch.onChange(listener);
  }

  /** The current snapshot. */
  snapshot(): TeamSnapshot {
    return this.watch.state();
  }

  /** Reload the roster now (pids and exits change without a file event when a process dies). */
  refreshRoster(): void {
    this.watch.refreshRoster();
  }

  /** Stop watching. */
  dispose(): Promise<void> {
    return this.watch.dispose();
  }
}
