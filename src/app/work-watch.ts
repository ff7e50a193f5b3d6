/**
 * The sidebar's view of members' work: each live worktree is watched with one recursive fs.watch
 * (inotify; it beat chokidar on a 10k-file tree, bench/worktrees.mjs) and never scanned by teamux;
 * a change makes the member's diff op run again (git's own index decides what changed), paced to
 * one run per member per PACE_MS, and the summary (counts, overlaps) goes to the listeners. A
 * watch that fails (the inotify limit) falls back to asking every POLL_MS. Everything it starts is
 * released by dispose().
 */
import { watch, type FSWatcher } from 'node:fs';
import { Git } from '../host/git/repo.js';
import { execGit } from '../host/git/run.js';
import { memberDiff, overlaps } from '../ops/worktree-diff.js';
import type { WorkSummary, WorktreeBook } from '../protocol/worktrees.js';
import type { TeamStore } from '../store/team.js';
import { WorktreeRecord } from '../store/worktrees.js';

/** At most one diff per member this often while its worktree keeps changing. */
export const PACE_MS = 150;
/** How often a member whose worktree cannot be watched is asked. */
export const POLL_MS = 3_000;

/** Watches the team's worktrees and keeps their summary. */
export class WorkWatch {
  // Set up once: the git seam and the record.
  private readonly git = new Git(execGit());
  private readonly record: WorktreeRecord;
  // Live while watching: the book, the watchers and timers, and what each member's diff said.
  private book: WorktreeBook | null = null;
  private readonly watchers: FSWatcher[] = [];
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly polls: NodeJS.Timeout[] = [];
  private readonly numbers = new Map<string, { added: number; removed: number; files: string[] }>();
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  private disposed = false;
  private readonly listeners = new Set<(w: WorkSummary) => void>();

  constructor(private readonly store: TeamStore) {
    this.record = new WorktreeRecord(store.dir);
  }

  /** Read the record, count every member's work once, and start watching (nothing without worktrees). */
  async start(): Promise<void> {
    const r = await this.record.read();
    if (!r.ok) this.store.log.warn(`worktree watch: ${r.message}`);
    this.book = r.ok ? r.book : null;
    if (!this.book) return;
    const live = this.book.members.filter((m) => m.removedAt === null);
    for (const m of live) {
      try {
        const w = watch(m.path, { recursive: true }, () => this.changed(m.member));
        w.on('error', (err) => this.poll(m.member, err));
        this.watchers.push(w);
      } catch (err) {
        this.poll(m.member, err);
      }
    }
    await Promise.all(live.map((m) => this.count(m.member)));
    this.emit();
  }

  /** Subscribe to summaries. */
  onChange(listener: (w: WorkSummary) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** The current summary, or null for a team without worktrees. */
  summary(): WorkSummary | null {
    if (!this.book) return null;
    const members: Record<string, { added: number; removed: number; files: number }> = {};
    for (const [name, n] of this.numbers) members[name] = { added: n.added, removed: n.removed, files: n.files.length };
    // In the book's (the roster's) order, not the order the diffs came back in: the overlap line names its members the same way every time.
    const order = this.book.members.map((m) => m.member);
    const known = [...this.numbers].sort(([a], [b]) => order.indexOf(a) - order.indexOf(b));
    const over = overlaps(known.map(([member, n]) => ({ member, files: n.files.map((path) => ({ path, added: 0, removed: 0 })) })));
    return { members, overlaps: over };
  }

  /** Stop watching. */
  dispose(): void {
    this.disposed = true;
    for (const w of this.watchers.splice(0)) w.close();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const t of this.polls.splice(0)) clearInterval(t);
    this.listeners.clear();
  }

  private poll(member: string, err: unknown): void {
    this.store.log.warn(`worktree watch of ${member} failed (${(err as Error).message}); asking git every ${POLL_MS / 1000} s instead`);
    const t = setInterval(() => this.changed(member), POLL_MS);
    t.unref();
    this.polls.push(t);
  }

  private changed(member: string): void {
    if (this.disposed || this.timers.has(member)) return;
    this.timers.set(member, setTimeout(() => {
      this.timers.delete(member);
      void this.recount(member);
    }, PACE_MS));
  }

  private async recount(member: string): Promise<void> {
    if (this.running.has(member)) {
      this.again.add(member);
      return;
    }
    this.running.add(member);
    try {
      if (await this.count(member)) this.emit();
    } finally {
      this.running.delete(member);
      if (this.again.delete(member)) this.changed(member);
    }
  }

  /** Run the member's diff; true when its numbers changed. */
  private async count(member: string): Promise<boolean> {
    const d = await memberDiff(this.git, this.book, member);
    if (this.disposed) return false;
    if (!d.ok) {
      this.store.log.warn(`worktree of ${member}: ${d.message}`);
      return false;
    }
    const next = { added: d.value.added, removed: d.value.removed, files: d.value.files.map((f) => f.path) };
    const prev = this.numbers.get(member);
    this.numbers.set(member, next);
    return !prev || prev.added !== next.added || prev.removed !== next.removed || prev.files.join('\0') !== next.files.join('\0');
  }

  private emit(): void {
    const s = this.summary();
    if (s) for (const l of this.listeners) l(s);
  }
}
