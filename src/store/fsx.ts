/**
 * File primitives for the team folder: atomic replace (temp file, fsync, rename), append-only JSONL
 * lines, and folders and files created with owner-only permissions (0700 / 0600). Every writer in
 * the store goes through these, so a crash or SIGKILL leaves either the old file or the new one,
 * never half of one.
 *
 * Nothing here follows a symbolic link. A teammate's bash can plant one (inboxes/x.jsonl pointing at
 * ~/.bashrc, or inboxes/ itself pointing elsewhere) to make teamux write outside the team folder:
 * files are opened with O_NOFOLLOW, the folder a file sits in must be a real folder (lstat), and a
 * rename onto a link is refused. The team folder itself is resolved (realpath) when a store opens it.
 */
import { closeSync, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, promises as fsp, readSync, renameSync, rmSync, statSync, constants as fsc, writeSync, type Stats } from 'node:fs';
import * as path from 'node:path';
import { pidAlive, processStartTime } from './liveness.js';
import { openRegularSync, READ_CAPS, readRegularSync, refusalText, type ReadKind, type ReadRefusal } from '../store/read-regular.cjs';
import { redact } from './redact.js';

export { READ_CAPS, type ReadKind } from '../store/read-regular.cjs';

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;
const NOFOLLOW = fsc.O_NOFOLLOW;

/** A path in the team folder is a symbolic link or not the kind of file expected: refused, never followed. */
export class UnsafePathError extends Error {
  readonly hint: string;
  constructor(readonly path: string, what: string) {
    super(`${path} ${what}; teamux neither follows links nor reads special files in the team folder`);
    this.hint = `remove it (rm ${JSON.stringify(path)}) and run the command again; someone with access to the folder planted it`;
  }
}

/** Throw UnsafePathError unless `dir` is a real folder (not a link); a missing folder is fine. */
export function checkFolderSync(dir: string): void {
  const st = lstatOrNull(dir);
  if (!st) return;
  if (st.isSymbolicLink()) throw new UnsafePathError(dir, 'is a symbolic link');
  if (!st.isDirectory()) throw new UnsafePathError(dir, 'is not a folder');
}

/** Throw UnsafePathError if `file` exists as a symbolic link (or another non-regular file). */
export function checkFileSync(file: string): void {
  const st = lstatOrNull(file);
  if (!st) return;
  if (st.isSymbolicLink()) throw new UnsafePathError(file, 'is a symbolic link');
  if (!st.isFile()) throw new UnsafePathError(file, 'is not a regular file');
}

/** lstat without following a link; null when nothing is there. */
function lstatOrNull(where: string): Stats | null {
  try {
    return lstatSync(where);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Turn the ELOOP of an O_NOFOLLOW open (or the ENXIO of a non-blocking FIFO open) into UnsafePathError. */
function linkRefused(file: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return new UnsafePathError(file, 'is a symbolic link');
  if (code === 'ENXIO') return new UnsafePathError(file, 'is not a regular file');
  return err;
}

/** Turn a reader's refusal into the UnsafePathError that names the file. */
function refused(file: string, r: ReadRefusal): UnsafePathError {
  return r.why === 'large' ? new FileTooLargeError(file, refusalText(r)) : new UnsafePathError(file, refusalText(r));
}

/** A team file over the size cap of its kind (READ_CAPS): refused, never read. */
export class FileTooLargeError extends UnsafePathError {
  constructor(path: string, what: string) {
    super(path, what);
    this.message = `${path} ${what}`;
    Object.assign(this, { hint: `someone with access to the team folder made it this large; remove it (rm ${JSON.stringify(path)}) or restore it from a good copy` });
  }
}

/**
 * Open a file for reading without following a link in its name or its folder, and only a regular
 * file (O_NONBLOCK: a planted FIFO must not hang the reader). For files read on from an offset
 * (logs); a file read whole goes through readText / readTextSync, which also cap its size.
 */
export async function openForRead(file: string): Promise<fsp.FileHandle> {
  checkFolderSync(path.dirname(file));
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(file, fsc.O_RDONLY | NOFOLLOW | fsc.O_NONBLOCK);
  } catch (err) {
    throw linkRefused(file, err);
  }
  if (!(await fh.stat()).isFile()) {
    await fh.close();
    throw new UnsafePathError(file, refusalText({ why: 'special' }));
  }
  return fh;
}

/** openForRead's synchronous form: a file descriptor to close with closeSync (ENOENT is thrown as it is). */
export function openForReadSync(file: string): number {
  checkFolderSync(path.dirname(file));
  const fd = openRegularSync(file);
  if (fd === undefined) throw Object.assign(new Error(`ENOENT: no such file, open '${file}'`), { code: 'ENOENT' });
  if (typeof fd !== 'number') throw refused(file, fd);
  return fd;
}

/**
 * Read a team file whole, synchronously: no link, a regular file only, at most READ_CAPS[kind]
 * bytes (store/read-regular.cts); undefined when missing, UnsafePathError naming it otherwise.
 */
export function readTextSync(file: string, kind: ReadKind): string | undefined {
  checkFolderSync(path.dirname(file));
  const r = readRegularSync(file, kind);
  if (r === undefined) return undefined;
  if ('text' in r) return r.text;
  throw refused(file, r);
}

/** The end of what a reader of a log takes at once from `offset` (at most READ_CAPS.log bytes). */
export function readEnd(offset: number, size: number): number {
  return Math.min(size, offset + READ_CAPS.log);
}

/** The names in a folder (empty when it does not exist); the folder must be a real one. */
export async function listFolder(dir: string): Promise<string[]> {
  checkFolderSync(dir);
  try {
    return await fsp.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Create a folder (and parents) with mode 0700; it must end up a real folder, not a link. */
export async function ensureDir(dir: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true, mode: DIR_MODE });
  checkFolderSync(dir);
}

/** ensureDir's synchronous form, for the CLI's short paths (no thread-pool round trip). */
export function ensureDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  checkFolderSync(dir);
}

/** This process's kernel start time: with the pid, it names the writer of a temp file unambiguously. */
const OWN_START = processStartTime(process.pid) ?? 0;
/** `.<file>.<pid>-<start>.<random>.tmp` (and the older `.<file>.<pid>.<random>.tmp`). */
const TEMP_NAME = /^\..+\.([1-9][0-9]*)(?:-([0-9]+))?\.[0-9a-f]{8}\.tmp$/;

/** The temp file atomicWrite uses for `file`: beside it, named with the writer's pid and start time. */
export function tempPathFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}-${OWN_START}.${randomHex4()}.tmp`);
}

/** Unused random bytes for temp names, read from /dev/urandom a block at a time. */
const entropy = { pool: Buffer.alloc(256), left: 0 };

/**
 * Four random bytes as hex. Read from /dev/urandom rather than with node:crypto, whose loading costs
 * a short CLI call (a claim, an inbox read) several milliseconds; Web Crypto where there is no such file.
 */
function randomHex4(): string {
  if (entropy.left < 4) {
    try {
      const fd = openSync('/dev/urandom', fsc.O_RDONLY);
      try {
        entropy.left = readSync(fd, entropy.pool, 0, entropy.pool.length, null);
      } finally {
        closeSync(fd);
      }
    } catch {
      entropy.left = 0;
    }
    if (entropy.left < 4) return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(4))).toString('hex');
  }
  entropy.left -= 4;
  return entropy.pool.toString('hex', entropy.left, entropy.left + 4);
}

/**
 * Remove the temp files in `dirs` whose writer is gone (killed between creating and renaming them);
 * a temp file of a live writer is left alone. Returns the paths removed.
 */
export async function sweepTempFiles(dirs: string[]): Promise<string[]> {
  const removed: string[] = [];
  // The folders are listed at once (one thread-pool round trip, not one per folder).
  const listed = await Promise.all(dirs.map((dir) => listFolder(dir)));
  for (const [i, dir] of dirs.entries()) {
    for (const name of listed[i]!) {
      const m = TEMP_NAME.exec(name);
      if (!m) continue;
      const start = m[2] === undefined ? null : Number(m[2]);
      if (pidAlive(Number(m[1]), start === 0 ? null : start)) continue;
      const file = path.join(dir, name);
      const st = await fsp.lstat(file).catch(() => null);
      if (!st?.isFile()) continue;
      await fsp.rm(file, { force: true });
      removed.push(file);
    }
  }
  return removed;
}

/** Replace `file` with `data` atomically (secrets redacted): write a temp file beside it, flush it, rename it over. */
export async function atomicWrite(file: string, text: string): Promise<void> {
  const data = redact(text);
  checkFolderSync(path.dirname(file));
  const tmp = tempPathFor(file);
  // O_EXCL never follows a link: a planted temp name fails instead of being written through.
  const fh = await fsp.open(tmp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | NOFOLLOW, FILE_MODE);
  try {
    await fh.writeFile(data, 'utf8');
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  try {
    // rename replaces a link rather than writing through it, but a link there was planted: refuse.
    checkFileSync(file);
    await fsp.rename(tmp, file);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
}

/** Write JSON atomically, pretty-printed with a trailing newline. */
export async function writeJson(file: string, value: unknown): Promise<void> {
  await atomicWrite(file, JSON.stringify(value, null, 2) + '\n');
}

/**
 * atomicWrite's synchronous form, with the same guarantees (temp file beside it, O_EXCL, fsync, a
 * link refused, rename): for a short-lived CLI call, where each of the async form's five thread-pool
 * round trips waits for a CPU on a loaded machine and nothing else runs meanwhile anyway.
 */
export function atomicWriteSync(file: string, text: string): void {
  const data = Buffer.from(redact(text), 'utf8');
  checkFolderSync(path.dirname(file));
  const tmp = tempPathFor(file);
  const fd = openSync(tmp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | NOFOLLOW, FILE_MODE);
  try {
    try {
      for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    checkFileSync(file);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** writeJson's synchronous form (atomicWriteSync). */
export function writeJsonSync(file: string, value: unknown): void {
  atomicWriteSync(file, JSON.stringify(value, null, 2) + '\n');
}

/**
 * Append one line (secrets redacted) with a single O_APPEND write. On a local Linux file system the kernel serialises
 * appends, so lines from concurrent processes never interleave; a SIGKILL cannot split a write of a
 * normal-sized line. The calls are synchronous: open, one write and close of a small line take
 * microseconds, less than the three thread-pool round trips of the async API.
 */
export async function appendLine(file: string, line: string): Promise<void> {
  appendLines(file, [line]);
}

/**
 * Append one JSONL record as appendLine does; false when, by the time the write was done, `file` no
 * longer named the file written to: it was sealed into a segment (renamed away) after it was opened,
 * and the line may have reached that segment after a reader had finished it. A writer whose readers
 * drop duplicates (an inbox's message ids) appends it again.
 */
export function appendLineKept(file: string, line: string, afterWrite?: () => void): boolean {
  let ino = -1;
  appendLines(file, [line], (st) => {
    ino = st.ino;
    // A test seals the file here, between this writer's write and its check.
    afterWrite?.();
  });
  try {
    return statSync(file).ino === ino;
  } catch {
    return false;
  }
}

/** Append several JSONL records in one write (a reader sees them whole or as a prefix of whole lines); returns the bytes written. */
export function appendLines(file: string, lines: string[], wrote?: (written: Stats) => void): number {
  if (lines.some((l) => l.includes('\n'))) throw new Error('append: a JSONL record must not contain a newline');
  const buf = Buffer.from(lines.map((l) => redact(l) + '\n').join(''), 'utf8');
  checkFolderSync(path.dirname(file));
  let fd: number;
  try {
    fd = openSync(file, fsc.O_WRONLY | fsc.O_APPEND | fsc.O_CREAT | NOFOLLOW | fsc.O_NONBLOCK, FILE_MODE);
  } catch (err) {
    throw linkRefused(file, err);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UnsafePathError(file, 'is not a regular file');
    const written = writeSync(fd, buf, 0, buf.length);
    if (written !== buf.length) throw new Error(`short append to ${file}: ${written} of ${buf.length} bytes`);
    wrote?.(st);
  } finally {
    closeSync(fd);
  }
  return buf.length;
}

/** What went wrong reading a file that a person may have edited by hand. */
export interface FileProblem {
  path: string;
  message: string;
}

/** readTextSync through the thread pool: the same refusals and cap. */
export async function readText(file: string, kind: ReadKind): Promise<string | undefined> {
  let fh: fsp.FileHandle;
  try {
    fh = await openForRead(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const cap = READ_CAPS[kind];
    const { size } = await fh.stat();
    if (size > cap) throw refused(file, { why: 'large', size, cap });
    // Read to the end (a file that grew after the stat is read whole), but never past the cap.
    let buf = Buffer.allocUnsafe(size + 1);
    let got = 0;
    for (;;) {
      if (got === buf.length) {
        if (got > cap) throw refused(file, { why: 'large', size: got, cap });
        const more = Buffer.allocUnsafe(Math.min(cap + 1, buf.length * 2));
        buf.copy(more, 0, 0, got);
        buf = more;
      }
      const { bytesRead } = await fh.read(buf, got, buf.length - got, null);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.toString('utf8', 0, got);
  } finally {
    await fh.close();
  }
}

/** Parse JSON text, turning a syntax error into a message that names the file. */
export function parseJson(file: string, text: string): { ok: true; value: unknown } | { ok: false; problem: FileProblem } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const what = text.trim() === '' ? 'the file is empty (half-written?)' : `invalid JSON: ${(err as Error).message}`;
    return { ok: false, problem: { path: file, message: what } };
  }
}

/**
 * Why a team folder is not private: owned by another user, or writable by group or others (anyone
 * who can write there can plant links, edit requests or read the inboxes). Empty when it is fine.
 */
export function folderWarnings(dir: string): string[] {
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) out.push(`the team folder ${dir} is owned by uid ${st.uid}, not by you (uid ${uid}); its owner can change anything in it`);
  const writers = [st.mode & 0o020 ? 'its group' : null, st.mode & 0o002 ? 'other users' : null].filter(Boolean);
  if (writers.length > 0) {
    out.push(`the team folder ${dir} is writable by ${writers.join(' and ')} (mode ${(st.mode & 0o777).toString(8)}), who could plant links or edit requests; hint: chmod 700 ${JSON.stringify(dir)}`);
  }
  return out;
}

/** True if the path exists. */
export async function exists(p: string): Promise<boolean> {
  try {
    await fsp.access(p);
    return true;
  } catch {
    return false;
  }
}
