/**
 * TeamView: the multiplexer's in-memory picture of the team folder (roster, tasks, message traffic,
 * requests), kept fresh by a chokidar watch. Bursts of file events coalesce into one reload a few
 * milliseconds later; only the files that changed are re-read, so a board of 1000 tasks stays cheap.
 */
import chokidar, { type FSWatcher } from 'chokidar';
import * as path from 'node:path';
import type { PipelineSummary } from '../protocol/pipeline.js';
import { isReady } from '../protocol/tasks.js';
import type { ProtocolRequest, Task, TeamEvent } from '../protocol/types.js';
import { EventTail } from '../store/events.js';
import type { FileProblem } from '../store/fsx.js';
import { readClaudeActivity, type ClaudeActivity } from '../store/claude.js';
import type { MemberView, TeamStore } from '../store/team.js';
import type { SidebarData } from '../ui/sidebar.js';

/** How long to let a burst of file events settle before reloading. */
export const COALESCE_MS = 15;
/** How many mailbox events the view keeps. */
export const TRAFFIC_LIMIT = 200;

/** What the sidebar and pane titles render from: the sidebar's data, complete, plus a generation. */
export interface TeamSnapshot extends SidebarData {
  /** Claude Code members' activity (state, tokens, cost), by member name. */
  claude: Record<string, ClaudeActivity>;
  /** Bumped on every reload, so renderers can tell what is new. */
  generation: number;
}

/** Watches a team folder and keeps a snapshot of it. */
export class TeamView {
  // data
  private tasks = new Map<string, Task>();
  private taskProblems = new Map<string, FileProblem>();
  private requests = new Map<string, ProtocolRequest>();
  private traffic: TeamEvent[] = [];
  private roster: MemberView[] = [];
  private claude: Record<string, ClaudeActivity> = {};
  private pipeline: PipelineSummary | null = null;
  private dirtyClaude = new Set<string>();
  private readonly events: EventTail;
  private generation = 0;
  private team = '';
  // change tracking
  private dirtyTasks = new Set<string>();
  private dirtyRequests = new Set<string>();
  private dirtyRoster = true;
  private dirtyEvents = true;
  private fullReload = true;
  private timer: NodeJS.Timeout | null = null;
  private lastReload = 0;
  private reloading: Promise<void> | null = null;
  private watcher: FSWatcher | null = null;
  private readonly listeners = new Set<(s: TeamSnapshot) => void>();

  constructor(private readonly store: TeamStore) {
    this.events = new EventTail(store.paths.events);
  }

  /** Load everything once and start watching. */
  async start(): Promise<void> {
    await this.reload();
    const p = this.store.paths;
    this.watcher = chokidar.watch([p.tasks, p.requests, p.config, p.events, p.claude, this.store.pipeline.dir], {
      ignoreInitial: true,
      ignored: (p: string) => /\.tmp$|\.lock(\/|$)/.test(p) || path.basename(p).startsWith('.'),
      atomic: false,
      depth: 1,
    });
    this.watcher.on('all', (_event, file) => this.noteChange(file));
    await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()));
  }

  /** Subscribe to fresh snapshots. */
  onChange(listener: (s: TeamSnapshot) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** The current snapshot. */
  snapshot(): TeamSnapshot {
    // A deleted task is a tombstone kept for the record, not part of the board.
    const tasks = [...this.tasks.values()].filter((t) => t.status !== 'deleted').sort((a, b) => Number(a.id) - Number(b.id));
    return {
      team: this.team,
      roster: this.roster,
      tasks: tasks.map((t) => ({ ...t, ready: isReady(t, this.tasks) })),
      traffic: this.traffic,
      requests: [...this.requests.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt)),
      problems: [...this.taskProblems.values()],
      claude: { ...this.claude },
      pipeline: this.pipeline,
      generation: this.generation,
    };
  }

  /** Reload the roster now (pids and exits change without a file event when a process dies). */
  refreshRoster(): void {
    this.dirtyRoster = true;
    this.schedule();
  }

  /** Stop watching. */
  async dispose(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.listeners.clear();
    await this.watcher?.close();
    this.watcher = null;
  }

  private noteChange(file: string): void {
    const p = this.store.paths;
    const dir = path.dirname(file);
    const name = path.basename(file);
    if (file === p.tasks) this.fullReload = true;
    else if (dir === p.tasks && /^[1-9][0-9]*\.json$/.test(name)) this.dirtyTasks.add(name.slice(0, -5));
    else if (dir === p.requests && name.startsWith('req-') && name.endsWith('.json')) this.dirtyRequests.add(name.slice(0, -5));
    else if (file === p.config) this.dirtyRoster = true;
    else if (file === p.events) this.dirtyEvents = true;
    else if (dir === p.claude && name.endsWith('.activity.json')) this.dirtyClaude.add(name.slice(0, -'.activity.json'.length));
    // Claude Code's own files under claude/<member>/ are none of the sidebar's business.
    else if (file.startsWith(p.claude)) return;
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    // The first change after a quiet spell reloads at once; changes that follow within COALESCE_MS
    // wait for the end of that window and are read together in one reload.
    const wait = Math.max(0, COALESCE_MS - (Date.now() - this.lastReload));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.lastReload = Date.now();
      void this.reloadSerial();
    }, wait);
  }

  private async reloadSerial(): Promise<void> {
    while (this.reloading) await this.reloading;
    this.reloading = this.reload().catch((err) => this.store.log.error('team view reload failed', err));
    await this.reloading;
    this.reloading = null;
    const snap = this.snapshot();
    for (const l of this.listeners) l(snap);
  }

  private async reload(): Promise<void> {
    if (this.fullReload) {
      this.fullReload = false;
      const board = await this.store.tasks.snapshot();
      this.tasks = board.index;
      this.taskProblems = new Map(board.problems.map((p) => [p.path, p]));
      this.dirtyTasks.clear();
      const reqs = await this.store.requests.list();
      this.requests = new Map(reqs.requests.map((r) => [r.id, r]));
      this.dirtyRequests.clear();
    }
    for (const id of this.takeAll(this.dirtyTasks)) {
      const r = await this.store.tasks.readTask(id);
      const file = this.store.paths.task(id);
      if (r.task) {
        this.tasks.set(id, r.task);
        this.taskProblems.delete(file);
      } else {
        this.tasks.delete(id);
        if (r.problem) this.taskProblems.set(file, r.problem);
        else this.taskProblems.delete(file);
      }
    }
    for (const id of this.takeAll(this.dirtyRequests)) {
      const r = await this.store.requests.get(id);
      if (r.ok) this.requests.set(id, r.value);
      else this.requests.delete(id);
    }
    if (this.dirtyRoster) {
      this.dirtyRoster = false;
      const cfg = await this.store.readConfig();
      if (cfg.ok) {
        this.team = cfg.config.name;
        this.roster = await this.store.roster();
        for (const m of cfg.config.members) if (m.runtime === 'claude' && !(m.name in this.claude)) this.dirtyClaude.add(m.name);
      }
    }
    for (const name of this.takeAll(this.dirtyClaude)) {
      if (!this.roster.some((m) => m.name === name)) continue;
      const a = await readClaudeActivity(this.store.paths, name);
      if (a) this.claude[name] = a;
    }
    if (this.dirtyEvents) {
      this.dirtyEvents = false;
      await this.readNewEvents();
    }
    // The pipeline line: a small file, re-read with every reload (its state changes with the board).
    this.pipeline = await this.store.pipeline.summary([...this.tasks.values()]).catch(() => null);
    this.generation++;
  }

  /** Keep the message traffic among the events appended since the last read. */
  private async readNewEvents(): Promise<void> {
    const { events } = await this.events.readNew();
    for (const ev of events) if (ev.type === 'message_sent') this.traffic.push(ev);
    if (this.traffic.length > TRAFFIC_LIMIT) this.traffic = this.traffic.slice(-TRAFFIC_LIMIT);
  }

  private takeAll(set: Set<string>): string[] {
    const out = [...set];
    set.clear();
    return out;
  }
}
