/**
 * The one way a team file is read whole: opened O_NOFOLLOW | O_NONBLOCK (a link is not followed and a
 * planted FIFO neither hangs the reader nor waits for a writer), fstat'ed to be a regular file, and
 * read only when it is no larger than the cap for its kind, so a file made huge by hand (or a device
 * behind a name) cannot balloon the reader's memory. The caps are the table below, documented in
 * docs/protocol.md §2; the Perl fast hooks are generated with the same numbers (claude/perl-read.ts).
 *
 * CommonJS with nothing but node:fs, so the Stop hook's fast entry (claude/stop-fast.cts) reads with
 * it too; the store's ES modules use it through store/team-read.ts, which turns a refusal into an
 * UnsafePathError naming the file.
 */
import { closeSync, constants as fsc, fstatSync, openSync, readSync } from 'node:fs';

const MiB = 1024 * 1024;

/**
 * The most bytes a team file of each kind may have to be read (docs/protocol.md §2):
 * - roster: team.json (a few hundred members' records at most);
 * - record: one JSON record (a task, a request, a cursor, a heartbeat, an activity or spawn file, a
 *   trust file, a marker): its fields are limited at write (protocol/limits.ts), with room to spare;
 * - log: a JSONL file read whole (a member's usage log, an agent transcript), and the most read at once
 *   from an append-only log (inboxes, events.jsonl, the task index) that is read on from an offset.
 */
export const READ_CAPS = { roster: 4 * MiB, record: 16 * MiB, log: 64 * MiB } as const;

/** The kinds of team file, by cap. */
export type ReadKind = keyof typeof READ_CAPS;

/** Why a file was not read: a link, not a regular file (FIFO, device, folder), or over its cap. */
export type ReadRefusal = { why: 'link' } | { why: 'special' } | { why: 'large'; size: number; cap: number };

/** The text of `file`, undefined when it is missing, or the refusal; other errors (EACCES) are thrown. */
export function readRegularSync(file: string, kind: ReadKind): { text: string } | ReadRefusal | undefined {
  const opened = openRegularSync(file);
  if (typeof opened !== 'number') return opened;
  try {
    const cap = READ_CAPS[kind];
    const size = fstatSync(opened).size;
    if (size > cap) return { why: 'large', size, cap };
    // Read to the end (a file that grew after the fstat is read whole), but never past the cap.
    let buf = Buffer.allocUnsafe(size + 1);
    let got = 0;
    for (;;) {
      if (got === buf.length) {
        if (got > cap) return { why: 'large', size: got, cap };
        const more = Buffer.allocUnsafe(Math.min(cap + 1, buf.length * 2));
        buf.copy(more, 0, 0, got);
        buf = more;
      }
      const n = readSync(opened, buf, got, buf.length - got, null);
      if (n === 0) break;
      got += n;
    }
    return { text: buf.toString('utf8', 0, got) };
  } finally {
    closeSync(opened);
  }
}

/** A descriptor of `file` opened for reading (a regular file, no link followed), undefined when missing, or the refusal. */
export function openRegularSync(file: string): number | ReadRefusal | undefined {
  let fd: number;
  try {
    fd = openSync(file, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') return { why: 'link' };
    if (code === 'ENXIO') return { why: 'special' };
    throw err;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    return { why: 'special' };
  }
  return fd;
}

/** The words for a refusal, after the file's name. */
export function refusalText(r: ReadRefusal): string {
  if (r.why === 'link') return 'is a symbolic link';
  if (r.why === 'special') return 'is not a regular file (a FIFO, a device or a folder)';
  return `is ${r.size} bytes, more than the ${r.cap} bytes teamux reads of such a file`;
}
