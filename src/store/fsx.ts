/**
 * File primitives for the team folder: atomic replace (temp file, fsync, rename), append-only JSONL
 * lines, and folders and files created with owner-only permissions (0700 / 0600). Every writer in
 * the store goes through these, so a crash or SIGKILL leaves either the old file or the new one,
 * never half of one.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, promises as fsp, constants as fsc, writeSync } from 'node:fs';
import * as path from 'node:path';

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** Create a folder (and parents) with mode 0700. */
export async function ensureDir(dir: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true, mode: DIR_MODE });
}

/** Replace `file` with `data` atomically: write a temp file beside it, flush it, rename it over. */
export async function atomicWrite(file: string, data: string): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await fsp.open(tmp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, FILE_MODE);
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
 * Append one line with a single O_APPEND write. On a local Linux file system the kernel serialises
 * appends, so lines from concurrent processes never interleave; a SIGKILL cannot split a write of a
 * normal-sized line. The calls are synchronous: open, one write and close of a small line take
 * microseconds, less than the three thread-pool round trips of the async API.
 */
export async function appendLine(file: string, line: string): Promise<void> {
  if (line.includes('\n')) throw new Error('appendLine: a JSONL record must not contain a newline');
  const buf = Buffer.from(line + '\n', 'utf8');
  const fd = openSync(file, fsc.O_WRONLY | fsc.O_APPEND | fsc.O_CREAT, FILE_MODE);
  try {
    const written = writeSync(fd, buf, 0, buf.length);
    if (written !== buf.length) throw new Error(`short append to ${file}: ${written} of ${buf.length} bytes`);
  } finally {
    closeSync(fd);
  }
}

/** What went wrong reading a file that a person may have edited by hand. */
export interface FileProblem {
  path: string;
  message: string;
}

/** Read a file as text; undefined when it does not exist. */
export async function readText(file: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
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

/** True if the path exists. */
export async function exists(p: string): Promise<boolean> {
  try {
    await fsp.access(p);
    return true;
  } catch {
    return false;
  }
}
