/**
 * Segments of the team folder's append-only logs. A log (events.jsonl, teamux.log) is appended to
 * under its own name until it passes its size limit; then one writer, holding the log's lock, renames
 * it to `segments/<name>.<seq>.<ext>` (seq: six or more digits, counting up from 000001) and the next
 * append starts a fresh file under the log's name. The oldest sealed segments beyond the log's keep
 * count are deleted. A reader that follows a log keeps (segment seq, byte offset); the active file's
 * seq is one more than the highest sealed one. See docs/protocol.md §3.6.1.
 */
import { readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { ensureDir } from './fsx.js';
import { segmentName } from './unread-peek.js';

/** How one log is cut into segments. */
export interface SegmentSpec {
  /** The active file, e.g. `<team>/events.jsonl`. */
  file: string;
  /** The folder of sealed segments (`<team>/segments`). */
  dir: string;
  /** Seal the active file once it is at least this large. */
  maxBytes: number;
  /** How many sealed segments to keep. */
  keep: number;
}

/** `events.jsonl` → ['events', '.jsonl']. */
function parts(file: string): [string, string] {
  const base = path.basename(file);
  const dot = base.indexOf('.');
  return dot < 0 ? [base, ''] : [base.slice(0, dot), base.slice(dot)];
}

/** The path of sealed segment `seq` of a log. */
export function segmentPath(spec: Pick<SegmentSpec, 'file' | 'dir'>, seq: number): string {
  const [stem, ext] = parts(spec.file);
  return path.join(spec.dir, segmentName(stem, seq, ext));
}

/** The seqs of a log's sealed segments, lowest first (empty when there are none). */
export function sealedSeqs(spec: Pick<SegmentSpec, 'file' | 'dir'>): number[] {
  const [stem, ext] = parts(spec.file);
  const re = new RegExp(`^${stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.([0-9]{6,})${ext.replace(/\./g, '\\.')}$`);
  let names: string[];
  try {
    names = readdirSync(spec.dir);
  } catch {
    return [];
  }
  const seqs: number[] = [];
  for (const n of names) {
    const m = re.exec(n);
    if (m) seqs.push(Number(m[1]));
  }
  return seqs.sort((a, b) => a - b);
}

/** The size of a file, or -1 when it is missing. */
export function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return -1;
  }
}

/**
 * Seal the active file when it has reached its limit: rename it to the next segment and delete the
 * oldest beyond `keep`. Only one process does it (the log's lock; a busy lock means another is
 * sealing). Returns the seq sealed, or null.
 */
export async function sealIfFull(spec: SegmentSpec): Promise<number | null> {
  if (sizeOf(spec.file) < spec.maxBytes) return null;
  // The lock module (proper-lockfile) is loaded only when a file is full: readers never need it.
  const { tryWithLock } = await import('./lock.js');
  const r = await tryWithLock(spec.file, async () => {
    // Checked again under the lock: another writer may have sealed it a moment ago.
    if (sizeOf(spec.file) < spec.maxBytes) return null;
    await ensureDir(spec.dir);
    const seqs = sealedSeqs(spec);
    const seq = (seqs.at(-1) ?? 0) + 1;
    // The oldest go first, so nobody listing the folder ever sees more than `keep` segments.
    for (const old of seqs.slice(0, Math.max(0, seqs.length + 1 - spec.keep))) rmSync(segmentPath(spec, old), { force: true });
    renameSync(spec.file, segmentPath(spec, seq));
    return seq;
  });
  return r ?? null;
}
