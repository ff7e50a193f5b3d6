/**
 * UsageTail: a reader's running copy of the members' usage logs (`usage/<member>.jsonl`, one record
 * per model call, store/usage.ts). It keeps, per member, the byte offset after the last complete
 * line it read and the file's inode, so each read costs only what was appended since; a log that was
 * replaced or cut is read again from its start. Records older than the longest window the reader
 * cares about are dropped, so memory follows the window, not the log. The sidebar's budget line
 * (store/team-watch.ts) reads spend through this; nothing here knows about budgets' rules.
 */
import type { FileHandle } from 'node:fs/promises';
import type { UsageLike } from '../protocol/budget.js';
import { openForRead, readEnd } from './fsx.js';
import type { TeamPaths } from './paths.js';
import { UsageRecord } from './usage.js';

/** Where a member's log was read up to. */
interface Position {
  offset: number;
  inode: number;
}

/** The usage records of a team's members, kept current by reading only what each log gained. */
export class UsageTail {
  // position per member log, and the records read (oldest first) still inside the kept span
  private readonly positions = new Map<string, Position>();
  private readonly records = new Map<string, UsageLike[]>();
  /** Records before this time have been dropped (-Infinity: none). */
  private keptSince = -Infinity;
  /** Bytes read from disk so far: what reading cost. */
  bytesRead = 0;
  /** Lines that did not parse as usage records, skipped. */
  badLines = 0;

  constructor(private readonly paths: TeamPaths) {}

  /** Read what `member`'s log gained since the last read; true when records were added or dropped. */
  async readNew(member: string): Promise<boolean> {
    const file = this.paths.usageLog(member);
    let fh: FileHandle;
    try {
      fh = await openForRead(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      // No log (yet, or removed): nothing spent.
      const had = (this.records.get(member)?.length ?? 0) > 0;
      this.positions.delete(member);
      this.records.delete(member);
      return had;
    }
    try {
      const { size, ino } = await fh.stat();
      let pos = this.positions.get(member) ?? { offset: 0, inode: ino };
      let changed = false;
      // A log replaced (another inode) or cut (shorter than what was read) is read again from its start.
      if (pos.inode !== ino || size < pos.offset) {
        pos = { offset: 0, inode: ino };
        changed = (this.records.get(member)?.length ?? 0) > 0;
        this.records.delete(member);
      }
      if (size > pos.offset) {
        // At most READ_CAPS.log bytes at once (a log made huge by hand costs no more memory than that).
        const buf = Buffer.alloc(readEnd(pos.offset, size) - pos.offset);
        const { bytesRead } = await fh.read(buf, 0, buf.length, pos.offset);
        this.bytesRead += bytesRead;
        const end = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
        // Only complete lines: a line still being written is read once its newline is there.
        if (end >= 0) {
          const added = this.parse(buf.subarray(0, end).toString('utf8'));
          if (added.length) {
            const list = this.records.get(member);
            if (list) for (const r of added) list.push(r);
            else this.records.set(member, added);
            changed = true;
          }
          pos = { offset: pos.offset + end + 1, inode: ino };
        }
      }
      this.positions.set(member, pos);
      return changed;
    } finally {
      await fh.close();
    }
  }

  /** The records of `member` read so far (oldest first, as appended). */
  usage(member: string): readonly UsageLike[] {
    return this.records.get(member) ?? [];
  }

  /**
   * Keep the records at or after `sinceMs` (the start of the longest window asked about) and drop
   * older ones. When an earlier start is asked for than was kept (a window grew), everything is
   * forgotten so the next reads start the logs over; returns true then.
   */
  keep(sinceMs: number): boolean {
    if (sinceMs < this.keptSince) {
      this.positions.clear();
      this.records.clear();
      this.keptSince = sinceMs;
      return true;
    }
    this.keptSince = sinceMs;
    for (const [member, list] of this.records) {
      const kept = list.filter((r) => Date.parse(r.time) >= sinceMs);
      if (kept.length !== list.length) this.records.set(member, kept);
    }
    return false;
  }

  /** Forget a member (it left the roster). */
  forget(member: string): void {
    this.positions.delete(member);
    this.records.delete(member);
  }

  private parse(text: string): UsageLike[] {
    const out: UsageLike[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        this.badLines++;
        continue;
      }
      const r = UsageRecord.safeParse(json);
      if (r.success && Number.isFinite(Date.parse(r.data.time))) out.push(r.data);
      else this.badLines++;
    }
    return out;
  }
}
