// The screen's code cache (src/cli/code-cache.ts): a CommonJS script compiled with V8's code cache from
// the user's cache folder. A cache is used only when it is this user's own, unwritable by others, intact
// and made for this very bundle; anything else is ignored (and rewritten once the screen is up), and a
// folder that cannot hold it costs nothing but the compile. Real files, real V8 caches; the last test
// runs the real bin/teamux start twice in a real pty and reads teamux.log.
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheFile, cacheKey, codeCacheDir, loadBundle, readCodeCache, unsafeReason, type LoadedBundle } from '../../src/cli/code-cache.js';
import { startScreen } from '../helpers/screen-pty.js';
import { BIN, tempDir, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** The first line of a screen bundle (its hash is not checked: the cache's key includes it). */
const HEAD = `// teamux screen bundle ${'ab'.repeat(32)}`;

/** A temp folder with a small CommonJS bundle (a header line as scripts/bundle.mjs writes) and a cache home. */
function setup(body = 'exports.main = () => require("node:path").basename(__filename) + ":" + (1 + 2);'): { bundle: string; env: NodeJS.ProcessEnv; cacheDir: string } {
  const tmp = tempDir('teamux-code-cache-');
  cleanup.push(tmp.cleanup);
  const bundle = path.join(tmp.dir, 'dist', 'boot', 'screen.cjs');
  mkdirSync(path.dirname(bundle), { recursive: true });
  // Enough functions that V8's cache is worth its name; they are run so that they are compiled.
  const filler = Array.from({ length: 200 }, (_, i) => `function f${i}(x) { return x * ${i} + ${i}; }`).join('\n');
  writeFileSync(bundle, `${HEAD}\n(function (exports, require, module, __filename, __dirname) {\n${filler}\nlet sum = 0;\nfor (let i = 0; i < 200; i++) sum += eval('f' + i)(1);\n${body}\n})\n`);
  const env = { XDG_CACHE_HOME: path.join(tmp.dir, 'cache') };
  return { bundle, env, cacheDir: path.join(tmp.dir, 'cache', 'teamux') };
}

/** loadBundle on a file known to be a screen bundle. */
function load(bundle: string, env: NodeJS.ProcessEnv): LoadedBundle {
  const loaded = loadBundle(bundle, env);
  if (!loaded) throw new Error(`${bundle} was not taken for a screen bundle`);
  return loaded;
}

/** The one cache file in the folder (the test's bundle has one key). */
function onlyCacheFile(dir: string): string {
  const files = readdirSync(dir).filter((n) => n.endsWith('.v8'));
  expect(files).toHaveLength(1);
  return path.join(dir, files[0]!);
}

describe('code cache', () => {
  it('code-cache.written-once-up-then-used', () => {
    const { bundle, env, cacheDir } = setup();
    const first = load(bundle, env);
    expect((first.exports.main as () => string)()).toBe('screen.cjs:3');
    expect(first.note).toMatch(/code cache: none yet; writing .*screen-[0-9a-f]+\.v8 once the screen is up/);
    first.save();
    const file = onlyCacheFile(cacheDir);
    expect(file).toBe(cacheFile(cacheDir, cacheKey(bundle, HEAD)));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const second = load(bundle, env);
    expect(second.note).toBe(`code cache: used ${file}`);
    expect((second.exports.main as () => string)()).toBe('screen.cjs:3');
    // Nothing to write when the cache was used.
    const before = statSync(file).mtimeMs;
    second.save();
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it('code-cache.damaged-file-is-ignored-and-rewritten', () => {
    const { bundle, env, cacheDir } = setup();
    load(bundle, env).save();
    const file = onlyCacheFile(cacheDir);
    const bytes = readFileSync(file);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 10) ^ 0xff, bytes.length - 10);
    writeFileSync(file, bytes);
    const damaged = load(bundle, env);
    expect(damaged.note).toMatch(/code cache: damaged \(checksum\); writing/);
    expect((damaged.exports.main as () => string)()).toBe('screen.cjs:3');
    damaged.save();
    expect(load(bundle, env).note).toBe(`code cache: used ${file}`);
    // Cut short, or not a cache at all: the same.
    writeFileSync(file, bytes.subarray(0, 100));
    expect(load(bundle, env).note).toMatch(/damaged \(checksum\)/);
    writeFileSync(file, 'hello');
    expect(load(bundle, env).note).toMatch(/damaged \(checksum\)/);
  });

  it('code-cache.file-others-can-write-or-own-is-ignored-and-replaced', () => {
    const { bundle, env, cacheDir } = setup();
    load(bundle, env).save();
    const file = onlyCacheFile(cacheDir);
    chmodSync(file, 0o666);
    const open = load(bundle, env);
    expect(open.note).toMatch(/code cache: the file can be written by others \(mode 666\); writing/);
    open.save();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(load(bundle, env).note).toBe(`code cache: used ${file}`);
    // Another user's file (a real one when the tests run as root, who can give it away).
    expect(unsafeReason({ uid: (process.getuid?.() ?? 0) + 1, mode: 0o100600 }, 'the file')).toMatch(/belongs to uid \d+, not to this user/);
    if (process.getuid?.() === 0) {
      chownSync(file, 4242, 4242);
      const foreign = load(bundle, env);
      expect(foreign.note).toMatch(/code cache: the file belongs to uid 4242, not to this user; writing/);
      foreign.save();
      expect(statSync(file).uid).toBe(0);
      expect(load(bundle, env).note).toBe(`code cache: used ${file}`);
    }
  });

  it('code-cache.a-changed-bundle-does-not-use-the-old-cache', () => {
    const { bundle, env, cacheDir } = setup();
    load(bundle, env).save();
    const old = onlyCacheFile(cacheDir);
    // The same length and header, other code (as a hand edit or a rebuild of equal size would be).
    writeFileSync(bundle, readFileSync(bundle, 'latin1').replace('(1 + 2)', '(2 + 2)'), 'latin1');
    const later = new Date(Date.now() + 5_000);
    utimesSync(bundle, later, later);
    const changed = load(bundle, env);
    expect(changed.note).toMatch(/code cache: none yet/);
    expect((changed.exports.main as () => string)()).toBe('screen.cjs:4');
    changed.save();
    const files = readdirSync(cacheDir).filter((n) => n.endsWith('.v8'));
    expect(files).toHaveLength(2);
    expect(files).toContain(path.basename(old));
    expect(load(bundle, env).note).toMatch(/code cache: used/);
  });

  it('code-cache.read-into-a-given-buffer-holds-only-the-files-bytes', () => {
    const { bundle, env, cacheDir } = setup();
    load(bundle, env).save();
    const file = onlyCacheFile(cacheDir);
    const bytes = readFileSync(file);
    // A buffer large enough is used as it is (the loader passes the one the source was read into).
    const into = Buffer.alloc(bytes.length + 4096, 0x55);
    const found = readCodeCache(file, into);
    expect(found.why).toBe('ok');
    expect(found.data!.buffer).toBe(into.buffer);
    expect(Buffer.compare(found.data!, bytes.subarray(bytes.indexOf(10) + 1))).toBe(0);
    // One too small is not: the file gets a buffer of its own.
    const small = Buffer.alloc(16);
    expect(readCodeCache(file, small).data!.buffer).not.toBe(small.buffer);
    // Cut short: what the buffer held past the file's end (here the whole intact file) is never read as the file.
    bytes.copy(into);
    writeFileSync(file, bytes.subarray(0, bytes.length - 100));
    expect(readCodeCache(file, into).why).toBe('damaged (checksum)');
  });

  it('code-cache.v8-flags-set-at-run-time-are-part-of-the-key', () => {
    const { bundle, env, cacheDir } = setup();
    const flag = ['--semi-space-growth-factor=1'];
    expect(cacheKey(bundle, HEAD, flag)).not.toBe(cacheKey(bundle, HEAD));
    expect(cacheKey(statSync(bundle), HEAD, flag)).toBe(cacheKey(bundle, HEAD, flag));
    const plain = loadBundle(bundle, env, true)!;
    plain.save();
    const flagged = loadBundle(bundle, env, true, flag)!;
    expect(flagged.note).toMatch(/code cache: none yet/);
    flagged.save();
    expect(readdirSync(cacheDir).filter((n) => n.endsWith('.v8'))).toHaveLength(2);
    expect(loadBundle(bundle, env, true, flag)!.note).toBe(`code cache: used ${cacheFile(cacheDir, cacheKey(bundle, HEAD, flag))}`);
    expect(loadBundle(bundle, env, true)!.note).toBe(`code cache: used ${cacheFile(cacheDir, cacheKey(bundle, HEAD))}`);
  });

  it('code-cache.a-cache-v8-refuses-is-rewritten', () => {
    const a = setup();
    load(a.bundle, a.env).save();
    const b = setup('exports.main = () => "other";');
    // A well-formed cache file made for other code, under this bundle's name.
    const bFile = cacheFile(b.cacheDir, cacheKey(b.bundle, HEAD));
    mkdirSync(b.cacheDir, { recursive: true, mode: 0o700 });
    writeFileSync(bFile, readFileSync(onlyCacheFile(a.cacheDir)), { mode: 0o600 });
    expect(readCodeCache(bFile).why).toBe('ok');
    const refused = load(b.bundle, b.env);
    expect(refused.note).toMatch(/code cache: rejected by V8/);
    expect((refused.exports.main as () => string)()).toBe('other');
    refused.save();
    expect(load(b.bundle, b.env).note).toBe(`code cache: used ${bFile}`);
  });

  it('code-cache.a-folder-that-cannot-hold-it-costs-only-the-compile', () => {
    const { bundle, env, cacheDir } = setup();
    // A folder others can write: neither read nor written.
    mkdirSync(cacheDir, { recursive: true });
    chmodSync(cacheDir, 0o777);
    const open = load(bundle, env);
    expect(open.note).toMatch(/code cache: not used: .* can be written by others \(mode 777\)/);
    open.save();
    expect(readdirSync(cacheDir)).toEqual([]);
    // A cache home that is a file: no folder can be made in it.
    const file = path.join(path.dirname(cacheDir), 'plain');
    writeFileSync(file, '');
    const blocked = load(bundle, { XDG_CACHE_HOME: file });
    expect(blocked.note).toMatch(/code cache: not used: .*plain\/teamux: (ENOTDIR|EEXIST)/);
    expect((blocked.exports.main as () => string)()).toBe('screen.cjs:3');
    expect(() => blocked.save()).not.toThrow();
    // Turned off.
    const off = load(bundle, { ...env, TEAMUX_CODE_CACHE: '0' });
    expect(off.note).toBe('code cache: off (TEAMUX_CODE_CACHE=0)');
    off.save();
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it('code-cache.a-file-that-is-not-a-screen-bundle-is-not-run', () => {
    const { bundle, env, cacheDir } = setup();
    writeFileSync(bundle, 'globalThis.ranIt = true;\n');
    expect(loadBundle(bundle, env)).toBeNull();
    expect((globalThis as { ranIt?: boolean }).ranIt).toBeUndefined();
    expect(existsSync(cacheDir)).toBe(false);
  });

  it('code-cache.folder-is-xdg-cache-home-else-home-cache', () => {
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' })).toBe('/x/cache/teamux');
    // A relative XDG_CACHE_HOME is invalid by the spec: ignored.
    expect(codeCacheDir({ XDG_CACHE_HOME: 'rel', HOME: '/home/u' })).toBe('/home/u/.cache/teamux');
    expect(codeCacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/teamux');
  });

  it('code-cache.start-writes-then-uses-it-and-bundle-0-still-starts', async () => {
    const tmp = tempDir('teamux-code-cache-e2e-');
    cleanup.push(tmp.cleanup);
    const layout = path.join(tmp.dir, 'team.yaml');
    writeFileSync(layout, `name: cached\nlead: { name: lead, role: r, command: [sh, -c, "printf 'LEAD%s\\\\n' -MARK; exec sleep 600"] }\n`);
    const env = { ...process.env, TEAMUX_TEAM_DIR: '', TERM: 'xterm-256color', XDG_CACHE_HOME: path.join(tmp.dir, 'cache') } as Record<string, string>;
    const log = path.join(tmp.dir, '.teamux', 'cached', 'teamux.log');
    // Each start after a finished run archives it, its teamux.log with it: the notes are in the
    // archived logs (oldest first, by their time-stamped names) and then the current one.
    const archive = path.join(tmp.dir, '.teamux', 'archive');
    const logs = (): string[] => [...(existsSync(archive) ? readdirSync(archive).sort().map((d) => path.join(archive, d, 'teamux.log')) : []), log];
    const notes = (): string[] => logs().flatMap((f) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter((l) => l.includes('code cache')) : []));
    const startOnce = async (extra: Record<string, string>, logged: number): Promise<void> => {
      const started = startScreen(BIN, layout, { cwd: tmp.dir, env: { ...env, ...extra }, cleanups: cleanup });
      await waitFor(() => started.screen().includes('LEAD-MARK'), 'the pane on screen', 30_000);
      // The cache is written just after start-up: wait for the log line (and, the first time, the file).
      await waitFor(() => notes().length >= logged, 'the code cache note in teamux.log', 30_000);
      if (logged === 1) await waitFor(() => existsSync(path.join(tmp.dir, 'cache', 'teamux')) && readdirSync(path.join(tmp.dir, 'cache', 'teamux')).some((n) => n.endsWith('.v8')), 'the cache file', 30_000);
      await started.stop();
    };
    await startOnce({}, 1);
    expect(notes()[0]).toMatch(/code cache: none yet; writing/);
    await startOnce({}, 2);
    expect(notes()[1]).toMatch(/code cache: used .*cache\/teamux\/screen-[0-9a-f]+\.v8/);
    // V8's young generation left to grow (no flag changed at run time): a cache of its own, and the
    // default's is still used after it (one shared file was refused and rewritten by each in turn).
    await startOnce({ TEAMUX_YOUNG_GEN: 'grow' }, 3);
    expect(notes()[2]).toMatch(/code cache: none yet; writing/);
    await startOnce({}, 4);
    const said = (i: number): string => notes()[i]!.replace(/^.*?code cache: /, '');
    expect(said(3)).toBe(said(1));
    // Without the bundle (dist/cli/ as tsc wrote it): no code cache, and the screen still starts.
    await startOnce({ TEAMUX_BUNDLE: '0' }, 4);
    expect(notes()).toHaveLength(4);
  }, 120_000);
});
