/**
 * `events.jsonl`: the append-only record of every coordination event (tasks, messages, requests,
 * members). The sidebar's mailbox traffic and any audit read it; nothing ever rewrites a line. Once
 * it passes EVENTS_SEGMENT_BYTES it is sealed into `segments/events.<seq>.jsonl` (store/segments.ts)
 * and the oldest sealed segments beyond EVENTS_KEEP are deleted, so it never grows without bound.
 * EventTail owns a reader's position (segment, byte offset), so a watcher reads each line once,
 * across rotations, and reads only what is new.
 */
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import type { EventType, TeamEvent } from '../protocol/types.js';
import type { EventFeed, EventStore } from './backend.js';
import { appendLine, openForRead, READ_CAPS, readEnd, readText, type FileProblem } from './fsx.js';
import { sealedSeqs, sealIfFull, segmentPath, sizeOf, type SegmentSpec } from './segments.js';

/** The size at which events.jsonl is sealed into a segment ($TEAMUX_EVENTS_SEGMENT_BYTES overrides it, for every writer that has it). */
export const EVENTS_SEGMENT_BYTES = 4 * 1024 * 1024;
/** How many sealed events segments are kept ($TEAMUX_EVENTS_KEEP overrides it). */
export const EVENTS_KEEP = 8;

/** The segment layout of an events file: sealed segments go to `segments/` beside it. */
export function eventSegments(file: string, maxBytes = segmentBytesFromEnv()): SegmentSpec {
  return { file, dir: path.join(path.dirname(file), 'segments'), maxBytes, keep: positiveEnv('TEAMUX_EVENTS_KEEP') ?? EVENTS_KEEP };
}

function segmentBytesFromEnv(): number {
  return positiveEnv('TEAMUX_EVENTS_SEGMENT_BYTES') ?? EVENTS_SEGMENT_BYTES;
}

function positiveEnv(name: string): number | undefined {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** The team's event log. */
export class EventLog implements EventStore {
  private readonly spec: SegmentSpec;

  constructor(private readonly file: string, maxBytes?: number) {
    this.spec = eventSegments(file, maxBytes);
  }

  /** Append one event stamped with the current time; a full log is sealed into a segment after it. */
  async record(type: EventType, fields: Record<string, unknown>): Promise<void> {
    const event: TeamEvent = { time: new Date().toISOString(), type, ...fields };
    await appendLine(this.file, JSON.stringify(event));
    await sealIfFull(this.spec).catch(() => null);
  }

  /** Read events (the kept segments, then the active file), optionally only the last `limit`; bad lines are reported and skipped. */
  async read(limit?: number): Promise<{ events: TeamEvent[]; problems: FileProblem[] }> {
    const files = [...sealedSeqs(this.spec).map((s) => segmentPath(this.spec, s)), this.file];
    const chunks: Array<{ file: string; lines: string[] }> = [];
    let count = 0;
    // Newest first, stopping once `limit` lines are in hand.
    for (const file of files.reverse()) {
      const text = await readText(file, 'log').catch(() => undefined);
      if (text === undefined) continue;
      const lines = text.split('\n');
      // The last piece is empty, or a line still being written: not complete yet.
      lines.pop();
      chunks.unshift({ file, lines });
      count += lines.length;
      if (limit !== undefined && count >= limit) break;
    }
    const out = { events: [] as TeamEvent[], problems: [] as FileProblem[] };
    let skip = limit === undefined ? 0 : Math.max(0, count - limit);
    for (const c of chunks) {
      const from = Math.min(skip, c.lines.length);
      skip -= from;
      const r = parseLines(c.file, c.lines.slice(from), from);
      out.events.push(...r.events);
      out.problems.push(...r.problems);
    }
    return out;
  }
}

/** How much of an existing log a new tail reads: old traffic is not worth megabytes of parsing. */
export const TAIL_START_BYTES = 256 * 1024;

/**
 * How long a sealed segment is still watched for lines appended late: a writer that opened
 * events.jsonl just before the rename and was descheduled before its write() puts its line into the
 * segment. Log shippers keep reading a rotated file the same way (Fluent Bit's rotate_wait, Filebeat's
 * close_inactive). Each late line restarts the wait.
 */
export const LATE_LINE_WAIT_MS = 30_000;
/** At most this many sealed segments are watched for late lines; past it the oldest is let go. */
const LATE_LINE_SEGMENTS = 64;

type Lines = { events: TeamEvent[]; problems: FileProblem[] };

/**
 * Follows the event log across its segments: each `readNew()` returns the complete lines appended
 * since the last call. A line still being written stays for the next call. When the active file has
 * been sealed, the rest of that segment is read and then the next one. Segments sealed in the last
 * LATE_LINE_WAIT_MS are looked at again after every pass, for a line appended late (a writer that
 * opened the file a moment before the rename), and what they gained is returned before the lines of
 * newer segments: each writer's events arrive in the order it wrote them. A log that shrank or was
 * replaced by hand is read again from its start (its last TAIL_START_BYTES).
 */
export class EventTail implements EventFeed {
  // position: the segment being read (its seq; the active file's is one above the highest sealed),
  // the byte after the last complete line read in it, and the active file's inode
  private seq = 0;
  private offset = 0;
  private inode = -1;
  /** Sealed segments read to their end, by seq: how far, and when they last grew (performance.now()). */
  private readonly recent = new Map<number, { offset: number; grewAt: number }>();
  /** Bytes read from disk so far: reading costs what is new, not the size of the log. */
  bytesRead = 0;
  /** False until the first read, which starts at the log's recent tail. */
  private started = false;
  private readonly spec: SegmentSpec;

  constructor(private readonly file: string, private readonly startBytes = TAIL_START_BYTES) {
    this.spec = eventSegments(file);
  }

  /** The complete events appended since the last call (on the first call, the log's recent tail). */
  async readNew(): Promise<Lines> {
    // What each file gave, by segment seq: sorted by seq at the end, so older segments come first.
    const chunks: Array<{ seq: number; lines: Lines }> = [];
    const problems: FileProblem[] = [];
    for (let guard = 0; guard < 10_000; guard++) {
      const sealed = sealedSeqs(this.spec);
      const active = (sealed.at(-1) ?? 0) + 1;
      if (this.seq === 0) this.seq = active;
      if (this.seq < active) {
        if (!sealed.includes(this.seq)) {
          const next = sealed.find((s) => s > this.seq) ?? active;
          problems.push({ path: this.file, message: `events segments ${this.seq}–${next - 1} were deleted before they were read` });
          [this.seq, this.offset, this.inode] = [next, 0, -1];
          continue;
        }
        const r = await this.readFrom(segmentPath(this.spec, this.seq), this.offset);
        if (r) chunks.push({ seq: this.seq, lines: r });
        this.recent.set(this.seq, { offset: r?.next ?? this.offset, grewAt: performance.now() });
        [this.seq, this.offset, this.inode] = [this.seq + 1, 0, -1];
        continue;
      }
      const r = await this.readActive();
      if (r === 'sealed') continue;
      chunks.push({ seq: this.seq, lines: r });
      break;
    }
    // Then the recently sealed segments, newest first: a writer's late line in an older segment was
    // written before anything it wrote to a newer one, so whatever was read above, its late lines
    // are on disk by now and are found here.
    await this.readLateLines(chunks);
    chunks.sort((a, b) => a.seq - b.seq);
    const out: Lines = { events: [], problems: [] };
    for (const c of chunks) {
      out.events.push(...c.lines.events);
      out.problems.push(...c.lines.problems);
    }
    out.problems.push(...problems);
    return out;
  }

  /** Read what the recently sealed segments gained since they were read, and let go of quiet ones. */
  private async readLateLines(chunks: Array<{ seq: number; lines: Lines }>): Promise<void> {
    const now = performance.now();
    const seqs = [...this.recent.keys()].sort((a, b) => b - a);
    for (const [i, seq] of seqs.entries()) {
      const at = this.recent.get(seq)!;
      const file = segmentPath(this.spec, seq);
      const size = sizeOf(file);
      if (size > at.offset) {
        const r = await this.readFrom(file, at.offset);
        if (r && r.next > at.offset) {
          chunks.push({ seq, lines: r });
          [at.offset, at.grewAt] = [r.next, now];
          continue;
        }
      }
      // Deleted (past the keep count), quiet for long enough, or one too many to watch.
      if (size < 0 || now - at.grewAt > LATE_LINE_WAIT_MS || i >= LATE_LINE_SEGMENTS) this.recent.delete(seq);
    }
  }

  /** Read the active file from the position; 'sealed' when it turned out to have been sealed meanwhile. */
  private async readActive(): Promise<Lines | 'sealed'> {
    let fh: FileHandle;
    try {
      fh = await openForRead(this.file);
    } catch (err) {
      // Missing: not written yet, or sealed a moment ago; the next file is read from its start.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.started = true;
        return { events: [], problems: [] };
      }
      throw err;
    }
    try {
      // Opened after a rename? Then this file is the next segment: go round again.
      if (sealedSeqs(this.spec).includes(this.seq)) return 'sealed';
      const { size, ino } = await fh.stat();
      // The reader's first look, and a log replaced or cut by hand, start at the recent tail.
      let limit = Infinity;
      if (!this.started) [limit, this.started] = [this.startBytes, true];
      else if ((this.inode !== -1 && ino !== this.inode) || size < this.offset) [limit, this.offset] = [this.startBytes, 0];
      this.inode = ino;
      const r = await readLines(fh, this.file, this.offset, size, limit);
      this.offset = r.next;
      this.bytesRead += r.bytes;
      return r;
    } finally {
      await fh.close();
    }
  }

  private async readFrom(file: string, offset: number): Promise<(Lines & { next: number }) | null> {
    let fh: FileHandle;
    try {
      fh = await openForRead(file);
    } catch {
      return null;
    }
    try {
      const { size } = await fh.stat();
      const r = await readLines(fh, file, offset, size, Infinity);
      this.bytesRead += r.bytes;
      return r;
    } finally {
      await fh.close();
    }
  }
}

/**
 * The complete lines of an open file between `offset` and `size`. When reading from the start of a
 * file longer than `startBytes`, only its last `startBytes` are read, beginning one byte early so the
 * partial line before the cut is recognised (and dropped) even when the cut falls on a line start.
 */
async function readLines(fh: FileHandle, file: string, offset: number, size: number, startBytes: number): Promise<{ events: TeamEvent[]; problems: FileProblem[]; next: number; bytes: number }> {
  if (size <= offset) return { events: [], problems: [], next: offset, bytes: 0 };
  const cut = offset === 0 ? Math.max(0, size - startBytes) : offset;
  const from = cut > 0 && offset === 0 ? cut - 1 : cut;
  // At most READ_CAPS.log bytes at once (the rest is read on the next call).
  const buf = Buffer.alloc(readEnd(from, size) - from);
  const { bytesRead } = await fh.read(buf, 0, buf.length, from);
  let text = buf.subarray(0, bytesRead);
  const end = text.lastIndexOf(0x0a);
  // A line longer than that (planted by hand) is passed over, so that it cannot stop the log for good.
  if (end < 0 && bytesRead === READ_CAPS.log) return { events: [], problems: [{ path: file, message: `a line longer than ${READ_CAPS.log} bytes was skipped` }], next: from + bytesRead, bytes: bytesRead };
  if (end < 0) return { events: [], problems: [], next: offset, bytes: bytesRead };
  const next = from + end + 1;
  text = text.subarray(0, end);
  if (from < cut) {
    const firstNl = text.indexOf(0x0a);
    text = firstNl < 0 ? text.subarray(0, 0) : text.subarray(firstNl + 1);
  }
  return { ...parseLines(file, text.length === 0 ? [] : text.toString('utf8').split('\n')), next, bytes: bytesRead };
}

/** Parse event lines; `firstLine` (0-based) makes a problem name its line in the file. */
function parseLines(file: string, lines: string[], firstLine?: number): { events: TeamEvent[]; problems: FileProblem[] } {
  const events: TeamEvent[] = [];
  const problems: FileProblem[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const ev = JSON.parse(line) as TeamEvent;
      if (typeof ev !== 'object' || ev === null || typeof ev.type !== 'string') throw new Error('not an event object');
      events.push(ev);
    } catch (err) {
      problems.push({ path: firstLine === undefined ? file : `${file}:${firstLine + i + 1}`, message: `bad event line: ${(err as Error).message}` });
    }
  });
  return { events, problems };
}

/** True for the file name of a sealed events segment (`events.000001.jsonl` under segments/). */
export function isEventSegment(name: string): boolean {
  return /^events\.[0-9]{6,}\.jsonl$/.test(name);
}
