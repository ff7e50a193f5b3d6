/**
 * The store backend: the coordination state a team shares, as one interface with two implementations.
 * The team folder (the default: TaskBoard, Mailbox, EventLog, RequestBook and FolderShared below) keeps
 * it in files; src/store/nats/ keeps it in NATS JetStream (KV buckets and streams) so members on other
 * machines can share it. What stays local either way (the log, transcripts, spawn files, trust keys) is
 * not part of this interface. TeamStore holds a backend and adds the roster rules and events on top.
 */
import { promises as fsp, watch, type FSWatcher } from 'node:fs';
import type { TaskPatch } from '../protocol/tasks.js';
import type { TaskEdit } from '../protocol/task-machine.js';
import type { ResponseInput } from '../protocol/requests.js';
import type { EventType, Message, Outcome, ProcessRef, ProtocolRequest, RequestType, Task, TeamConfig, TeamEvent } from '../protocol/types.js';
import { EventTail, isEventSegment } from './events.js';
import { ensureDir, parseJson, readText, UnsafePathError, writeJson, type FileProblem } from './fsx.js';
import type { Cursor, Outgoing, Unread } from './inbox.js';
import { withLock } from './lock.js';
import type { TeamPaths } from './paths.js';
import type { BoardSnapshot, NewTask } from './tasks.js';

/** Tasks: revision compare-and-set, ids that are never reused, claims that never double. */
export interface TaskStore {
  /** Every task (and the records that could not be read). */
  snapshot(): Promise<BoardSnapshot>;
  /** Tasks with their readiness, optionally only one status or only the ready ones. */
  list(filter?: { status?: string; ready?: boolean }): Promise<{ tasks: Array<Task & { ready: boolean }>; index: Map<string, Task>; problems: FileProblem[] }>;
  /** One task record: the task, a problem when it cannot be read, or neither when there is none. */
  readTask(id: string): Promise<{ task?: Task; problem?: FileProblem }>;
  /** One task, or not_found. */
  get(id: string): Promise<Outcome<Task>>;
  /** A new task with the next id; its blockers get it in their `blocks`. */
  create(input: NewTask): Promise<Outcome<Task>>;
  /** Make `id` blocked by `blocker`; a cycle is refused. */
  addDependency(id: string, blocker: string): Promise<Outcome<Task>>;
  /** Claim `id`, or the next ready task when id is undefined. */
  claim(by: string, id?: string, holder?: ProcessRef | null): Promise<Outcome<Task>>;
  /** Change a task `by` who read `revision`. */
  update(id: string, by: string, revision: number, patch: TaskPatch): Promise<Outcome<Task>>;
  /** Complete a task owned by `by`; returns the dependents that became ready. */
  complete(id: string, by: string, result: string | null): Promise<Outcome<{ task: Task; nowReady: string[] }>>;
  /** True once any task id was handed out (seed tasks go only onto a board that never had one). */
  everHadTask(): Promise<boolean>;
  /** Put a claimed task back to pending (by its owner, or anyone when `by` is null). */
  release(id: string, by: string | null, why: string): Promise<Outcome<Task>>;
  /** The owner gives up an attempt: pending again, or blocked after `maxFailures` failed attempts. */
  fail(id: string, by: string | null, why: string, maxFailures?: number): Promise<Outcome<Task>>;
  /** Reopen a completed or blocked task. */
  reopen(id: string, by: string | null, why: string | null): Promise<Outcome<Task>>;
  /** Hand an in_progress task to `to` in one write (never ownerless in between). */
  reassign(id: string, to: string, by: string | null, holder: ProcessRef | null, why: string | null): Promise<Outcome<Task>>;
  /** Edit subject/description, compare-and-set on `revision`. */
  edit(id: string, by: string | null, revision: number, edit: TaskEdit): Promise<Outcome<Task>>;
  /** Delete a pending or blocked task (a tombstone; its edges go); returns it and the tasks now ready. */
  remove(id: string, by: string | null): Promise<Outcome<{ task: Task; nowReady: string[] }>>;
}

/** Inboxes: append-only per member, a cursor per reader that moves only on commit. */
export interface InboxStore {
  /** A message with a fresh id and time. */
  compose(out: Outgoing): Message;
  /** Append a message to its recipient's inbox; it is durable when this resolves. */
  deliver(msg: Message): Promise<void>;
  /** Messages in `member`'s inbox past `reader`'s cursor (reading moves nothing). */
  unread(member: string, reader?: string): Promise<Unread>;
  /** Move `reader`'s cursor past the messages handed out by unread(). */
  commit(member: string, reader: string, next: Cursor): Promise<void>;
  /** unread() and commit() in one step. */
  read(member: string, reader?: string): Promise<Unread>;
  /** Resolve true when there is something unread, false at the deadline or on abort. */
  waitForUnread(member: string, reader: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
}

/** A reader of the event log that gets each new event once. */
export interface EventFeed {
  /** The events appended since the last call (the first call: the recent tail). */
  readNew(): Promise<{ events: TeamEvent[]; problems: FileProblem[] }>;
  /** Call `listener` whenever new events are there to read (a pushing feed); absent: poll readNew(). */
  onArrival?(listener: () => void): void;
  /** Stop following. */
  close?(): void;
}

/** The append-only event log. */
export interface EventStore {
  /** Append one event stamped with the current time. */
  record(type: EventType, fields: Record<string, unknown>): Promise<void>;
  /** Every event, or only the last `limit`. */
  read(limit?: number): Promise<{ events: TeamEvent[]; problems: FileProblem[] }>;
}

/** Requests (shutdown, plan approval, permission), each answered exactly once. */
export interface RequestStore {
  create(type: RequestType, from: string, to: string, body: string, run: string | null, payload?: Record<string, unknown>): Promise<ProtocolRequest>;
  get(id: string): Promise<Outcome<ProtocolRequest>>;
  list(): Promise<{ requests: ProtocolRequest[]; problems: FileProblem[] }>;
  withdraw(id: string, by: string, reason: string): Promise<Outcome<ProtocolRequest>>;
  answer(id: string, response: ResponseInput): Promise<Outcome<ProtocolRequest>>;
  expireEarlierRuns(run: string): Promise<ProtocolRequest[]>;
}

/** The config as read: the raw JSON (checked by TeamStore), or undefined when there is none. */
export type RawConfig = { ok: true; json: unknown; where: string } | { ok: false; message: string; hint: string };

/** The team config and the members' heartbeats. */
export interface SharedState {
  /** The stored config, unchecked; undefined when the team does not exist. */
  readRaw(): Promise<RawConfig | undefined>;
  /** Replace the config (init and refresh). */
  write(config: TeamConfig): Promise<void>;
  /** Run `fn` on the current config and store what it returns, with no other change in between. */
  modify<T>(read: () => Promise<TeamConfig>, fn: (cfg: TeamConfig) => Promise<{ config?: TeamConfig; value: T }>): Promise<T>;
  /** A key that changes whenever the config does (for caches). */
  version(): Promise<string>;
  /** Record that `member` is alive now. */
  heartbeat(member: string): Promise<void>;
  /** When `member` last said it is alive (ms since the epoch), or null. */
  heartbeatAt(member: string): Promise<number | null>;
  /** True when a member's liveness rests on heartbeats only (its pid belongs to another machine). */
  readonly remoteLiveness: boolean;
  /** Hold the one screen seat of a team shared across machines (NATS); the folder has none (mux.json does it). */
  claimScreen?(owner: string): Promise<{ ok: true; release(): Promise<void> } | { ok: false; holder: string }>;
}

/** One change to the shared state, as a watcher hears of it (`reset`: read everything again). */
export type StateChange =
  | { kind: 'task'; id: string }
  | { kind: 'request'; id: string }
  | { kind: 'config' }
  | { kind: 'heartbeat'; member: string }
  | { kind: 'reset' };

/** Everything a team shares, whichever backend keeps it. */
export interface StoreBackend {
  /** `folder` or `nats`; shown in the status line and `team show`. */
  readonly kind: 'folder' | 'nats';
  /** Where it is, for messages: the folder, or the server URL (never credentials). */
  readonly where: string;
  readonly tasks: TaskStore;
  readonly mail: InboxStore;
  readonly events: EventStore;
  readonly requests: RequestStore;
  readonly shared: SharedState;
  /** Call `wake` whenever a task changes (an auto-claiming agent looks for work then); dispose to stop. */
  watchTasks(wake: () => void): { dispose(): void };
  /**
   * Call `onChange` for each change to tasks, requests, the config and heartbeats, as it happens (no
   * polling); `reset` when changes may have been missed (a reconnect). Dispose to stop.
   */
  watchState(onChange: (change: StateChange) => void): { dispose(): void };
  /** Follow the event log from its recent tail (the sidebar's traffic). */
  eventFeed(): EventFeed;
  /** The connection state, for the status line: null when there is none to lose (the folder). */
  connection(): { state: 'connected' | 'reconnecting' | 'closed'; detail: string } | null;
  /** Release connections and timers. */
  close(): Promise<void>;
}

/** team.json and heartbeats/ of a team folder. */
export class FolderShared implements SharedState {
  readonly remoteLiveness = false;

  constructor(private readonly paths: TeamPaths) {}

  async readRaw(): Promise<RawConfig | undefined> {
    const file = this.paths.config;
    const text = await readText(file, 'roster').catch((err: Error) => err);
    if (text instanceof UnsafePathError) return { ok: false, message: text.message, hint: text.hint };
    if (text instanceof Error) return { ok: false, message: `cannot read ${file}: ${text.message}`, hint: 'check the folder permissions' };
    if (text === undefined) return undefined;
    const json = parseJson(file, text);
    if (!json.ok) return { ok: false, message: `${file}: ${json.problem.message}`, hint: 'fix the file by hand or re-create it with `teamux init`' };
    return { ok: true, json: json.value, where: file };
  }

  async write(config: TeamConfig): Promise<void> {
    await ensureDir(this.paths.dir);
    await writeJson(this.paths.config, config);
  }

  async modify<T>(read: () => Promise<TeamConfig>, fn: (cfg: TeamConfig) => Promise<{ config?: TeamConfig; value: T }>): Promise<T> {
    return withLock(this.paths.config, async () => {
      const r = await fn(await read());
      if (r.config) await this.write(r.config);
      return r.value;
    });
  }

  async version(): Promise<string> {
    const st = await fsp.lstat(this.paths.config).catch(() => null);
    return st ? `${st.mtimeMs}:${st.size}:${st.ino}` : '';
  }

  async heartbeat(member: string): Promise<void> {
    await ensureDir(this.paths.heartbeats);
    await writeJson(this.paths.heartbeat(member), { pid: process.pid, at: new Date().toISOString() });
  }

  async heartbeatAt(member: string): Promise<number | null> {
    try {
      return (await fsp.lstat(this.paths.heartbeat(member))).mtimeMs;
    } catch {
      return null;
    }
  }
}

/** The team folder as a backend: the classes TeamStore has always used. */
export function folderBackend(paths: TeamPaths, parts: { tasks: TaskStore; mail: InboxStore; events: EventStore; requests: RequestStore }): StoreBackend {
  return {
    kind: 'folder',
    where: paths.dir,
    ...parts,
    shared: new FolderShared(paths),
    eventFeed: () => folderEventFeed(paths),
    watchTasks: (wake) => {
      let watcher: FSWatcher | null = null;
      try {
        watcher = watch(paths.tasks, wake);
        watcher.on('error', () => watcher?.close());
      } catch {
        watcher = null;
      }
      return { dispose: () => watcher?.close() };
    },
    watchState: (onChange) => watchFolderState(paths, onChange),
    connection: () => null,
    close: async () => {},
  };
}

/** The folder side of watchState: one fs.watch per folder that holds shared state. */
function watchFolderState(paths: TeamPaths, onChange: (change: StateChange) => void): { dispose(): void } {
  const watchers: FSWatcher[] = [];
  const follow = (dir: string, map: (name: string) => StateChange | null): void => {
    try {
      const w = watch(dir, (_event, name) => {
        const change = name === null ? { kind: 'reset' as const } : map(name);
        if (change) onChange(change);
      });
      w.on('error', () => w.close());
      watchers.push(w);
    } catch {
      // A folder that is not there yet has nothing to follow.
    }
  };
  const id = (name: string, re: RegExp): string | null => re.exec(name)?.[1] ?? null;
  follow(paths.tasks, (n) => { const t = id(n, /^([1-9][0-9]*)\.json$/); return t ? { kind: 'task', id: t } : null; });
  follow(paths.requests, (n) => { const r = id(n, /^(req-.+)\.json$/); return r ? { kind: 'request', id: r } : null; });
  follow(paths.heartbeats, (n) => { const m = id(n, /^(.+)\.json$/); return m ? { kind: 'heartbeat', member: m } : null; });
  follow(paths.dir, (n) => (n === 'team.json' ? { kind: 'config' } : null));
  return { dispose: () => { for (const w of watchers) w.close(); } };
}

/** The folder's event feed: the events file's tail, with a folder watch telling when it grew. */
function folderEventFeed(paths: TeamPaths): EventFeed {
  const tail = new EventTail(paths.events);
  const watchers: FSWatcher[] = [];
  return {
    readNew: () => tail.readNew(),
    onArrival(listener) {
      for (const [dir, wanted] of [[paths.dir, (n: string) => n === 'events.jsonl'], [paths.segments, isEventSegment]] as const) {
        try {
          const w = watch(dir, (_event, name) => { if (name === null || wanted(name)) listener(); });
          w.on('error', () => w.close());
          watchers.push(w);
        } catch {
          // No segments folder yet: the events file announces the first rotation too.
        }
      }
    },
    close: () => { for (const w of watchers.splice(0)) w.close(); },
  };
}
