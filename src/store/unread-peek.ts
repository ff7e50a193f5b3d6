/**
 * "Nothing unread" without the store: whether a member's own inbox cursor has every byte of its
 * inbox behind it, read from the cursor log's last whole record by a pattern (CURSOR_RECORD) and from
 * file sizes, with no JSON parse and no module beyond node:fs, node:path and the store's plain reader (read-regular.cts). The Stop hook's fast
 * forms decide by it: its one-file CommonJS entry bundles this file (agents/claude/stop-fast.cts),
 * and its Perl form is written from the same pattern and segment names (agents/claude/stop-perl.ts).
 * The store's own reading (cursor-log.ts, inbox.ts) is the full rule; test/store/cursor-log.test.ts
 * holds all three to the same answers. Any doubt is "not nothing": the full hook decides.
 */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { readRegularSync } from '../store/read-regular.cjs';

/**
 * A whole record of a cursor log (store/cursor-log.ts), position first; the ids are held to plain
 * strings so that a line this matches is always one the store reads too. Written into the Perl form
 * as it is (its source has no `/`, `@` or `$` but the last).
 */
export const CURSOR_RECORD = /^\{"seq":(\d+),"offset":(\d+)(?:,"sealed":\{"seq":(\d+),"offset":(\d+)\})?,"(?:add|seen)":\[(?:"[^"\\\n]*"(?:,"[^"\\\n]*")*)?\]\}$/gm;

/** Digits of a sealed segment's seq in its file name (`<stem>.000001.jsonl`, store/segments.ts). */
export const SEGMENT_DIGITS = 6;

/** The file name of sealed segment `seq` of a log named `stem` + `ext`. */
export function segmentName(stem: string, seq: number, ext: string): string {
  return `${stem}.${String(seq).padStart(SEGMENT_DIGITS, '0')}${ext}`;
}

/** A file's size, or -1 when it is missing. */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return -1;
  }
}

/**
 * True when `member`'s own cursor has every byte of its inbox behind it: the cursor's segment is the
 * active file (no sealed segment has its seq), the segment sealed last has nothing past what was read
 * of it, and the active file is no longer than the cursor's offset. Any doubt (an old-format cursor
 * with segments, a cursor that does not read) is false: the full hook decides.
 */
export function nothingUnread(dir: string, member: string): boolean {
  const inboxes = path.join(dir, 'inboxes');
  // No cursor: nothing read yet. One that cannot be read (a FIFO, a link, too large): the full hook decides.
  const cursorFile = path.join(inboxes, `${member}.cursor.${member}.json`);
  let text = '';
  try {
    const r = readRegularSync(cursorFile, 'record');
    if (r && !('text' in r)) return false;
    text = r?.text ?? '';
  } catch {
    return false;
  }
  let seq = 1;
  let offset = 0;
  let sealed: [number, number] | null = null;
  if (text.startsWith('{\n')) {
    // A cursor from before the log: the full hook reads one that names segments.
    if (/"(?:seq|sealed)"/.test(text)) return false;
    offset = Number(/"offset"\s*:\s*(\d+)/.exec(text)?.[1] ?? 0);
  } else {
    for (const m of text.matchAll(CURSOR_RECORD)) {
      seq = Number(m[1]);
      offset = Number(m[2]);
      sealed = m[3] === undefined ? null : [Number(m[3]), Number(m[4])];
    }
  }
  const segment = (n: number): string => path.join(dir, 'segments', 'inboxes', segmentName(member, n, '.jsonl'));
  if (sizeOf(segment(seq)) >= 0) return false;
  if (sealed && sizeOf(segment(sealed[0])) > sealed[1]) return false;
  return Math.max(0, sizeOf(path.join(inboxes, `${member}.jsonl`))) <= offset;
}
