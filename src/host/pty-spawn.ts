/**
 * How pane processes are started: with posix_spawn (teamux's native part, native/pty-spawn.c, built by
 * `npm install` into build/Release/) instead of node-pty's forkpty, on Linux. A fork() makes every
 * page the screen writes to next take a copy-on-write fault; on a virtual machine starting four
 * panes cost tens of milliseconds of them. posix_spawn borrows this process's memory until the child
 * execs, and costs none. The native part takes node-pty's own `fork` arguments and returns what it
 * returns, so it stands in for that one function of node-pty's native module (which node-pty's
 * UnixTerminal calls); everything else (reading, writing, resizing, the exit event) is node-pty's.
 * For what it does not do alike (a uid to switch to, a program not on the member's PATH, any spawn
 * error) it answers null and node-pty's forkpty runs, so a pane behaves the same either way.
 * TEAMUX_SPAWN=forkpty keeps node-pty's forkpty for every pane.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** node-pty's `fork` (its native module's), and the posix_spawn one with the same arguments. */
type NativeFork = (file: string, args: string[], env: string[], cwd: string, cols: number, rows: number, uid: number, gid: number, utf8: boolean, helperPath: string, onexit: (code: number, signal: number) => void) => { fd: number; pid: number; pty: string } | null;

/** 'posix_spawn', or 'forkpty' and why: set once the first pane is about to start. */
let method: string | null = null;

/** Which way panes are started, and why (for teamux.log). */
export function spawnMethod(): string {
  return method ?? 'not chosen yet';
}

/**
 * Put the posix_spawn `fork` in front of node-pty's, once: panes started afterwards use it when they
 * can. Never throws: without the native part, node-pty's forkpty starts every pane.
 */
export function usePosixSpawn(): string {
  if (method !== null) return method;
  method = install();
  return method;
}

function install(): string {
  if (process.platform !== 'linux') return 'forkpty (posix_spawn is used on Linux only)';
  if (process.env.TEAMUX_SPAWN === 'forkpty') return 'forkpty (TEAMUX_SPAWN=forkpty)';
  const require = createRequire(import.meta.url);
  let spawn: { fork?: NativeFork };
  try {
    // dist/<folder>/ (dist/host, dist/boot, dist/bundle) → the checkout's build/Release/
    spawn = require(fileURLToPath(new URL('../../build/Release/teamux_pty_spawn.node', import.meta.url))) as { fork?: NativeFork };
  } catch (err) {
    return `forkpty (the native part is not built: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; npm run build:native)`;
  }
  const nodePty = nodePtyNative(require);
  if (typeof nodePty === 'string') return `forkpty (node-pty's native module: ${nodePty})`;
  const forkpty = nodePty.fork;
  const posixSpawn = spawn.fork;
  if (typeof forkpty !== 'function' || typeof posixSpawn !== 'function') return 'forkpty (unexpected native modules)';
  if (!nodePty.__teamuxSpawn) {
    nodePty.fork = (...args) => posixSpawn(...args) ?? forkpty(...args);
    nodePty.__teamuxSpawn = true;
  }
  return 'posix_spawn';
}

/**
 * node-pty's native module, found where node-pty's own loader (lib/utils.js, loadNativeModule) looks
 * first: the very object its UnixTerminal calls, since require caches one per file. Its JavaScript is
 * not loaded from node_modules (the screen's bundle has it). An error message when it is not there.
 */
function nodePtyNative(require: NodeJS.Require): { fork?: NativeFork; __teamuxSpawn?: boolean } | string {
  let root: string;
  try {
    root = path.dirname(require.resolve('node-pty/package.json'));
  } catch (err) {
    return (err as Error).message;
  }
  let last = 'not found';
  for (const dir of ['build/Release', 'build/Debug', `prebuilds/${process.platform}-${process.arch}`]) {
    try {
      return require(path.join(root, dir, 'pty.node')) as { fork?: NativeFork };
    } catch (err) {
      last = (err as Error).message;
    }
  }
  return last;
}
