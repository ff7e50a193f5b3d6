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
 * the CommonJS Stop-hook entry (dist/claude/stop-fast.cjs, also run on its own). The bundle's
 * chunks sit one folder below dist/, as dist/cli/ does, so paths built from import.meta.url
 * (../../bin, ../claude/tmux-shim/client.js) point at the same files.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
const entry = path.join(root, 'dist', 'cli', 'main.js');
const outdir = path.join(root, 'dist', 'bundle');

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

rmSync(outdir, { recursive: true, force: true });
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { main: entry },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  plugins: [keepCommonJsEntries()],
  // CommonJS packages inside the bundle (e.g. @xterm/headless) may call require: give them Node's.
  banner: { js: "import { createRequire as __teamuxCreateRequire } from 'node:module';\nconst require = __teamuxCreateRequire(import.meta.url);" },
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});
const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'));
const kib = outputs.reduce((sum, [, o]) => sum + o.bytes, 0) / 1024;
// The bundle must not look older than the sources it was made from (bin/teamux compares the two).
if (statSync(path.join(outdir, 'main.js')).mtimeMs < statSync(entry).mtimeMs) {
  process.stderr.write('bundle: dist/bundle/main.js is older than dist/cli/main.js (clock skew?)\n');
  process.exit(1);
}
process.stdout.write(`bundle: ${outputs.length} files, ${kib.toFixed(0)} KiB in ${path.relative(root, outdir)}/\n`);

/** Leave `.cjs` imports (the Stop-hook entry) as they are: relative to the chunk, they name the same file. */
function keepCommonJsEntries() {
  return {
    name: 'keep-cjs-entries',
    setup(build) {
      build.onResolve({ filter: /\.cjs$/ }, (args) => ({ path: args.path, external: true }));
    },
  };
}
