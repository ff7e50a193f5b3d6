/**
 * TeamView: the multiplexer's handle on the team. A team folder is read and watched only by
 * store/team-watch.ts; a team on a NATS store is followed by store/backend-watch.ts (KV watch and event
 * stream). This adapter gives their state the sidebar's shape (TeamSnapshot), with the members' work
 * from their worktrees (work-watch.ts) when the team has them, and keeps the names the multiplexer
 * uses (start, onChange, snapshot, refreshRoster, dispose).
 */
import { BackendWatch } from '../store/backend-watch.js';
import { TeamWatch, type TeamState } from '../store/team-watch.js';
import type { TeamStore } from '../store/team.js';
import type { SidebarData } from '../mux/sidebar-data.js';
import { WorkWatch } from './work-watch.js';

export { COALESCE_MS, TRAFFIC_LIMIT } from '../store/team-watch.js';

/** What the sidebar and pane titles render from: the sidebar's data, complete, plus a generation (`board` is optional: a snapshot built by hand has only `tasks`). */
export type TeamSnapshot = Omit<TeamState, 'board'> & SidebarData;

/** Watches a team folder (through the store) and hands out snapshots of it. */
export class TeamView {
  private readonly watch: TeamWatch | BackendWatch;
  private readonly work: WorkWatch | null;

  constructor(private readonly store: TeamStore) {
    this.watch = store.backend.kind === 'folder' ? new TeamWatch(store) : new BackendWatch(store);
    this.work = store.backend.kind === 'folder' ? new WorkWatch(store) : null;
  }

  /** Load everything once and start watching (the worktrees' counts follow when git has answered). */
  async start(): Promise<void> {
    await this.watch.start();
    void this.work?.start().catch((err: unknown) => this.store.log.warn(`worktree watch did not start: ${(err as Error).message}`));
  }

  /** Subscribe to fresh snapshots. */
  onChange(listener: (s: TeamSnapshot) => void): { dispose(): void } {
    const team = this.watch.onChange(() => listener(this.snapshot()));
    const work = this.work?.onChange(() => listener(this.snapshot()));
    return { dispose: () => { team.dispose(); work?.dispose(); } };
  }

  /** The current snapshot. */
  snapshot(): TeamSnapshot {
    const work = this.work?.summary() ?? null;
    return work ? { ...this.watch.state(), work } : this.watch.state();
  }

  /** Reload the roster now (pids and exits change without a file event when a process dies). */
  refreshRoster(): void {
    this.watch.refreshRoster();
  }

  /** Stop watching. */
  dispose(): Promise<void> {
    this.work?.dispose();
    return this.watch.dispose();
  }
}
