#!/usr/bin/env node
/**
 * Build teamux's native part (binding.gyp: native/pty-spawn.c, which starts pane processes with
 * posix_spawn) with node-gyp; `npm install` runs this. node-gyp is npm's own (npm names it in
 * $npm_config_node_gyp for install scripts), else `node-gyp` on PATH. A build that fails is not an
 * install that fails: teamux then starts panes with node-pty's forkpty, as it did before (slower to
 * start a screen), and teamux.log says which it uses. Only Linux has it.
 *   node scripts/build-native.mjs
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (process.platform !== 'linux') process.exit(0);
const gyp = process.env.npm_config_node_gyp;
const [cmd, args] = gyp ? (gyp.endsWith('.js') ? [process.execPath, [gyp]] : [gyp, []]) : ['node-gyp', []];
// node-gyp's progress is kept back; it is shown when the build fails.
const r = spawnSync(cmd, [...args, 'rebuild'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
if (r.status !== 0) {
  process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`);
  const why = r.error ? r.error.message : `node-gyp exited with ${r.status ?? r.signal}`;
  process.stderr.write(`teamux: the native pane spawner was not built (${why}); panes start with node-pty's forkpty instead\n  hint: it needs what node-pty needs (python3, make, a C compiler); run \`npm run build:native\` to try again\n`);
}
