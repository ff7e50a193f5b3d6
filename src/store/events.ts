/**
 * `events.jsonl`: the append-only record of every coordination event (tasks, messages, requests,
 * members). The sidebar's mailbox traffic and any audit read it; nothing ever rewrites it.
 * EventTail owns a reader's byte offset into the log, so a watcher reads each appended line once.
 */
import type { FileHandle } from 'node:fs/promises';
import type { EventType, TeamEvent } from '../protocol/types.js';
import { appendLine, openForRead, readText, type FileProblem } from './fsx.js';

/** The team's event log. */
export class EventLog {
  constructor(private readonly file: string) {}

  /** Append one event stamped with the current time. */
  async record(type: EventType, fields: Record<string, unknown>): Promise<void> {
    const event: TeamEvent = { time: new Date().toISOString(), type, ...fields };
    await appendLine(this.file, JSON.stringify(event));
  }

  /** Read events, optionally only the last `limit`; bad lines are reported and skipped. */
  async read(limit?: number): Promise<{ events: TeamEvent[]; problems: FileProblem[] }> {
    const text = await readText(this.file);
    if (text === undefined) return { events: [], problems: [] };
    const lines = text.split('\n');
    // The last piece is empty, or a line still being written: not complete yet.
    lines.pop();
    const from = limit === undefined ? 0 : Math.max(0, lines.length - limit);
    return parseLines(this.file, lines.slice(from), from);
  }
}

/** How much of an existing log a new tail reads: old traffic is not worth megabytes of parsing. */
export const TAIL_START_BYTES = 256 * 1024;

/**
 * Follows the event log: each `readNew()` returns the complete lines appended since the last call.
 * A line still being written stays for the next call; a log that shrank or was replaced is read
 * again from its start (its last TAIL_START_BYTES).
 */
export class EventTail {
  // position: the byte after the last complete line read, and the file it belongs to
  private offset = 0;
  private inode = -1;

  constructor(private readonly file: string, private readonly startBytes = TAIL_START_BYTES) {}

  /** The complete events appended since the last call (on the first call, the log's recent tail). */
  async readNew(): Promise<{ events: TeamEvent[]; problems: FileProblem[] }> {
    let fh: FileHandle;
    try {
      fh = await openForRead(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], problems: [] };
      throw err;
    }
    try {
      const { size, ino } = await fh.stat();
      if (ino !== this.inode || size < this.offset) {
        this.inode = ino;
        this.offset = 0;
      }
      if (size === this.offset) return { events: [], problems: [] };
      // A first read that starts inside the log begins one byte early, so the partial line before
      // the cut is recognised (and dropped) even when the cut falls exactly on a line start.
      const cut = this.offset === 0 ? Math.max(0, size - this.startBytes) : this.offset;
      const from = cut > 0 && this.offset === 0 ? cut - 1 : cut;
      const buf = Buffer.alloc(size - from);
      const { bytesRead } = await fh.read(buf, 0, buf.length, from);
      let text = buf.subarray(0, bytesRead);
      const end = text.lastIndexOf(0x0a);
      if (end < 0) return { events: [], problems: [] };
      this.offset = from + end + 1;
      text = text.subarray(0, end);
      if (from < cut) {
        const first = text.indexOf(0x0a);
        text = first < 0 ? text.subarray(0, 0) : text.subarray(first + 1);
      }
      return parseLines(this.file, text.length === 0 ? [] : text.toString('utf8').split('\n'));
    } finally {
      await fh.close();
    }
  }
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
