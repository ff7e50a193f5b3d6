/**
 * The task index: a derived file `task-index.jsonl` beside `tasks/` holding each task's state fields
 * (status, owner, blockedBy) and its file's identity (mtime, size, inode), so claim-next and filtered
 * lists need not read every task file. The task files stay the truth: the index is trusted only while
 * the tasks folder's mtime equals the stamp the last writer recorded and its last full check is recent;
 * otherwise every task file is stat'ed and only the changed ones are re-read (a missing index is
 * rebuilt this way). Teamux's writers append their changes in one write after releasing their task
 * locks; no lock is needed for that, because a batch's stamp is the folder's mtime taken after the
 * write, so any change the batch does not cover leaves the last stamp behind the folder. Only the
 * rewrite that compacts the file takes its lock. Lines: a header, entry lines, `gone` lines, and a
 * `stamp` line closing each batch; later lines win. After each batch that leaves this process's copy
 * exactly equal to the file, the ready list (store/ready-list.ts) is written from it, so a short-lived
 * claim need not parse this file. See docs/protocol.md §3.2.1.
 */
import { closeSync, fstatSync, readdirSync, readSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Task } from '../protocol/types.js';
import { boardState, type BoardTask } from './board-model.js';
import { appendLines, atomicWrite, checkFolderSync, openForReadSync, readEnd, type FileProblem } from './fsx.js';
import type { TeamPaths } from './paths.js';
import { fileId, folderStamp, READY_FIRST, readIndexEntry, SCAN_EVERY_MS, writeReadyList } from './ready-list.js';

export { SCAN_EVERY_MS };

/** "No ready task" rests on a full check at most this old. */
export const NONE_READY_SCAN_MS = 1_000;
/** The first line of the file. */
const HEADER = { kind: 'teamux-task-index', v: 1 };
/** How many task files are read at once while checking. */
const READ_BATCH = 64;

/** One task as the index keeps it (the fields its board state depends on). */
export interface IndexEntry extends BoardTask {
  /** The task file's [mtimeMs, size, ino] when it was read. */
  file: [number, number, number];
  /** Set instead of the state fields when the file does not parse. */
  problem?: string;
}

/** How a task file is read (TaskBoard.readTask). */
export type ReadTask = (id: string) => Promise<{ task?: Task; problem?: FileProblem }>;

/** The index of one team folder; one per TaskBoard, caching what it has read. */
export class BoardIndex {
  // what this process has read of the file
  private entries = new Map<string, IndexEntry>();
  private stamp = '';
  private scannedAt = 0;
  private offset = 0;
  private ino = -1;
  private lines = 0;
  /** How old the last full check may be before current() makes one (SCAN_EVERY_MS). */
  checkEveryMs = SCAN_EVERY_MS;

  constructor(private readonly paths: TeamPaths, private readonly read: ReadTask) {}

  private get file(): string {
    return path.join(this.paths.dir, 'task-index.jsonl');
  }

  /**
   * The entries, current: taken from the index when its stamp matches the folder and its last full
   * check is younger than `maxScanAgeMs`; else every file is checked first (under the index lock).
   */
  async current(maxScanAgeMs = this.checkEveryMs): Promise<ReadonlyMap<string, IndexEntry>> {
    // A tasks "folder" that is a link or a file is refused, as every read of the board refuses it.
    checkFolderSync(this.paths.tasks);
    this.catchUp();
    if (this.stamp !== folderStamp(this.paths.tasks) || Date.now() - this.scannedAt > maxScanAgeMs) await this.scan();
    return this.entries;
  }

  /** Ready task ids (pending, unowned, every blocker completed), lowest first. */
  ready(entries: ReadonlyMap<string, IndexEntry>): string[] {
    const out: number[] = [];
    for (const e of entries.values()) {
      if (e.problem === undefined && boardState(e, (b) => isCompleted(entries.get(b))) === 'ready') out.push(Number(e.id));
    }
    return out.sort((a, b) => a - b).map(String);
  }

  /** Ids matching a list filter (a status, and/or ready now), lowest first; problems are the files that do not parse. */
  select(entries: ReadonlyMap<string, IndexEntry>, filter: { status?: string; ready?: boolean }): { ids: string[]; problems: FileProblem[] } {
    const ids: number[] = [];
    const problems: FileProblem[] = [];
    for (const e of entries.values()) {
      if (e.problem !== undefined) {
        problems.push({ path: this.paths.task(e.id), message: e.problem });
        continue;
      }
      if (filter.status !== undefined && e.status !== filter.status) continue;
      if (filter.ready && boardState(e, (b) => isCompleted(entries.get(b))) !== 'ready') continue;
      ids.push(Number(e.id));
    }
    return { ids: ids.sort((a, b) => a - b).map(String), problems };
  }

  /**
   * Record the tasks with these ids, re-read from their files (the truth), after this process changed
   * or checked them under their locks. Called after the task locks are released, so the stamp covers
   * their removal. A note that fails leaves the index stale, and the next reader checks the folder.
   */
  async note(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      this.catchUp();
      const lines: string[] = [];
      for (const id of new Set(ids)) lines.push(this.apply((await this.readEntry(id)) ?? { id, gone: true }));
      await this.append(lines, { stamp: folderStamp(this.paths.tasks) });
    } catch {
      // The index is derived: it is only stale now, never wrong for long.
    }
  }

  /** Check every task file against the index, re-read the changed ones, and append the differences. */
  private async scan(): Promise<void> {
    const stamp = folderStamp(this.paths.tasks);
    const now = Date.now();
    let names: string[];
    try {
      names = readdirSync(this.paths.tasks).filter((n) => /^[1-9][0-9]*\.json$/.test(n));
    } catch {
      names = [];
    }
    const seen = new Set<string>();
    const stale: string[] = [];
    for (const n of names) {
      const id = n.slice(0, -5);
      seen.add(id);
      const f = fileId(this.paths.task(id));
      const e = this.entries.get(id);
      if (!f || !e || e.file[0] !== f[0] || e.file[1] !== f[1] || e.file[2] !== f[2]) stale.push(id);
    }
    const lines: string[] = [];
    for (const id of this.entries.keys()) if (!seen.has(id)) lines.push(this.apply({ id, gone: true }));
    for (let i = 0; i < stale.length; i += READ_BATCH) {
      const read = await Promise.all(stale.slice(i, i + READ_BATCH).map((id) => this.readEntry(id).then((e) => [id, e] as const)));
      for (const [id, e] of read) lines.push(this.apply(e ?? { id, gone: true }));
    }
    // A large backlog of superseded lines is compacted into a fresh file.
    if (this.lines > 2 * this.entries.size + 1_000) await (await import('./lock.js')).withLock(this.file, () => this.compact({ stamp, scan: now }));
    else await this.append(lines, { stamp, scan: now });
  }

  private readEntry(id: string): Promise<IndexEntry | null> {
    return readIndexEntry(this.paths, this.read, id);
  }

  /** Read the lines appended since this process last looked (all of them when the file was replaced). */
  private catchUp(): void {
    let text: string;
    try {
      // No link, a regular file only, and at most READ_CAPS.log bytes at once (store/fsx.ts).
      const fd = openForReadSync(this.file);
      let n: number;
      let buf: Buffer;
      try {
        const st = fstatSync(fd);
        if (st.ino !== this.ino || st.size < this.offset) this.resetCache(st.ino);
        if (st.size === this.offset) return;
        buf = Buffer.alloc(readEnd(this.offset, st.size) - this.offset);
        n = readSync(fd, buf, 0, buf.length, this.offset);
      } finally {
        closeSync(fd);
      }
      // Only complete lines: a batch still being appended is read next time.
      const end = buf.subarray(0, n).lastIndexOf(0x0a) + 1;
      if (end === 0) return;
      text = buf.subarray(0, end).toString('utf8');
      this.offset += end;
    } catch {
      this.resetCache(-1);
      return;
    }
    const lines = text.split('\n');
    lines.pop();
    let records: unknown[];
    try {
      records = JSON.parse(`[${lines.join(',')}]`) as unknown[];
    } catch {
      records = lines.map((l) => {
        try {
          return JSON.parse(l) as unknown;
        } catch {
          return null;
        }
      });
    }
    for (const r of records) this.applyRecord(r);
    this.lines += lines.length;
  }

  private resetCache(ino: number): void {
    this.entries = new Map();
    this.stamp = '';
    this.scannedAt = 0;
    this.offset = 0;
    this.ino = ino;
    this.lines = 0;
  }

  private applyRecord(r: unknown): void {
    if (typeof r !== 'object' || r === null) return;
    const o = r as Record<string, unknown>;
    if (typeof o.stamp === 'string') {
      this.stamp = o.stamp;
      if (typeof o.scan === 'number') this.scannedAt = o.scan;
      return;
    }
    if (typeof o.id !== 'string') return;
    if (o.gone === true) this.entries.delete(o.id);
    else if (typeof o.status === 'string' && Array.isArray(o.blockedBy) && Array.isArray(o.file)) this.entries.set(o.id, o as unknown as IndexEntry);
  }

  /** Apply one change to the cached entries and return its line. */
  private apply(e: IndexEntry | { id: string; gone: true }): string {
    if ('gone' in e) this.entries.delete(e.id);
    else this.entries.set(e.id, e);
    return JSON.stringify(e);
  }

  private async append(lines: string[], stamp: { stamp: string; scan?: number }): Promise<void> {
    // The lock library is loaded only here and for compaction: a short-lived claim never needs it.
    if (this.offset === 0 && this.ino === -1) return (await import('./lock.js')).withLock(this.file, () => this.compact(stamp));
    const before = this.offset;
    const ino = this.ino;
    // One write per batch: a reader sees it whole, or a prefix without its stamp (read as stale).
    const written = appendLines(this.file, [...lines, JSON.stringify(stamp)]);
    this.lines += lines.length + 1;
    this.stamp = stamp.stamp;
    if (stamp.scan !== undefined) this.scannedAt = stamp.scan;
    const st = statSync(this.file);
    // Another process appended since this one last read: its lines (and ours after them) are read
    // next time, in the file's order, rather than skipped.
    if (st.ino !== ino || st.size !== before + written) return;
    // Our own appends are already applied: move past them without reading them back.
    this.offset = st.size;
    this.saveReadyList();
  }

  /** Replace the file with the current entries and a stamp (atomically). */
  private async compact(stamp: { stamp: string; scan?: number }): Promise<void> {
    const body = [JSON.stringify(HEADER), ...[...this.entries.values()].map((e) => JSON.stringify(e)), JSON.stringify(stamp)].join('\n') + '\n';
    await atomicWrite(this.file, body);
    const st = statSync(this.file);
    this.offset = st.size;
    this.ino = st.ino;
    this.lines = this.entries.size + 2;
    this.stamp = stamp.stamp;
    if (stamp.scan !== undefined) this.scannedAt = stamp.scan;
    this.saveReadyList();
  }

  /**
   * Write the ready list from the entries, which equal the index file up to `offset` (after a
   * catch-up, an append of our own right after it, or a compaction).
   */
  private saveReadyList(): void {
    const ready = this.ready(this.entries);
    writeReadyList(this.paths, { index: [this.ino, this.offset], stamp: this.stamp, scan: this.scannedAt, total: ready.length, first: ready.slice(0, READY_FIRST) });
  }
}

function isCompleted(e: IndexEntry | undefined): boolean {
  return e !== undefined && e.problem === undefined && e.status === 'completed';
}
