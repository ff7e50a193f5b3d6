/**
 * BoardModel: an incremental picture of the task board. It owns the tasks by id, each task's
 * sidebar state (in progress, ready, waiting, completed), one id-sorted list per state and the
 * reverse dependency edges (blocker → the tasks waiting on it). Setting or removing one task
 * re-classifies that task and, when its completion changed, only the tasks that list it in
 * `blockedBy`; nothing walks or sorts the whole board per change. Pure: no I/O. The team watch
 * (store/team-watch.ts) and the task index (store/task-index.ts) both keep one.
 */

/** The fields of a task the board's states depend on (a full Task has them all). */
export interface BoardTask {
  id: string;
  status: string;
  owner: string | null;
  blockedBy: readonly string[];
}

/** Where a task stands on the board, in display order. */
export type BoardState = 'in_progress' | 'ready' | 'waiting' | 'completed';

/** The states in the order the sidebar lists them. */
export const BOARD_ORDER: readonly BoardState[] = ['in_progress', 'ready', 'waiting', 'completed'];

/** How many tasks are in each state. */
export type BoardCounts = Record<BoardState, number>;

/** A task with its readiness, as lists and the sidebar show it. */
export type WithReady<T> = T & { ready: boolean };

/** A live, read-only view of a board model (what the sidebar renders from). */
export interface BoardView<T extends BoardTask = BoardTask> {
  readonly size: number;
  counts(): BoardCounts;
  /** The first `limit` tasks in display order (states in BOARD_ORDER, then by id). */
  rows(limit: number): Array<WithReady<T>>;
  /** The ids in one state, lowest first. */
  ids(state: BoardState): readonly string[];
  get(id: string): T | undefined;
  stateOf(id: string): BoardState | undefined;
}

/** The state of one task given its blockers' completion (a pending unowned task is ready when every blocker is completed). */
export function boardState(t: BoardTask, completedBlockers: (id: string) => boolean): BoardState {
  if (t.status === 'completed') return 'completed';
  // A blocked task (its attempts failed) waits for the lead to reopen it.
  if (t.status === 'blocked') return 'waiting';
  if (t.status !== 'pending') return 'in_progress';
  if (t.owner !== null) return 'waiting';
  return t.blockedBy.every(completedBlockers) ? 'ready' : 'waiting';
}

/** An incrementally maintained board. */
export class BoardModel<T extends BoardTask = BoardTask> implements BoardView<T> {
  private readonly tasks = new Map<string, T>();
  private readonly states = new Map<string, BoardState>();
  private readonly lists: Record<BoardState, number[]> = { in_progress: [], ready: [], waiting: [], completed: [] };
  private readonly dependents = new Map<string, Set<string>>();
  /** Bumped on every change, so derived copies (all()) know when to rebuild. */
  version = 0;
  private allCache: { version: number; rows: Array<WithReady<T>> } | null = null;

  get size(): number {
    return this.tasks.size;
  }

  /** The tasks by id (live; do not mutate). */
  get index(): ReadonlyMap<string, T> {
    return this.tasks;
  }

  get(id: string): T | undefined {
    return this.tasks.get(id);
  }

  stateOf(id: string): BoardState | undefined {
    return this.states.get(id);
  }

  counts(): BoardCounts {
    const l = this.lists;
    return { in_progress: l.in_progress.length, ready: l.ready.length, waiting: l.waiting.length, completed: l.completed.length };
  }

  ids(state: BoardState): readonly string[] {
    return this.lists[state].map(String);
  }

  rows(limit: number): Array<WithReady<T>> {
    const out: Array<WithReady<T>> = [];
    for (const state of BOARD_ORDER) {
      for (const n of this.lists[state]) {
        if (out.length >= limit) return out;
        out.push({ ...this.tasks.get(String(n))!, ready: state === 'ready' });
      }
    }
    return out;
  }

  /** Every task by id with its readiness; rebuilt only when the board changed since the last call. */
  all(): Array<WithReady<T>> {
    if (this.allCache?.version === this.version) return this.allCache.rows;
    const ids = [...this.tasks.keys()].map(Number).sort((a, b) => a - b);
    const rows = ids.map((n) => ({ ...this.tasks.get(String(n))!, ready: this.states.get(String(n)) === 'ready' }));
    this.allCache = { version: this.version, rows };
    return rows;
  }

  /** Add or replace one task. */
  set(task: T): void {
    const old = this.tasks.get(task.id);
    if (old) for (const b of old.blockedBy) if (!task.blockedBy.includes(b)) this.dependents.get(b)?.delete(task.id);
    for (const b of task.blockedBy) {
      let s = this.dependents.get(b);
      if (!s) this.dependents.set(b, (s = new Set()));
      s.add(task.id);
    }
    this.tasks.set(task.id, task);
    this.classify(task.id);
    if ((old?.status === 'completed') !== (task.status === 'completed')) this.reclassifyDependents(task.id);
    this.version++;
  }

  /** Remove one task (its file was deleted or no longer parses). */
  delete(id: string): void {
    const old = this.tasks.get(id);
    if (!old) return;
    for (const b of old.blockedBy) this.dependents.get(b)?.delete(id);
    this.tasks.delete(id);
    const st = this.states.get(id);
    if (st) removeSorted(this.lists[st], Number(id));
    this.states.delete(id);
    if (old.status === 'completed') this.reclassifyDependents(id);
    this.version++;
  }

  /** Replace the whole board (a full read at start). */
  reset(tasks: Iterable<T>): void {
    this.tasks.clear();
    this.states.clear();
    this.dependents.clear();
    for (const s of BOARD_ORDER) this.lists[s] = [];
    for (const t of tasks) {
      this.tasks.set(t.id, t);
      for (const b of t.blockedBy) {
        let s = this.dependents.get(b);
        if (!s) this.dependents.set(b, (s = new Set()));
        s.add(t.id);
      }
    }
    for (const [id, t] of this.tasks) {
      const st = boardState(t, (b) => this.tasks.get(b)?.status === 'completed');
      this.states.set(id, st);
      this.lists[st].push(Number(id));
    }
    for (const s of BOARD_ORDER) this.lists[s].sort((a, b) => a - b);
    this.version++;
  }

  private reclassifyDependents(id: string): void {
    for (const d of this.dependents.get(id) ?? []) if (this.tasks.has(d)) this.classify(d);
  }

  private classify(id: string): void {
    const t = this.tasks.get(id)!;
    const next = boardState(t, (b) => this.tasks.get(b)?.status === 'completed');
    const prev = this.states.get(id);
    if (prev === next) return;
    if (prev) removeSorted(this.lists[prev], Number(id));
    insertSorted(this.lists[next], Number(id));
    this.states.set(id, next);
  }
}

/** Index of the first element >= n in an ascending array. */
function lowerBound(a: number[], n: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertSorted(a: number[], n: number): void {
  const i = lowerBound(a, n);
  if (a[i] !== n) a.splice(i, 0, n);
}

function removeSorted(a: number[], n: number): void {
  const i = lowerBound(a, n);
  if (a[i] === n) a.splice(i, 1);
}
