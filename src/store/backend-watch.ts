/**
 * BackendWatch: the team picture (roster, task board, message traffic, requests) kept from a store
 * backend rather than from a team folder, for a screen whose team lives on NATS JetStream. It holds
 * the same TeamState as store/team-watch.ts, fed by the backend's state watch (a KV watch: each
 * changed task or request is read once and only it and its dependents are re-classified) and its
 * event feed (a stream consumer: the message traffic). Liveness ages without any write, so the roster
 * is also re-read every ROSTER_EVERY_MS. What is per machine stays local: Claude Code activity is read
 * from this machine's folder. The connection state rides along in the state for the status line; when
 * the connection comes back everything is read again, so nothing missed in the gap stays stale.
 */
import type { TeamEvent } from '../protocol/types.js';
import type { EventFeed, StateChange } from './backend.js';
import { BoardReader } from './board-reader.js';
import { readClaudeActivity, type ClaudeActivity } from './claude.js';
import { watchConnection } from './connection.js';
import type { MemberView, TeamStore } from './team.js';
import { ReloadPacer } from './reload-pacer.js';
import { TRAFFIC_LIMIT, type TeamState } from './team-watch.js';

/** How often the roster is re-read for liveness that changes with time alone (a heartbeat ageing). */
export const ROSTER_EVERY_MS = 2_000;

/** The store's connection as the status line shows it. */
export interface StoreLink {
  state: 'connected' | 'reconnecting' | 'closed';
  detail: string;
}

/** Watches a team through its store backend and keeps its state up to date. */
export class BackendWatch {
  // data
  private readonly tasks: BoardReader;
  private traffic: TeamEvent[] = [];
  private roster: MemberView[] = [];
  private claude: Record<string, ClaudeActivity> = {};
  private link: StoreLink | null;
  private generation = 0;
  private team = '';
  // change tracking
  private readonly dirtyTasks = new Set<string>();
  private readonly dirtyRequests = new Set<string>();
  private dirtyRoster = true;
  private dirtyEvents = true;
  private fullReload = true;
  private pacer: ReloadPacer | null = null;
  // lifecycle
  private running = false;
  private feed: EventFeed | null = null;
  private readonly disposers: Array<() => void> = [];
  private readonly listeners = new Set<(s: TeamState) => void>();

  constructor(private readonly store: TeamStore) {
    this.tasks = new BoardReader(store);
    this.link = store.backend.connection();
  }

  /** Load everything once and start following the backend. */
  async start(): Promise<void> {
    const b = this.store.backend;
    this.feed = b.eventFeed();
    this.running = true;
    this.pacer = new ReloadPacer({
      reload: () => this.reload(),
      reloaded: () => this.tell(),
      failed: (err) => this.store.log.error(`reading the team from ${b.where} failed`, err),
    });
    // The watches start before the first read, so a change in between is read again, never missed.
    const state = b.watchState((c) => this.note(c));
    this.disposers.push(() => state.dispose());
    this.feed.onArrival?.(() => this.noteEvents());
    const feed = this.feed;
    this.disposers.push(() => feed.close?.());
    const roster = setInterval(() => this.note({ kind: 'config' }), ROSTER_EVERY_MS);
    roster.unref();
    this.disposers.push(() => clearInterval(roster));
    const link = watchConnection(b, (_line, now) => {
      this.link = b.connection();
      // Back from a gap: read everything again (the watches and the feed resume by themselves).
      if (now === 'connected') this.fullReload = this.dirtyRoster = this.dirtyEvents = true;
      this.bump();
    });
    this.disposers.push(() => link.dispose());
    // The first read counts as a reload in progress: a change heard meanwhile is read after it.
    await this.pacer.first();
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
      problems: this.tasks.problemList, claude: { ...this.claude }, pipeline: null, generation: this.generation, store: this.link,
    };
    Object.defineProperty(s, 'tasks', { enumerable: true, get: () => board.all() });
    return s as unknown as TeamState;
  }

  /** Reload the roster now (a member's pane exited). */
  refreshRoster(): void {
    this.note({ kind: 'config' });
  }

  /** Stop following. */
  async dispose(): Promise<void> {
    this.running = false;
    this.listeners.clear();
    for (const d of this.disposers.splice(0)) d();
    await this.pacer?.stop();
  }

  private note(c: StateChange): void {
    if (c.kind === 'task') this.dirtyTasks.add(c.id);
    else if (c.kind === 'request') this.dirtyRequests.add(c.id);
    else if (c.kind === 'config' || c.kind === 'heartbeat') this.dirtyRoster = true;
    else this.fullReload = this.dirtyRoster = this.dirtyEvents = true;
    this.schedule();
  }

  private noteEvents(): void {
    this.dirtyEvents = true;
    this.schedule();
  }

  /** A new state without a reload (the connection changed): listeners hear of it at once. */
  private bump(): void {
    this.generation++;
    const s = this.state();
    for (const l of this.listeners) l(s);
    this.schedule();
  }

  private schedule(): void {
    if (this.running) this.pacer?.schedule();
  }

  /** Hand the listeners the state after a scheduled reload. */
  private tell(): void {
    if (!this.running) return;
    const s = this.state();
    for (const l of this.listeners) l(s);
  }

  private async reload(): Promise<void> {
    if (this.fullReload) await this.readAll();
    await this.tasks.readTasks(takeAll(this.dirtyTasks));
    await this.tasks.readRequests(takeAll(this.dirtyRequests));
    if (this.dirtyRoster) {
      this.dirtyRoster = false;
      const cfg = await this.store.readConfig();
      if (cfg.ok) {
        this.team = cfg.config.name;
        this.roster = await this.store.roster();
        // Claude Code members' activity files are this machine's (their hooks run here).
        for (const m of cfg.config.members) {
          if (m.runtime !== 'claude' && m.runtime !== 'codex') continue;
          const a = await readClaudeActivity(this.store.paths, m.name);
          if (a) this.claude[m.name] = a;
        }
      }
    }
    if (this.dirtyEvents) {
      this.dirtyEvents = false;
      await this.readNewEvents();
    }
    this.link = this.store.backend.connection();
    this.generation++;
  }

  /** Read the whole board and every request (at start, and after a reconnect). */
  private async readAll(): Promise<void> {
    this.fullReload = false;
    // Changes noted while this read runs are read again after it.
    this.dirtyTasks.clear();
    this.dirtyRequests.clear();
    await this.tasks.readAll();
  }

  /** Keep the message traffic among the events that arrived since the last read. */
  private async readNewEvents(): Promise<void> {
    const { events } = await this.feed!.readNew();
    const sent = events.filter((e) => e.type === 'message_sent');
    if (sent.length === 0) return;
    this.traffic = [...this.traffic, ...sent].slice(-TRAFFIC_LIMIT);
  }
}

function takeAll(set: Set<string>): string[] {
  const out = [...set];
  set.clear();
  return out;
}
