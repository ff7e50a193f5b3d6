/**
 * An inbox cursor on disk (`inboxes/<member>.cursor.<reader>.json`, docs/protocol.md §3.4): an
 * append-only log of one-line JSON records. Each record holds the reader's whole position
 * (`seq`, `offset`, `sealed`) and either the ids delivered since the record before (`add`) or the
 * whole de-duplication list (`seen`, a snapshot). The cursor is the last whole record; its `seen` is
 * the last snapshot's list followed by every later `add`, trimmed to SEEN_LIMIT. Moving a cursor is
 * one O_APPEND write of a short line, with no fsync and no rename; the log is compacted into one
 * snapshot (atomic replace) once it has grown past its snapshot's size plus COMPACT_SLACK.
 *
 * Crash safety: a record is self-contained, so a torn or lost append only leaves the cursor at the
 * record before it — messages are handed out again (and de-duplicated where their ids survived), never
 * skipped. A line that does not parse is skipped. A cursor written before the log (one pretty-printed
 * JSON object) is read as it is and replaced by a snapshot on its next move. The Stop hook's fast paths
 * (its CommonJS entry and its Perl form) read the same records with one pattern, unread-peek.ts's:
 * `{"seq":S,"offset":O` (then optionally `"sealed":{"seq":S,"offset":O}`) always opens a record.
 */
import type { Cursor } from './inbox.js';
import { appendLines, atomicWrite, readTextSync } from './fsx.js';

/** How many delivered ids a cursor remembers for de-duplication. */
export const SEEN_LIMIT = 2_000;
/** Bytes of `add` records a log may carry past its snapshot before it is compacted. */
export const COMPACT_SLACK = 16 * 1024;

/** A cursor as read from its file, with what its next move needs to know. */
export interface StoredCursor {
  cursor: Cursor;
  /** The file's size in bytes (0: no file). */
  bytes: number;
  /** The length of the last snapshot line (the whole file for a cursor in the old format). */
  snapshotBytes: number;
  /** The file holds a cursor in the format before the log (one JSON object): rewrite it, never append. */
  legacy: boolean;
  /** The file ends in the middle of a line (a writer died mid-append): the next record starts a line of its own. */
  torn: boolean;
}

const NONE: StoredCursor = { cursor: { offset: 0, seen: [] }, bytes: 0, snapshotBytes: 0, legacy: false, torn: false };

/** A whole number ≥ 0 (≥ 1 with `min` 1). */
const whole = (v: unknown, min = 0): v is number => Number.isSafeInteger(v) && (v as number) >= min;
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The position part of a record (or an old-format cursor), or null when it is not one. */
function position(v: unknown): Omit<Cursor, 'seen'> | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const r = v as { offset?: unknown; seq?: unknown; sealed?: { seq?: unknown; offset?: unknown } };
  if (!whole(r.offset)) return null;
  if (r.seq !== undefined && !whole(r.seq, 1)) return null;
  const out: Omit<Cursor, 'seen'> = { offset: r.offset };
  if (r.seq !== undefined) out.seq = r.seq as number;
  if (r.sealed !== undefined) {
    if (typeof r.sealed !== 'object' || r.sealed === null || !whole(r.sealed.seq, 1) || !whole(r.sealed.offset)) return null;
    out.sealed = { seq: r.sealed.seq as number, offset: r.sealed.offset as number };
  }
  return out;
}

/** The cursor in a cursor file's text (the log, or the old single object); no cursor when nothing in it reads. */
export function parseCursorLog(text: string): StoredCursor {
  const bytes = Buffer.byteLength(text);
  // The old format: one object written by JSON.stringify(value, null, 2).
  if (text.startsWith('{\n')) {
    let v: { seen?: unknown } | undefined;
    try {
      v = JSON.parse(text) as typeof v;
    } catch {
      v = undefined;
    }
    const at = position(v);
    if (!at || !Array.isArray(v?.seen)) return { ...NONE, bytes, legacy: true };
    return { cursor: { ...at, seen: v.seen.filter((s): s is string => typeof s === 'string').slice(-SEEN_LIMIT) }, bytes, snapshotBytes: bytes, legacy: true, torn: false };
  }
  let at: Omit<Cursor, 'seen'> | null = null;
  let seen: string[] = [];
  let snapshotBytes = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    // Torn (its writer died mid-write) or damaged: the record before it stands; a record glued onto
    // torn bytes is read from where it starts.
    const v = parseRecord(line) ?? parseRecord(line.slice(Math.max(0, line.lastIndexOf('{"seq":'))));
    if (!v) continue;
    const p = position(v);
    if (!p) continue;
    if (strings(v.seen)) {
      seen = v.seen.slice(-SEEN_LIMIT);
      snapshotBytes = Buffer.byteLength(line) + 1;
    } else if (strings(v.add)) {
      seen.push(...v.add);
      if (seen.length > 2 * SEEN_LIMIT) seen = seen.slice(-SEEN_LIMIT);
    } else continue;
    at = p;
  }
  const torn = text !== '' && !text.endsWith('\n');
  if (!at) return { ...NONE, bytes, torn };
  return { cursor: { ...at, seen: seen.slice(-SEEN_LIMIT) }, bytes, snapshotBytes, legacy: false, torn };
}

/** One line as a JSON object, or null. */
function parseRecord(line: string): { seen?: unknown; add?: unknown } | null {
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === 'object' && v !== null ? (v as { seen?: unknown; add?: unknown }) : null;
  } catch {
    return null;
  }
}

/** One record: the position first, in a fixed key order (the fast paths match its start), then the ids. */
export function cursorRecord(c: Cursor, ids: { add: string[] } | { seen: string[] }): string {
  const sealed = c.sealed ? `,"sealed":{"seq":${c.sealed.seq},"offset":${c.sealed.offset}}` : '';
  const list = 'add' in ids ? `"add":${JSON.stringify(ids.add)}` : `"seen":${JSON.stringify(ids.seen.slice(-SEEN_LIMIT))}`;
  return `{"seq":${c.seq ?? 1},"offset":${c.offset}${sealed},${list}}`;
}

/**
 * Read the cursor file `file` (a link or a non-file is refused with UnsafePathError). Synchronous: a
 * file of at most its snapshot plus COMPACT_SLACK is read in one call, cheaper than the thread pool's round trips.
 */
export async function readCursorFile(file: string): Promise<StoredCursor> {
  const text = readTextSync(file, 'record');
  return text === undefined ? NONE : parseCursorLog(text);
}

/**
 * Move the cursor in `file` from `before` (as read from it) to `next`: one appended record with the
 * ids `next` adds (a snapshot record when the file has none to add to, or `next` does not continue its
 * ids), or a compacted file of one snapshot when the file is in the old format or has grown past its
 * snapshot by COMPACT_SLACK.
 */
export async function writeCursor(file: string, before: StoredCursor, next: Cursor): Promise<void> {
  const known = new Set(before.cursor.seen);
  const add = next.seen.filter((id) => !known.has(id));
  // The ids `next` keeps must be the file's ids plus `add`, or an append would say something else.
  const continues = next.seen.length === Math.min(SEEN_LIMIT, before.cursor.seen.length + add.length) && add.every((id, i) => next.seen[next.seen.length - add.length + i] === id);
  const line = before.snapshotBytes > 0 && continues ? cursorRecord(next, { add }) : cursorRecord(next, { seen: next.seen });
  if (before.legacy || before.bytes + line.length + 1 > before.snapshotBytes + COMPACT_SLACK) await atomicWrite(file, cursorRecord(next, { seen: next.seen }) + '\n');
  else appendLines(file, before.torn ? ['', line] : [line]);
}
