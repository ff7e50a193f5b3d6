/**
 * The ready list: a small derived file `task-ready.json` beside the task index, holding the lowest
 * ready task ids (at most READY_FIRST of them) and how many are ready, as the index file says at one
 * exact point (its inode and size), with that point's stamp and last full check. A short-lived claim
 * (store/quick-claim.ts) reads it instead of parsing the whole index, and trusts it only when the
 * index is still that size and the tasks folder's stamp and the check's age are what BoardIndex would
 * trust; otherwise it reads the index. The index writes it after each of its appends that left its
 * cache exactly equal to the file. It is written without fsync: a torn or lost file only fails the
 * check, and a claimer then reads the index. A claim that trusted it notes its task in the index
 * here, without reading the index either. See docs/protocol.md §3.2.1.
 */
import { closeSync, existsSync, constants as fsc, lstatSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import type { Task } from '../protocol/types.js';
import { appendLines, checkFileSync, FILE_MODE, readTextSync, tempPathFor } from './fsx.js';
import type { TeamPaths } from './paths.js';
import type { IndexEntry, ReadTask } from './task-index.js';

/** How old the index's last full check may be before a reader checks every task file again. */
export const SCAN_EVERY_MS = 60_000;

/** How many of the lowest ready ids the list keeps. */
export const READY_FIRST = 64;

/** The ready list as the file holds it. */
export interface ReadyList {
  /** The index file's [inode, size] this list was derived at. */
  index: [number, number];
  /** The stamp (tasks folder mtime) and last full check (ms) of the index at that point. */
  stamp: string;
  scan: number;
  /** How many tasks are ready, and the lowest of them, lowest first. */
  total: number;
  first: string[];
}

/** Where the list lives. */
export function readyListFile(paths: TeamPaths): string {
  return path.join(paths.dir, 'task-ready.json');
}

/** The tasks folder's mtime in nanoseconds, as text: it moves on every create, rename and delete in it. */
export function folderStamp(dir: string): string {
  try {
    return statSync(dir, { bigint: true }).mtimeNs.toString();
  } catch {
    return 'missing';
  }
}

/**
 * The list, if it is the one BoardIndex.current(maxScanAgeMs) would compute now: derived at the
 * index file's present inode and size, with the folder's present stamp and a full check young
 * enough. Null otherwise (the caller reads the index).
 */
export function trustedReadyList(paths: TeamPaths, maxScanAgeMs: number): ReadyList | null {
  let list: ReadyList;
  try {
    list = JSON.parse(readTextSync(readyListFile(paths), 'record') ?? 'null') as ReadyList;
    const st = statSync(path.join(paths.dir, 'task-index.jsonl'));
    if (!Array.isArray(list.index) || list.index[0] !== st.ino || list.index[1] !== st.size) return null;
  } catch {
    return null;
  }
  if (typeof list.stamp !== 'string' || list.stamp !== folderStamp(paths.tasks)) return null;
  if (typeof list.scan !== 'number' || Date.now() - list.scan > maxScanAgeMs) return null;
  if (!Number.isInteger(list.total) || !Array.isArray(list.first) || !list.first.every((id) => typeof id === 'string' && /^[1-9][0-9]*$/.test(id))) return null;
  return list;
}

/** Replace the list (a temp file renamed over it; no fsync, see above). Failing only costs the next claimer a read of the index. */
export function writeReadyList(paths: TeamPaths, list: ReadyList): void {
  const file = readyListFile(paths);
  const tmp = tempPathFor(file);
  try {
    checkFileSync(file);
    // O_EXCL never follows a link: a planted temp name fails instead of being written through.
    const fd = openSync(tmp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, FILE_MODE);
    try {
      writeSync(fd, JSON.stringify(list) + '\n');
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
  }
}

/** The index entry of task `id` as its file reads now (a problem entry when it does not parse); null when it is missing. */
export async function readIndexEntry(paths: TeamPaths, read: ReadTask, id: string): Promise<IndexEntry | null> {
  const file = paths.task(id);
  const before = fileId(file);
  const r = await read(id);
  if (!before) return null;
  if (r.task) return entryOf(r.task, before);
  if (r.problem) return { id, status: 'pending', owner: null, blockedBy: [], file: before, problem: r.problem.message };
  return null;
}

/**
 * BoardIndex.note for a short-lived claim that never read the index (it trusted the ready list, or
 * claimed by id): the entry of task `id` (re-read from its file) and a stamp appended in one write. When the claim
 * took a task the list held as ready and nobody appended since the list was derived, the list
 * follows with the task taken out (a ready task was not completed, so no other task's readiness
 * changes); otherwise it is left stale. Like note, a failure only leaves the index stale.
 */
export async function noteClaim(paths: TeamPaths, read: ReadTask, id: string, list: ReadyList | null, taken: boolean): Promise<void> {
  try {
    const file = path.join(paths.dir, 'task-index.jsonl');
    // No index yet: the next reader builds it from the task files (a lone line would lack its header).
    if (!list && !existsSync(file)) return;
    const e = (await readIndexEntry(paths, read, id)) ?? { id, gone: true };
    const stamp = folderStamp(paths.tasks);
    const written = appendLines(file, [JSON.stringify(e), JSON.stringify({ stamp })]);
    const st = statSync(file);
    if (!list || !taken || !list.first.includes(id) || 'gone' in e || e.status !== 'in_progress' || st.ino !== list.index[0] || st.size !== list.index[1] + written) return;
    writeReadyList(paths, { index: [st.ino, st.size], stamp, scan: list.scan, total: list.total - 1, first: list.first.filter((x) => x !== id) });
  } catch {
    // The index is derived: it is only stale now, never wrong for long.
  }
}

/** The index entry of a task read from a file with this identity (the fields its state depends on). */
function entryOf(t: Task, file: [number, number, number]): IndexEntry {
  return { id: t.id, status: t.status, owner: t.owner, blockedBy: t.blockedBy, file };
}

/** A file's identity for change detection; null when it is missing. */
export function fileId(file: string): [number, number, number] | null {
  try {
    const st = lstatSync(file);
    return [st.mtimeMs, st.size, st.ino];
  } catch {
    return null;
  }
}
