/**
 * Inboxes: one append-only JSONL file per member under `inboxes/`. Each reader keeps a cursor (a byte
 * offset and the ids it has seen) in its own file. Reading never deletes anything: `unread()` returns
 * messages past the cursor and `commit()` moves it, so a reader that crashes between the two gets the
 * same messages again, and a message appended twice is delivered once.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Message, type MessageType } from '../protocol/types.js';
import { appendLine, ensureDir, openForRead, parseJson, readText, writeJson, type FileProblem } from './fsx.js';
import type { InboxStore } from './backend.js';
import type { TeamPaths } from './paths.js';
import { waitOnFolder } from './watch.js';

/** How many delivered ids a cursor remembers for de-duplication. */
const SEEN_LIMIT = 2_000;
/** The largest message accepted, in bytes of its JSON line. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/** A reader's position in one inbox. */
export interface Cursor {
  offset: number;
  seen: string[];
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

/** The inboxes of one team folder (member checks happen in TeamStore, which knows the roster). */
export class Mailbox implements InboxStore {
  private dirReady = false;

  constructor(private readonly paths: TeamPaths) {}

  /** Build a message with a fresh id and the current time. */
  compose(out: Outgoing): Message {
    const msg: Message = { id: `msg-${randomUUID()}`, from: out.from, to: out.to, type: out.type, text: out.text ?? '', time: new Date().toISOString() };
    if (out.payload !== undefined) msg.payload = out.payload;
    if (out.request_id !== undefined) msg.request_id = out.request_id;
    return msg;
  }

  /** Append a message to its recipient's inbox (one O_APPEND write). */
  async deliver(msg: Message): Promise<void> {
    const line = JSON.stringify(Message.parse(msg));
    if (Buffer.byteLength(line) > MAX_MESSAGE_BYTES) throw new RangeError(`message is larger than ${MAX_MESSAGE_BYTES} bytes`);
    if (!this.dirReady) {
      await ensureDir(this.paths.inboxes);
      this.dirReady = true;
    }
    await appendLine(this.paths.inbox(msg.to), line);
  }

  /** The reader's cursor for `member`'s inbox. */
  async cursor(member: string, reader: string): Promise<Cursor> {
    const file = this.paths.cursor(member, reader);
    const text = await readText(file);
    if (text === undefined) return { offset: 0, seen: [] };
    const json = parseJson(file, text);
    const v = json.ok ? (json.value as Partial<Cursor>) : {};
    if (typeof v.offset !== 'number' || !Array.isArray(v.seen)) return { offset: 0, seen: [] };
    return { offset: v.offset, seen: v.seen.filter((s): s is string => typeof s === 'string') };
  }

  /** Messages in `member`'s inbox past `reader`'s cursor; complete lines only, duplicates dropped. */
  async unread(member: string, reader: string = member): Promise<Unread> {
    const cursor = await this.cursor(member, reader);
    const file = this.paths.inbox(member);
    let buf: Buffer;
    try {
      const fh = await openForRead(file);
      try {
        const { size } = await fh.stat();
        // A cursor past the end means the file was replaced by hand: start over; ids de-duplicate.
        const start = cursor.offset <= size ? cursor.offset : 0;
        buf = Buffer.alloc(size - start);
        if (buf.length > 0) await fh.read(buf, 0, buf.length, start);
        cursor.offset = start;
      } finally {
        await fh.close();
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { messages: [], next: cursor, problems: [] };
      throw err;
    }
    const seen = new Set(cursor.seen);
    const messages: Message[] = [];
    const problems: FileProblem[] = [];
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
        problems.push({ path: `${file} (byte ${cursor.offset + lineStart})`, message: tail?.ok ? 'a torn (partly written) message was skipped' : parsed.message });
        if (!tail?.ok) continue;
        parsed = tail;
      }
      if (seen.has(parsed.msg.id)) continue;
      seen.add(parsed.msg.id);
      messages.push(parsed.msg);
    }
    const ids = [...cursor.seen, ...messages.map((m) => m.id)];
    return { messages, next: { offset: cursor.offset + pos, seen: ids.slice(-SEEN_LIMIT) }, problems };
  }

  /** Move the reader's cursor once its messages are handled. */
  async commit(member: string, reader: string, next: Cursor): Promise<void> {
    await ensureDir(this.paths.inboxes);
    await writeJson(this.paths.cursor(member, reader), next);
  }

  /** Read and commit in one step (the CLI's `inbox read`). */
  async read(member: string, reader: string = member): Promise<Unread> {
    const r = await this.unread(member, reader);
    if (r.next.offset !== (await this.cursor(member, reader)).offset || r.messages.length > 0) await this.commit(member, reader, r.next);
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

function parseMessage(line: string): { ok: true; msg: Message } | { ok: false; message: string } {
  try {
    const parsed = Message.safeParse(JSON.parse(line));
    if (parsed.success) return { ok: true, msg: parsed.data };
    const issue = parsed.error.issues[0]!;
    return { ok: false, message: `bad message: ${issue.path.join('.') || '(top)'}: ${issue.message}` };
  } catch (err) {
    return { ok: false, message: `bad message line: ${(err as Error).message}` };
  }
}
