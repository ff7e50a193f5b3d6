/**
 * TeamWatch: the one watch of a team folder, and the in-memory picture it keeps (roster, task
 * board, message traffic, requests, Claude Code activity). Its BoardReader (shared with the NATS
 * screen's store/backend-watch.ts) owns a BoardModel, so a changed task file costs one read and the re-classification of that task and its dependents; counts and the
 * in-progress/ready lists stay current without copying or sorting the board. Bursts of file events
 * coalesce into one reload a few milliseconds later, and only the files that changed are re-read.
 * The events tail is store/events.ts's EventTail; the members' usage logs are tailed the same way
 * (store/usage-tail.ts) for the budget line, which is worked out again when a log grows, team.json
 * changes, or a counted call leaves its window. Listeners hear of a reload only when it changed what
 * the picture shows: an appended event that is not a message, a usage log of a team without budgets,
 * or team.json written again with the same roster costs the screen no frame. The multiplexer reads
 * this through app/team-view.
 */
import * as path from 'node:path';
import { budgetSummary, type Budget, type BudgetSummary } from '../protocol/budget.js';
import type { PipelineSummary } from '../protocol/pipeline.js';
import type { ProtocolRequest, Task, TeamEvent } from '../protocol/types.js';
import type { BoardView, WithReady } from './board-model.js';
import { BoardReader } from './board-reader.js';
import { readClaudeActivity, type ClaudeActivity } from './claude.js';
import { EventTail, isEventSegment } from './events.js';
import { FolderWatch } from './folder-watch.js';
import { ensureDir, type FileProblem } from './fsx.js';
import type { MemberView, TeamStore } from './team.js';
import { ReloadPacer } from './reload-pacer.js';
import { UsageTail } from './usage-tail.js';

export { COALESCE_MS } from './reload-pacer.js';
/** How many mailbox events the picture keeps. */
export const TRAFFIC_LIMIT = 200;

/**
 * The team folder as last read. `board` is live (it always shows the current board); `tasks` is the
 * whole board by id, built on first access and only when the board changed since it was last built.
 */
export interface TeamState {
  team: string;
  roster: MemberView[];
  tasks: Array<WithReady<Task>>;
  board: BoardView<Task>;
  traffic: TeamEvent[];
  requests: ProtocolRequest[];
  problems: FileProblem[];
  /** Claude Code members' activity (state, tokens, cost), by member name. */
  claude: Record<string, ClaudeActivity>;
  /** The staged pipeline's line data (stage, wave, fix round, verifier); null: not a pipeline. */
  pipeline?: PipelineSummary | null;
  /** The shared store's connection (a NATS store, see store/backend-watch.ts); absent or null: the folder. */
  store?: { state: 'connected' | 'reconnecting' | 'closed'; detail: string } | null;
  /** Spend against the team's and members' budgets; null: no budget anywhere in team.json. */
  budget?: BudgetSummary | null;
  /** Bumped on every reload, so renderers can tell what is new. */
  generation: number;
}

/** Watches a team folder and keeps its state up to date. */
export class TeamWatch {
  // data
  private readonly tasks: BoardReader;
  private traffic: TeamEvent[] = [];
  private roster: MemberView[] = [];
  private claude: Record<string, ClaudeActivity> = {};
  private pipeline: PipelineSummary | null = null;
  private budget: BudgetSummary | null = null;
  private teamBudget: Budget | null = null;
  private readonly events: EventTail;
  private readonly usage: UsageTail;
  private generation = 0;
  private team = '';
  // change tracking
  private readonly dirtyTasks = new Set<string>();
  private readonly dirtyRequests = new Set<string>();
  private readonly dirtyClaude = new Set<string>();
  private dirtyRoster = true;
  private dirtyPipeline = true;
  private readonly dirtyUsage = new Set<string>();
  private dirtyBudget = true;
  private dirtyEvents = true;
  private fullReload = true;
  /** A reload changed the picture since listeners were last told (or since the first load). */
  private unseen = false;
  private pacer: ReloadPacer | null = null;
  /** Fires when a counted model call leaves its budget window (spend drops without a file event). */
  private windowTimer: NodeJS.Timeout | null = null;
  // lifecycle
  private watcher: FolderWatch | null = null;
  /** dispose() ran: a start() still waiting arms nothing. */
  private disposed = false;
  private readonly listeners = new Set<(s: TeamState) => void>();

  constructor(private readonly store: TeamStore) {
    this.tasks = new BoardReader(store);
    this.events = new EventTail(store.paths.events);
    this.usage = new UsageTail(store.paths);
  }

  /** Load everything once and start watching. */
  async start(): Promise<void> {
    const p = this.store.paths;
    // The usage folder is watched from the start, so the first model call of a member shows.
    await ensureDir(p.usage);
    // Disposed meanwhile (the screen quit during its start-up): a watch armed now would never close.
    if (this.disposed) return;
    // inotify on the folders themselves: a change costs the same on a board of 10 or 10,000 tasks.
    const folders = [p.tasks, p.requests, p.segments, p.claude, this.store.pipeline.dir, p.usage].map((d) => path.relative(p.dir, d));
    this.watcher = new FolderWatch(p.dir, folders, {
      change: (file) => {
        if (!/\.tmp$|\.lock(\/|$)/.test(file) && !path.basename(file).startsWith('.')) this.noteChange(file);
      },
      error: (err) => this.store.log.error('team folder watch', err),
    });
    // Armed before the first read, so a change that lands during it is read again after it.
    this.watcher.start();
    this.pacer = new ReloadPacer({
      reload: () => this.reload(),
      reloaded: () => this.tell(),
      failed: (err) => this.store.log.error('team folder reload failed', err),
    });
    await this.pacer.first();
    // The first load is read by the caller through state(): only later changes are news.
    this.unseen = false;
    this.scheduleWindow();
  }

  /** Subscribe to fresh state after each reload. */
  onChange(listener: (s: TeamState) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** The current state (cheap: nothing is copied but the small lists). */
  state(): TeamState {
    const board = this.tasks.board;
    const s = {
      team: this.team, roster: this.roster, board, traffic: this.traffic, requests: this.tasks.requestList,
      problems: this.tasks.problemList, claude: { ...this.claude }, pipeline: this.pipeline, budget: this.budget, generation: this.generation,
    };
    // The whole board as an array is for callers that want it; the sidebar renders from `board`.
    Object.defineProperty(s, 'tasks', { enumerable: true, get: () => board.all() });
    return s as unknown as TeamState;
  }

  /** Reload the roster now (pids and exits change without a file event when a process dies). */
  refreshRoster(): void {
    this.dirtyRoster = true;
    this.schedule();
  }

  /** Stop watching. */
  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.windowTimer) clearTimeout(this.windowTimer);
    this.windowTimer = null;
    this.listeners.clear();
    this.watcher?.close();
    this.watcher = null;
    await this.pacer?.stop();
  }

  private noteChange(file: string): void {
    const p = this.store.paths;
    const dir = path.dirname(file);
    const name = path.basename(file);
    if (file === p.tasks) this.fullReload = true;
    else if (dir === p.tasks && /^[1-9][0-9]*\.json$/.test(name)) this.dirtyTasks.add(name.slice(0, -5));
    else if (dir === p.requests && name.startsWith('req-') && name.endsWith('.json')) this.dirtyRequests.add(name.slice(0, -5));
    else if (file === p.config) this.dirtyRoster = true;
    else if (file === p.events || (dir === p.segments && isEventSegment(name))) this.dirtyEvents = true;
    else if (dir === p.claude && name.endsWith('.activity.json')) this.dirtyClaude.add(name.slice(0, -'.activity.json'.length));
    else if (dir === this.store.pipeline.dir) this.dirtyPipeline = true;
    else if (dir === p.usage && name.endsWith('.jsonl')) this.dirtyUsage.add(name.slice(0, -'.jsonl'.length));
    // Claude Code's own files under claude/<member>/ are none of the sidebar's business.
    else return;
    this.schedule();
  }

  private schedule(): void {
    if (this.watcher) this.pacer?.schedule();
  }

  /** Hand the listeners the state after a scheduled reload that changed it. */
  private tell(): void {
    if (!this.watcher || !this.unseen) return;
    this.unseen = false;
    const s = this.state();
    for (const l of this.listeners) l(s);
  }

  private async reload(): Promise<void> {
    const tasksChanged = this.fullReload || this.dirtyTasks.size > 0;
    // Task and request files named by events are taken as changed; the rest is compared.
    let changed = tasksChanged || this.dirtyRequests.size > 0;
    if (this.fullReload) await this.readAll();
    await this.tasks.readTasks(takeAll(this.dirtyTasks));
    await this.tasks.readRequests(takeAll(this.dirtyRequests));
    if (this.dirtyRoster) {
      this.dirtyRoster = false;
      const cfg = await this.store.readConfig();
      if (cfg.ok) {
        const before = JSON.stringify([this.team, this.roster, this.teamBudget]);
        this.team = cfg.config.name;
        this.roster = await this.store.roster();
        this.teamBudget = cfg.config.budget ?? null;
        changed = changed || JSON.stringify([this.team, this.roster, this.teamBudget]) !== before;
        this.dirtyBudget = true;
        for (const m of cfg.config.members) if ((m.runtime === 'claude' || m.runtime === 'codex') && !(m.name in this.claude)) this.dirtyClaude.add(m.name);
      }
    }
    for (const name of takeAll(this.dirtyClaude)) {
      if (!this.roster.some((m) => m.name === name)) continue;
      const a = await readClaudeActivity(this.store.paths, name);
      if (!a) continue;
      changed = changed || JSON.stringify(a) !== JSON.stringify(this.claude[name]);
      this.claude[name] = a;
    }
    if (this.dirtyEvents) {
      this.dirtyEvents = false;
      changed = (await this.readNewEvents()) || changed;
    }
    changed = (await this.readBudget()) || changed;
    // The pipeline line: its state changes with the board (the verifier is a task's owner).
    if (this.dirtyPipeline || tasksChanged) {
      this.dirtyPipeline = false;
      const before = JSON.stringify(this.pipeline);
      this.pipeline = await this.store.pipeline.summary(this.store.pipeline.active() ? this.tasks.board.all() : []).catch(() => null);
      changed = changed || JSON.stringify(this.pipeline) !== before;
    }
    this.generation++;
    this.unseen = this.unseen || changed;
  }

  /**
   * The budget line: read what the usage logs gained (only the members named by file events, or all
   * on the first read and when team.json changed), and work spend out again when anything moved.
   * Returns whether the line may have changed.
   */
  private async readBudget(): Promise<boolean> {
    const names = this.roster.map((m) => m.name);
    const budgeted = this.teamBudget !== null || this.roster.some((m) => m.budget);
    const now = Date.now();
    const longest = Math.max(this.teamBudget?.windowS ?? 0, ...this.roster.map((m) => m.budget?.windowS ?? 0));
    // A window that grew needs records the tail dropped: it starts the logs over, every one is read.
    const restarted = budgeted && this.usage.keep(now - longest * 1000);
    const toRead = this.dirtyBudget || restarted ? names : takeAll(this.dirtyUsage).filter((n) => names.includes(n));
    if (this.dirtyBudget || restarted) this.dirtyUsage.clear();
    let changed = this.dirtyBudget || restarted || (this.budget?.nextChangeAt != null && now >= this.budget.nextChangeAt);
    this.dirtyBudget = false;
    if (!budgeted) {
      const had = this.budget !== null;
      this.budget = null;
      return had;
    }
    for (const n of toRead) changed = (await this.usage.readNew(n).catch(() => false)) || changed;
    if (!changed) return false;
    this.budget = budgetSummary(this.teamBudget, this.roster, (n) => this.usage.usage(n), now);
    this.scheduleWindow();
    return true;
  }

  /** Work the budget line out again when the oldest counted call leaves its window. */
  private scheduleWindow(): void {
    if (this.windowTimer) clearTimeout(this.windowTimer);
    this.windowTimer = null;
    const at = this.budget?.nextChangeAt;
    if (at == null || !this.watcher) return;
    // setTimeout holds at most ~24.8 days; a later change is picked up by a nearer reload.
    const wait = Math.min(2 ** 31 - 1, Math.max(0, at - Date.now()));
    this.windowTimer = setTimeout(() => {
      this.windowTimer = null;
      this.schedule();
    }, wait);
    this.windowTimer.unref?.();
  }

  /** Read the whole folder (at start, or when the tasks folder itself was replaced). */
  private async readAll(): Promise<void> {
    this.fullReload = false;
    // Changes noted while this read runs are read again after it.
    this.dirtyTasks.clear();
    this.dirtyRequests.clear();
    await this.tasks.readAll();
  }

  /** Keep the message traffic among the events appended since the last read; returns whether it grew. */
  private async readNewEvents(): Promise<boolean> {
    const { events } = await this.events.readNew();
    let added = false;
    for (const ev of events) {
      if (ev.type !== 'message_sent') continue;
      if (!added) this.traffic = [...this.traffic];
      added = true;
      this.traffic.push(ev);
    }
    if (this.traffic.length > TRAFFIC_LIMIT) this.traffic = this.traffic.slice(-TRAFFIC_LIMIT);
    return added;
  }
}

function takeAll(set: Set<string>): string[] {
  const out = [...set];
  set.clear();
  return out;
}
