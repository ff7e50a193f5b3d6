#!/usr/bin/env node
/**
 * Bundle the compiled CLI (dist/cli/main.js, from `tsc -p tsconfig.json`) into dist/bundle/ with
 * esbuild: ES modules with code splitting, so each verb is still loaded only when it runs, but as a
 * few large files instead of ~200 small ones (and zod's ~100): start-up spends far less time
 * resolving, reading and compiling modules. bin/teamux runs the bundle when it is at least as new
 * as dist/cli/main.js, and dist/ itself otherwise (a plain `tsc` after this leaves the bundle stale,
 * and stale code is never run).
 *   node scripts/bundle.mjs [ROOT]     ROOT: the checkout whose dist/ to bundle (default: this one)
 * Kept outside the bundle: packages with native code or files they read next to their sources
 * (node-pty, blessed), the SDKs and the NATS client (loaded only by the verbs that use them), and
 * the CommonJS Stop-hook entry (dist/agents/claude/stop-fast.cjs, also run on its own). The bundle's
 * chunks sit one folder below dist/, as dist/cli/ does, so paths built from import.meta.url
 * (../../bin) point at the same files.
 * The screen verbs (`start`, `attach`) run a second build instead: the whole CLI as one CommonJS
 * file, dist/boot/screen.cjs, which bin/teamux compiles with V8's code cache (src/cli/code-cache.ts);
 * its first line names a hash of its contents, part of the cache's key. blessed's Screen widget is
 * inside it (not its other widgets), and so is node-pty's JavaScript, so that they too come from the
 * code cache (blessedScreenOnly, nodePtyFromItsFolder).
 * Both builds give zod only its English locale: the 60-odd others are never used and were most of
 * the chunk zod is in.
 * The short path of `task claim` (dist/cli/task-claim-fast.js) is a third build: one ES module with
 * its whole graph in it, dist/bundle/task-claim-fast.js, which the bundle's main.js imports by that
 * name. As split chunks it was eleven modules, each resolved, read through the thread pool and
 * compiled: about 15 ms more per claim than one file. Its rare dynamic imports (the board index, the
 * lock library) stay outside it, as the split build's entries of the same names (SHARED_ENTRIES).
 * The screen's loader (dist/cli/code-cache.js → dist/bundle/code-cache.js, which bin/teamux imports)
 * is built the same way: one module instead of itself and three chunks.
 * The Claude Code hooks' one-file CommonJS entry (dist/agents/claude/stop-fast.cjs, run by node on its own) is
 * bundled in place first: the rule modules it imports (the plan gate's allowlist) go inside it, so it
 * decides by the same table as the full hook and still loads no other file of teamux's.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
const entry = path.join(root, 'dist', 'cli', 'main.js');
const outdir = path.join(root, 'dist', 'bundle');
const bootdir = path.join(root, 'dist', 'boot');

if (!existsSync(entry)) {
  process.stderr.write(`bundle: ${entry} is missing\n  hint: compile first: npx tsc -p tsconfig.json (npm run build does both)\n`);
  process.exit(1);
}

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  process.stderr.write('bundle: esbuild is not installed\n  hint: npm install (esbuild is a devDependency)\n');
  process.exit(1);
}

/** Packages left to Node's own loader (see the header). */
export const EXTERNAL = ['node-pty', 'blessed', '@anthropic-ai/sdk', '@modelcontextprotocol/sdk', '@nats-io/*', 'chokidar', 'proper-lockfile'];

/**
 * Whole-graph single files, imported by main.js (or bin/teamux: code-cache.js, what it runs the
 * screen's bundle with, below) under their own names (see the header).
 */
const SINGLE_FILES = { 'task-claim-fast': path.join(root, 'dist', 'cli', 'task-claim-fast.js'), 'code-cache': path.join(root, 'dist', 'cli', 'code-cache.js') };
/** Modules the single files load dynamically: entries of the split build, so they have fixed names. */
const SHARED_ENTRIES = { 'task-index': path.join(root, 'dist', 'store', 'task-index.js'), lock: path.join(root, 'dist', 'store', 'lock.js') };
const BANNER = "import { createRequire as __teamuxCreateRequire } from 'node:module';\nconst require = __teamuxCreateRequire(import.meta.url);";

const hookEntry = path.join(root, 'dist', 'agents', 'claude', 'stop-fast.cjs');
const hook = await esbuild.build({
  absWorkingDir: root,
  entryPoints: [hookEntry],
  outfile: hookEntry,
  write: false,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
for (const out of hook.outputFiles) writeFileSync(out.path, out.contents);

rmSync(outdir, { recursive: true, force: true });
rmSync(bootdir, { recursive: true, force: true });
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { main: entry, ...SHARED_ENTRIES },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  plugins: [keepCommonJsEntries(), zodEnglishOnly(), importedByName(SINGLE_FILES)],
  // CommonJS packages inside the bundle (e.g. @xterm/headless) may call require: give them Node's.
  banner: { js: BANNER },
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});
const single = await esbuild.build({
  absWorkingDir: root,
  entryPoints: SINGLE_FILES,
  outdir,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  plugins: [importedByName(SHARED_ENTRIES)],
  banner: { js: BANNER },
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});
const outputs = [...Object.entries(result.metafile.outputs), ...Object.entries(single.metafile.outputs)].filter(([file]) => file.endsWith('.js'));
const kib = outputs.reduce((sum, [, o]) => sum + o.bytes, 0) / 1024;

// The screen's bundle: one CommonJS script (vm.Script takes a script, not a module), already wrapped
// as Node wraps a CommonJS module: src/cli/code-cache.ts compiles the file as it is and calls the
// function with `exports`, `require`, `module`, `__filename` and `__dirname`. Its first line holds a
// hash of the rest (written in place below, so the source map's lines stay right).
const screen = path.join(bootdir, 'screen.cjs');
const HASH_PLACEHOLDER = '0'.repeat(64);
const screenBuild = await esbuild.build({
  absWorkingDir: root,
  entryPoints: [entry],
  outfile: screen,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // The Stop-hook entry (.cjs) is bundled too: a script has no module loader to import it with. So
  // are proper-lockfile, blessed's Screen widget with what it loads and node-pty's JavaScript (not its
  // native part), all loaded by every start: in here they are in the code cache, not compiled from
  // source on every start.
  external: EXTERNAL.filter((p) => p !== 'proper-lockfile' && p !== 'blessed' && p !== 'node-pty'),
  plugins: [zodEnglishOnly(), blessedScreenOnly(), nodePtyFromItsFolder()],
  metafile: true,
  // import.meta has no meaning in a script: its url is this file's, so ../../bin still names bin/.
  define: { 'import.meta.url': '__teamuxImportMetaUrl' },
  banner: { js: `// teamux screen bundle ${HASH_PLACEHOLDER}\n(function (exports, require, module, __filename, __dirname) {\nvar __teamuxImportMetaUrl = require('node:url').pathToFileURL(__filename).href;` },
  footer: { js: '})' },
  sourcemap: 'linked',
  logLevel: 'warning',
});
// blessed's main module loads all 34 widgets (one require by a computed name, which esbuild would
// answer with every file of the folder): only the Screen widget's own graph may be in here.
const blessedFiles = Object.keys(screenBuild.metafile.inputs).filter((f) => /(^|\/)node_modules\/blessed\//.test(f));
const stray = blessedFiles.filter((f) => /\/lib\/(blessed|widget)\.js$|\/widgets\/(?!(screen|node|element|box|log|scrollablebox|scrollabletext)\.js$)/.test(f));
if (blessedFiles.length === 0 || stray.length > 0) {
  process.stderr.write(`bundle: ${screen}: blessed's Screen widget should be in it, and nothing else of blessed's widgets: ${blessedFiles.length === 0 ? 'none' : stray.join(', ')}\n`);
  process.exit(1);
}
// All ASCII, so that the loader can read it as latin1 (a plain copy; UTF-8 text would also make V8
// keep two bytes a character): esbuild escapes strings but leaves regular expressions and comments
// as written, and there a \uXXXX escape means the same character.
const text = readFileSync(screen, 'utf8').replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const firstLine = text.indexOf('\n');
writeFileSync(screen, text.replace(HASH_PLACEHOLDER, createHash('sha256').update(text.slice(firstLine + 1)).digest('hex')), 'latin1');
// Both bundles must not look older than the sources they were made from (bin/teamux compares them).
for (const out of [path.join(outdir, 'main.js'), screen]) {
  if (statSync(out).mtimeMs < statSync(entry).mtimeMs) {
    process.stderr.write(`bundle: ${path.relative(root, out)} is older than dist/cli/main.js (clock skew?)\n`);
    process.exit(1);
  }
}
process.stdout.write(`bundle: ${outputs.length} files, ${kib.toFixed(0)} KiB in ${path.relative(root, outdir)}/; the screen's ${(statSync(screen).size / 1024).toFixed(0)} KiB in ${path.relative(root, screen)}\n`);

/** Leave `.cjs` imports (the Stop-hook entry) as they are: relative to the chunk, they name the same file. */
function keepCommonJsEntries() {
  return {
    name: 'keep-cjs-entries',
    setup(build) {
      build.onResolve({ filter: /\.cjs$/ }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/**
 * Imports of these modules (by their dist/ paths) left as imports of `./<name>.js`, the file that
 * another build of this script writes beside the importing one in dist/bundle/.
 */
function importedByName(named) {
  const byFile = new Map(Object.entries(named).map(([name, file]) => [file, `./${name}.js`]));
  return {
    name: 'imported-by-name',
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const target = byFile.get(path.join(args.resolveDir, args.path));
        return target === undefined ? undefined : { path: target, external: true };
      });
    },
  };
}

/**
 * blessed's Screen widget inside the screen's bundle, with two of its files seen differently:
 * - tput.js finds its own terminfo files (the fallbacks for a terminal the system does not know) from
 *   `__dirname`, which in the bundle is dist/boot/: there it names blessed/lib/ as Node resolves it
 *   when first needed (a function appended to the file, so its lines, and the source map, stay);
 * - unicode.js loads the package's main module (every widget) to read the screen's tab width: there
 *   it gets an object whose `screen` is the Screen widget, all that it reads.
 */
function blessedScreenOnly() {
  const lib = /[\\/]node_modules[\\/]blessed[\\/]lib[\\/]/;
  return {
    name: 'blessed-screen-only',
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/]blessed[\\/]lib[\\/]tput\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const uses = source.match(/\b__dirname\b/g)?.length ?? 0;
        if (uses === 0) throw new Error(`${args.path}: no __dirname to replace (another blessed version?)`);
        // (The name is in a variable: esbuild would ask for a literal one to be external.)
        const dir = "function __teamuxBlessedLib() { var tput = 'blessed/lib/tput.js'; return __teamuxBlessedLib.dir ??= require('node:path').dirname(require.resolve(tput)); }";
        return { contents: `${source.replace(/\b__dirname\b/g, '__teamuxBlessedLib()')}\n${dir}\n`, loader: 'js' };
      });
      build.onResolve({ filter: /^\.\.\/?$/ }, (args) => (lib.test(args.importer) && /[\\/]unicode\.js$/.test(args.importer) ? { path: 'blessed, its Screen widget', namespace: 'blessed-main', pluginData: path.dirname(args.importer) } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'blessed-main' }, (args) => ({
        contents: "module.exports = { get screen() { return require('./widgets/screen.js'); } };\n",
        resolveDir: args.pluginData,
        loader: 'js',
      }));
    },
  };
}

/**
 * node-pty's JavaScript inside the screen's bundle; what it finds by paths relative to its own folder
 * it still finds there: its native module (utils.js), its spawn helper (unixTerminal.js, `__dirname`)
 * and its Windows side (index.js, left out of the bundle and loaded from the package when used). Each
 * such call goes through a require rooted at node-pty/lib/ as Node resolves it when first needed.
 */
function nodePtyFromItsFolder() {
  const helpers = [
    "function __teamuxNodePtyLib() { var index = 'node-pty/lib/index.js'; return __teamuxNodePtyLib.dir ??= require('node:path').dirname(require.resolve(index)); }",
    "function __teamuxNodePtyRequire(id) { return (__teamuxNodePtyRequire.from ??= require('node:module').createRequire(__teamuxNodePtyLib() + '/index.js'))(id); }",
  ].join('\n');
  // Per file: what is replaced, by what, and how many times it must be found (another version of node-pty fails the build).
  const edits = {
    'index.js': [[/require\('\.\/windowsTerminal'\)/g, "__teamuxNodePtyRequire('./windowsTerminal')", 1]],
    'utils.js': [[/require\(dir \+ "\/" \+ name \+ "\.node"\)/g, '__teamuxNodePtyRequire(dir + "/" + name + ".node")', 1]],
    'unixTerminal.js': [[/\b__dirname\b/g, '__teamuxNodePtyLib()', 1]],
  };
  return {
    name: 'node-pty-from-its-folder',
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/]node-pty[\\/]lib[\\/](index|utils|unixTerminal)\.js$/ }, (args) => {
        let source = readFileSync(args.path, 'utf8');
        for (const [pattern, replacement, times] of edits[path.basename(args.path)]) {
          const found = source.match(pattern)?.length ?? 0;
          if (found !== times) throw new Error(`${args.path}: ${pattern} found ${found} times, not ${times} (another node-pty version?)`);
          source = source.replace(pattern, replacement);
        }
        return { contents: `${source}\n${helpers}\n`, loader: 'js' };
      });
    },
  };
}

/** zod's locales index, replaced by one that has English only (the only locale zod itself loads). */
function zodEnglishOnly() {
  return {
    name: 'zod-english-only',
    setup(build) {
      build.onResolve({ filter: /locales\/index\.js$/ }, (args) => (/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: path.join(path.dirname(args.importer), args.path), namespace: 'zod-en' } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'zod-en' }, (args) => ({ contents: 'export { default as en } from "./en.js";\n', resolveDir: path.dirname(args.path), loader: 'js' }));
    },
  };
}
