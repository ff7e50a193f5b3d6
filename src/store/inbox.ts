/**
 * Inboxes: one append-only JSONL file per member under `inboxes/`. Each reader keeps a cursor (a byte
 * offset and the ids it has seen) in its own file, itself an append-only log (store/cursor-log.ts), so
 * moving it costs one short append. Reading never deletes anything: `unread()` returns
 * messages past the cursor and `commit()` moves it, so a reader that crashes between the two gets the
 * same messages again, and a message appended twice is delivered once. An inbox past
 * INBOX_SEGMENT_BYTES is sealed into `segments/inboxes/<member>.<seq>.jsonl` (store/segments.ts); a
 * cursor names the segment it is in, and a sealed segment is deleted once every reader's cursor has
 * passed it, so nothing unread is ever deleted and reading costs only what is new.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { checkMessage } from '../protocol/message-line.js';
import type { Message, MessageType } from '../protocol/types.js';
import { closeSync, fstatSync, promises as fsp, readdirSync, readSync } from 'node:fs';
import { readCursorFile, SEEN_LIMIT, writeCursor, type StoredCursor } from './cursor-log.js';
import { appendLineKept, ensureDir, openForReadSync, READ_CAPS, readEnd, type FileProblem } from './fsx.js';
import type { InboxStore } from './backend.js';
import type { TeamPaths } from './paths.js';
import { FIELD_LIMITS } from '../protocol/limits.js';
import { sealedSeqs, sealIfFull, segmentPath, type SegmentSpec } from './segments.js';
import { waitOnFolder } from './watch.js';

/** The largest message accepted, in bytes of its JSON line. */
export const MAX_MESSAGE_BYTES = FIELD_LIMITS.messageBytes;

/** How many more times a message sealed away as it was appended is appended again (see deliver). */
const LATE_APPEND_TRIES = 3;

/** The size at which an inbox is sealed into a segment ($TEAMUX_INBOX_SEGMENT_BYTES overrides it). */
export const INBOX_SEGMENT_BYTES = 1024 * 1024;

/** A reader's position in one inbox. */
export interface Cursor {
  offset: number;
  seen: string[];
  /** The segment `offset` is in (absent: 1, the inbox's first file, as cursors before segments were). */
  seq?: number;
  /** The segment sealed last and how far it was read: a line appended to it late is still read. */
  sealed?: { seq: number; offset: number };
}

/** Messages past a cursor, and the cursor to commit once they are handled. */
export interface Unread {
  messages: Message[];
  next: Cursor;
  problems: FileProblem[];
}

/** What a sender supplies; id and time are filled in. */
export interface Outgoing {
  from: string;
  to: string;
  type: MessageType;
  text?: string;
  payload?: Record<string, unknown>;
  request_id?: string;
}

/** A message from `out` with a fresh id and the current time (every backend composes this way). */
export function composeMessage(out: Outgoing): Message {
  const msg: Message = { id: `msg-${randomUUID()}`, from: out.from, to: out.to, type: out.type, text: out.text ?? '', time: new Date().toISOString() };
  if (out.payload !== undefined) msg.payload = out.payload;
  if (out.request_id !== undefined) msg.request_id = out.request_id;
  return msg;
}

/** A message as its one JSON line, checked against the schema and MAX_MESSAGE_BYTES (RangeError past it). */
export function messageLine(msg: Message): string {
  const checked = checkMessage(msg);
  if (!checked.ok) throw new TypeError(`not a message: ${checked.path || '(top)'}: ${checked.message}`);
  const line = JSON.stringify(checked.msg);
  if (Buffer.byteLength(line) > MAX_MESSAGE_BYTES) throw new RangeError(`message is larger than ${MAX_MESSAGE_BYTES} bytes`);
  return line;
}

/** The inboxes of one team folder (member checks happen in TeamStore, which knows the roster). */
export class Mailbox implements InboxStore {
  private dirReady = false;

  constructor(private readonly paths: TeamPaths) {}

  /** Build a message with a fresh id and the current time. */
  compose(out: Outgoing): Message {
    return composeMessage(out);
  }

  /** Append a message to its recipient's inbox (one O_APPEND write). */
  async deliver(msg: Message): Promise<void> {
    const line = messageLine(msg);
    if (!this.dirReady) {
      await ensureDir(this.paths.inboxes);
      this.dirReady = true;
    }
    // Sealed away between the open and the write? The line may sit in a segment its readers have
    // finished: append it again (a reader drops the second copy by its id). Each try is one more write.
    for (let tries = 0; !appendLineKept(this.paths.inbox(msg.to), line) && tries < LATE_APPEND_TRIES; tries++);
    if ((await sealIfFull(this.segments(msg.to)).catch(() => null)) !== null) await this.prune(msg.to);
  }

  /** The segment layout of `member`'s inbox (sealed segments are pruned by cursor, not by count). */
  segments(member: string): SegmentSpec {
    const n = Number(process.env.TEAMUX_INBOX_SEGMENT_BYTES);
    return { file: this.paths.inbox(member), dir: path.join(this.paths.segments, 'inboxes'), maxBytes: Number.isInteger(n) && n > 0 ? n : INBOX_SEGMENT_BYTES, keep: Number.MAX_SAFE_INTEGER };
  }

  /** Delete the sealed segments of `member`'s inbox that every reader's cursor has passed (none when nobody has read it). */
  private async prune(member: string): Promise<void> {
    const prefix = `${path.basename(this.paths.inbox(member), '.jsonl')}.cursor.`;
    let names: string[];
    try {
      names = readdirSync(this.paths.inboxes).filter((n) => n.startsWith(prefix) && n.endsWith('.json'));
    } catch {
      return;
    }
    if (names.length === 0) return;
    let min = Infinity;
    for (const n of names) {
      const c = await this.cursor(member, n.slice(prefix.length, -'.json'.length));
      min = Math.min(min, c.sealed?.seq ?? c.seq ?? 1, c.seq ?? 1);
    }
    const spec = this.segments(member);
    for (const seq of sealedSeqs(spec)) if (seq < min) await fsp.rm(segmentPath(spec, seq), { force: true });
  }

  /** The reader's cursor for `member`'s inbox. */
  async cursor(member: string, reader: string): Promise<Cursor> {
    return (await readCursorFile(this.paths.cursor(member, reader))).cursor;
  }

  /** Messages in `member`'s inbox past `reader`'s cursor, across its segments; complete lines only, duplicates dropped. */
  async unread(member: string, reader: string = member): Promise<Unread> {
    return this.unreadFrom(member, await this.cursor(member, reader));
  }

  /** Messages in `member`'s inbox past `cursor`. */
  private async unreadFrom(member: string, cursor: Cursor): Promise<Unread> {
    const spec = this.segments(member);
    const seen = new Set(cursor.seen);
    const out: Unread = { messages: [], next: { ...cursor, seen: [] }, problems: [] };
    const take = (buf: Buffer, file: string, base: number): number => parseInbox(buf, file, base, seen, out);
    // Lines that reached the segment sealed last after this reader had moved on.
    if (cursor.sealed) {
      const r = readFrom(segmentPath(spec, cursor.sealed.seq), cursor.sealed.offset);
      if (r) out.next.sealed = { seq: cursor.sealed.seq, offset: cursor.sealed.offset + take(r, segmentPath(spec, cursor.sealed.seq), cursor.sealed.offset) };
    }
    let seq = cursor.seq ?? 1;
    let offset = cursor.offset;
    for (let guard = 0; guard < 100_000; guard++) {
      const sealed = sealedSeqs(spec);
      const active = (sealed.at(-1) ?? 0) + 1;
      // A cursor from a folder that was replaced: start over; ids de-duplicate.
      if (seq > active) [seq, offset] = [active, 0];
      if (seq < active) {
        if (!sealed.includes(seq)) [seq, offset] = [sealed.find((x) => x > seq) ?? active, 0];
        if (seq < active) {
          const file = segmentPath(spec, seq);
          const r = readFrom(file, offset) ?? Buffer.alloc(0);
          out.next.sealed = { seq, offset: offset + take(r, file, offset) };
          [seq, offset] = [seq + 1, 0];
          continue;
        }
      }
      const file = this.paths.inbox(member);
      // Synchronous reads: the new part of an inbox is small, and a few system calls cost less than
      // as many round trips through the thread pool (a segment read whole is at most its size).
      let buf: Buffer | null;
      const fd = openOrNull(file);
      if (fd === null) buf = null;
      else {
        try {
          // Opened after a rename? Then this file is the next segment: go round again.
          if (sealedSeqs(spec).includes(seq)) continue;
          const { size } = fstatSync(fd);
          // A cursor past the end means the file was replaced by hand: start over; ids de-duplicate.
          if (offset > size) offset = 0;
          buf = readAt(fd, offset, size);
        } finally {
          closeSync(fd);
        }
      }
      out.next.seq = seq;
      const used = buf ? take(buf, file, offset) : 0;
      out.next.offset = offset + used;
      // A line longer than a reader takes at once (planted by hand: messages are limited at write)
      // would stop the inbox for good: its first part is passed over, and the rest reads as a bad line.
      if (buf && used === 0 && buf.length === READ_CAPS.log) {
        out.problems.push({ path: `${file} (byte ${offset})`, message: `a line longer than ${READ_CAPS.log} bytes was skipped` });
        out.next.offset = offset + buf.length;
      }
      break;
    }
    out.next.seen = [...cursor.seen, ...out.messages.map((m) => m.id)].slice(-SEEN_LIMIT);
    return out;
  }

  /** Move the reader's cursor once its messages are handled. */
  async commit(member: string, reader: string, next: Cursor): Promise<void> {
    const file = this.paths.cursor(member, reader);
    await this.move(member, file, await readCursorFile(file), next);
  }

  /** Move a cursor from `before` (as its file reads now) to `next`, and free the segments it passed. */
  private async move(member: string, file: string, before: StoredCursor, next: Cursor): Promise<void> {
    if (!this.dirReady) {
      await ensureDir(this.paths.inboxes);
      this.dirReady = true;
    }
    await writeCursor(file, before, next);
    // Moving past a sealed segment may free it.
    if ((next.seq ?? 1) !== (before.cursor.seq ?? 1)) await this.prune(member);
  }

  /** Read and commit in one step (the CLI's `inbox read`). */
  async read(member: string, reader: string = member): Promise<Unread> {
    const file = this.paths.cursor(member, reader);
    const before = await readCursorFile(file);
    const c = before.cursor;
    const r = await this.unreadFrom(member, c);
    if (r.next.offset !== c.offset || r.next.seq !== c.seq || r.next.sealed?.offset !== c.sealed?.offset || r.messages.length > 0) await this.move(member, file, before, r.next);
    return r;
  }

  /**
   * Wait until `member`'s inbox has unread messages for `reader`, or the deadline passes. It sleeps
   * on an inotify watch of the inboxes folder, so there is no busy polling.
   */
  async waitForUnread(member: string, reader: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    await ensureDir(this.paths.inboxes);
    const name = path.basename(this.paths.inbox(member));
    const hasUnread = async (): Promise<true | undefined> => ((await this.unread(member, reader)).messages.length > 0 ? true : undefined);
    return (await waitOnFolder(this.paths.inboxes, timeoutMs, hasUnread, { only: (file) => file === name, signal })) ?? false;
  }
}

/** `file` opened for reading (no link followed); null when it is missing. */
function openOrNull(file: string): number | null {
  try {
    return openForReadSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** The bytes of an open file from `offset` to `size`, at most READ_CAPS.log of them (fewer if it was cut meanwhile). */
function readAt(fd: number, offset: number, size: number): Buffer {
  const buf = Buffer.alloc(Math.max(0, readEnd(offset, size) - offset));
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return got === buf.length ? buf : buf.subarray(0, got);
}

/** Bytes of a file from `offset` to its end; null when it is missing. */
function readFrom(file: string, offset: number): Buffer | null {
  const fd = openOrNull(file);
  if (fd === null) return null;
  try {
    return readAt(fd, offset, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
}

/**
 * Parse the complete lines of `buf` (read from `file` at byte `base`) into `out`, skipping ids in
 * `seen`; returns how many bytes were consumed (up to the last newline).
 */
function parseInbox(buf: Buffer, file: string, base: number, seen: Set<string>, out: { messages: Message[]; problems: FileProblem[] }): number {
  let pos = 0;
  for (;;) {
    const nl = buf.indexOf(0x0a, pos);
    // Bytes after the last newline are a line still being written: leave them for next time.
    if (nl < 0) break;
    const lineStart = pos;
    const line = buf.subarray(pos, nl).toString('utf8');
    pos = nl + 1;
    if (line.trim() === '') continue;
    let parsed = parseMessage(line);
    if (!parsed.ok) {
      // A writer killed in the middle of a large append leaves bytes with no newline, and the next
      // sender's line is glued onto them: keep that whole message, report the torn part.
      const at = line.lastIndexOf('{"id":"msg-');
      const tail = at > 0 ? parseMessage(line.slice(at)) : null;
      out.problems.push({ path: `${file} (byte ${base + lineStart})`, message: tail?.ok ? 'a torn (partly written) message was skipped' : parsed.message });
      if (!tail?.ok) continue;
      parsed = tail;
    }
    if (seen.has(parsed.msg.id)) continue;
    seen.add(parsed.msg.id);
    out.messages.push(parsed.msg);
  }
  return pos;
}

/** One inbox line as a message, or why it is not one (every backend reads lines this way). */
export function parseMessage(line: string): { ok: true; msg: Message } | { ok: false; message: string } {
  try {
    const checked = checkMessage(JSON.parse(line));
    if (checked.ok) return { ok: true, msg: checked.msg };
    return { ok: false, message: `bad message: ${checked.path || '(top)'}: ${checked.message}` };
  } catch (err) {
    return { ok: false, message: `bad message line: ${(err as Error).message}` };
  }
}
