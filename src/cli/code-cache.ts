/**
 * The screen's code cache. `teamux start` and `attach` run the CLI as one CommonJS script
 * (dist/boot/screen.cjs, from scripts/bundle.mjs) compiled by vm.Script with V8's code cache: Node 20
 * has no compile cache for modules, and compiling ~2 MB of JavaScript was a fifth of start-up.
 * The cache is one file per bundle and Node in the user's own cache folder ($XDG_CACHE_HOME/teamux,
 * else ~/.cache/teamux), written once the screen is up (so the functions start-up compiled lazily
 * are in it), atomically and mode 0600. It is used only when the folder and the file belong to this
 * user and nobody else can write them (a cache another user can write is code they run as you), and
 * when its checksum holds; its name is a hash of the bundle (content hash, size, mtime), Node, V8,
 * Node's flags and the V8 flags set at run time, so a rebuilt bundle, another Node or another way of
 * running it never reads a stale one. Anything else (no home, a folder that cannot be written, a
 * foreign or damaged file, V8 rejecting it) costs only the compile, and is said in teamux.log.
 * TEAMUX_CODE_CACHE=0 turns it off.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import * as path from 'node:path';
import vm from 'node:vm';
import { keepYoungGenerationSmall, SMALL_YOUNG_GENERATION } from './screen-heap.js';
import { startupMark } from '../host/startup-marks.js';
import type { ScreenBoot } from './context.js';

/** The first line of a screen bundle: this, then a sha256 of the rest (scripts/bundle.mjs). */
const BUNDLE_HEAD = /^\/\/ teamux screen bundle [0-9a-f]{64}$/;
/** The first bytes of a cache file; the version changes when the format does. */
const MAGIC = 'TEAMUX-CODE-CACHE 1 ';
/** Cache files kept in the folder (other checkouts and Node versions have their own). */
const KEEP = 6;

/** The folder for the code cache, or null when there is no home to put it in. */
export function codeCacheDir(env: NodeJS.ProcessEnv): string | null {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'teamux');
  let home = env.HOME;
  if (!home) {
    try {
      home = homedir();
    } catch {
      return null;
    }
  }
  return home && path.isAbsolute(home) ? path.join(home, '.cache', 'teamux') : null;
}

/** Why a path is not safe to keep code in, or null: it must be this user's and writable by no one else. */
export function unsafeReason(st: { uid: number; mode: number }, what: string): string | null {
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `${what} belongs to uid ${st.uid}, not to this user`;
  if ((st.mode & 0o022) !== 0) return `${what} can be written by others (mode ${(st.mode & 0o777).toString(8)})`;
  return null;
}

/** The cache folder, created if missing (mode 0700); an error message if it cannot be used. */
function ownFolder(dir: string): string | null {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory()) return `${dir} is not a folder`;
    return unsafeReason(st, dir);
  } catch (err) {
    return `${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
  }
}

/**
 * The cache's name for this bundle: its hash (first line), size and mtime, Node, V8, Node's flags and
 * the V8 flags set at run time (`v8Flags`: V8 refuses a cache made under other flags, so two ways of
 * running one bundle must not share, and keep rewriting, one file).
 */
export function cacheKey(bundle: string | { size: number; mtimeMs: number }, head: string, v8Flags: readonly string[] = []): string {
  const st = typeof bundle === 'string' ? statSync(bundle) : bundle;
  // Whole seconds: a copy made with its times kept (cp -p, the benchmarks' snapshot) may lose the rest.
  const parts = [head, st.size, Math.trunc(st.mtimeMs / 1000), process.version, process.versions.v8, process.arch, process.execArgv.join(' '), process.env.NODE_OPTIONS ?? '', v8Flags.join(' ')];
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 32);
}

/** The cache file for `key` in `dir`. */
export function cacheFile(dir: string, key: string): string {
  return path.join(dir, `screen-${key}.v8`);
}

/**
 * A cache file's payload: null (and why) when it is missing, not this user's own, or damaged. It is
 * read into `into` when that is large enough (see readWhole).
 */
export function readCodeCache(file: string, into?: Buffer): { data: Buffer | null; why: string } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { data: null, why: code === 'ENOENT' ? 'none yet' : `cannot be read (${code})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { data: null, why: 'not a file' };
    const unsafe = unsafeReason(st, 'the file');
    if (unsafe) return { data: null, why: unsafe };
    let raw: Buffer;
    try {
      raw = readWhole(fd, st.size, into);
    } catch (err) {
      return { data: null, why: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
    }
    const nl = raw.indexOf(10);
    const head = nl > 0 ? raw.subarray(0, nl).toString('latin1') : '';
    const data = raw.subarray(nl + 1);
    if (!head.startsWith(MAGIC) || head.slice(MAGIC.length) !== createHash('sha256').update(data).digest('hex')) return { data: null, why: 'damaged (checksum)' };
    return { data, why: 'ok' };
  } finally {
    closeSync(fd);
  }
}

/**
 * The first `size` bytes of the open file `fd` (fewer if it is shorter now), in `into` when it is large
 * enough. Memory the process touches for the first time is dear (each new page is a fault; ~4 ms a
 * MiB on a loaded VM), so the loader reads the cache into the buffer the source was read into.
 */
function readWhole(fd: number, size: number, into?: Buffer): Buffer {
  const buf = into && into.length >= size ? into : Buffer.allocUnsafeSlow(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, buf, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** Write a cache file atomically (mode 0600) and drop the oldest beyond KEEP; false if it cannot be. */
export function writeCodeCache(dir: string, file: string, data: Buffer): boolean {
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, Buffer.concat([Buffer.from(`${MAGIC}${createHash('sha256').update(data).digest('hex')}\n`, 'latin1'), data]), { mode: 0o600, flag: 'wx' });
    renameSync(tmp, file);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // Never created.
    }
    return false;
  }
  try {
    const old = readdirSync(dir).filter((n) => /^screen-[0-9a-f]+\.v8$/.test(n)).map((n) => ({ n, at: lstatSync(path.join(dir, n)).mtimeMs })).sort((a, b) => b.at - a.at);
    for (const { n } of old.slice(KEEP)) rmSync(path.join(dir, n), { force: true });
  } catch {
    // Pruning is housekeeping: a file that went away meanwhile is fine.
  }
  return true;
}

/** A compiled screen bundle: its exports, what became of the cache, and how to save a fresh one. */
export interface LoadedBundle {
  exports: Record<string, unknown>;
  note: string;
  /** Write the cache if this run had none (or V8 refused it); call once the screen is up. */
  save(): void;
}

/**
 * Compile and run the screen bundle `file` with the code cache (none when `useCache` is false); null
 * when the file is not a screen bundle (then nothing has run). `v8Flags`: the V8 flags this process
 * set at run time (part of the cache's key).
 */
export function loadBundle(file: string, env: NodeJS.ProcessEnv, useCache = env.TEAMUX_CODE_CACHE !== '0', v8Flags: readonly string[] = []): LoadedBundle | null {
  const fd = openSync(file, 'r');
  let bytes: Buffer;
  let st: { size: number; mtimeMs: number };
  try {
    st = fstatSync(fd);
    bytes = readWhole(fd, st.size);
  } finally {
    closeSync(fd);
  }
  // All ASCII (scripts/bundle.mjs), so latin1 reads it as it is: a plain copy, one byte a character.
  const source = bytes.toString('latin1');
  const head = source.slice(0, source.indexOf('\n'));
  if (!BUNDLE_HEAD.test(head)) return null;
  const dir = useCache ? codeCacheDir(env) : null;
  const folderProblem = dir ? ownFolder(dir) : 'off';
  const cache = dir && !folderProblem ? cacheFile(dir, cacheKey(st, head, v8Flags)) : null;
  // The source's bytes are in the string now: their buffer takes the cache (V8 reads it only while compiling).
  const found = cache ? readCodeCache(cache, bytes) : { data: null, why: '' };
  // The file is one function expression, wrapped as Node wraps a CommonJS module.
  const script = new vm.Script(source, {
    filename: file,
    ...(found.data ? { cachedData: found.data } : {}),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const mod = { exports: {} as Record<string, unknown> };
  (script.runInThisContext() as (...args: unknown[]) => void)(mod.exports, createRequire(file), mod, file, path.dirname(file));
  const used = found.data !== null && script.cachedDataRejected === false;
  let note: string;
  if (!dir) note = useCache ? 'code cache: off (no home folder)' : 'code cache: off (TEAMUX_CODE_CACHE=0)';
  else if (folderProblem) note = `code cache: not used: ${folderProblem}`;
  else if (used) note = `code cache: used ${cache}`;
  else note = `code cache: ${found.data ? 'rejected by V8 (other flags?)' : found.why}; writing ${cache} once the screen is up`;
  let saved = used || cache === null;
  return {
    exports: mod.exports,
    note,
    save() {
      if (saved || !dir || !cache) return;
      saved = true;
      // It runs on the screen's event loop: whatever goes wrong costs the next start its cache, nothing more.
      try {
        writeCodeCache(dir, cache, script.createCachedData());
      } catch {
        // No cache written.
      }
    },
  };
}

/**
 * Node's own modules that a screen loads while it starts (blessed, node-pty's helpers, the CLI's
 * argument parser) and the loader does not. V8 checks every code cache against the flags it was made
 * under, so once keepYoungGenerationSmall changes one, it refuses the cache Node ships for its own
 * modules too and compiles each one loaded later from source: these took 12 ms of CPU that way
 * instead of 5. Loaded before the change instead; test/cli/code-cache-builtins.test.ts checks that a
 * start loads no other one after it.
 */
export const SCREEN_BUILTINS = ['node:child_process', 'node:assert', 'node:fs/promises', 'node:constants', 'node:process'];

/** Load SCREEN_BUILTINS (and util's argument parser, a lazy part of node:util) now. */
function loadScreenBuiltins(): void {
  const load = createRequire(import.meta.url);
  for (const name of SCREEN_BUILTINS) load(name);
  void (load('node:util') as typeof import('node:util')).parseArgs;
}

/**
 * Run a screen verb from the bundle `file`: Node's modules it needs, then V8's flags (a cache made
 * under other flags is refused), then the bundle, whose main() is told how its code was loaded and
 * saves the cache once the screen is up. False when `file` is not a screen bundle (the caller runs
 * the CLI another way).
 */
export async function runScreenBundle(file: string, env: NodeJS.ProcessEnv, verb: string): Promise<boolean> {
  loadScreenBuiltins();
  const v8Flags = keepYoungGenerationSmall(verb, env) ? [SMALL_YOUNG_GENERATION] : [];
  const bundle = loadBundle(file, env, undefined, v8Flags);
  if (!bundle) return false;
  startupMark('code');
  const boot: ScreenBoot = { note: bundle.note, up: () => setImmediate(() => bundle.save()) };
  await (bundle.exports.main as (boot: ScreenBoot) => Promise<void>)(boot);
  return true;
}
