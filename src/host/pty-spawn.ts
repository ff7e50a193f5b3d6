/**
 * How pane processes are started, and when their exit is told: the one function of node-pty's native
 * module that teamux stands in for (`fork`, which node-pty's UnixTerminal calls; reading, writing,
 * resizing stay node-pty's).
 *
 * Starting: with posix_spawn (teamux's native part, native/pty-spawn.c, built by `npm install` into
 * build/Release/) instead of node-pty's forkpty, on Linux. A fork() makes every page the screen
 * writes to next take a copy-on-write fault; on a virtual machine starting four panes cost tens of
 * milliseconds of them. posix_spawn borrows this process's memory until the child execs, and costs
 * none. It takes node-pty's own `fork` arguments and returns what it returns; for what it does not do
 * alike (a uid to switch to, a program not on the member's PATH, any spawn error) it answers null and
 * node-pty's forkpty runs, so a pane behaves the same either way. TEAMUX_SPAWN=forkpty keeps forkpty.
 *
 * The exit: node-pty destroys a pane's read socket 200 ms after its process ended, dropping whatever
 * output was still unread, and a pane that teamux is not reading at that moment (read pacing, flow
 * control) lost the end of its output. So the exit is handed to node-pty only once the pane's
 * output has been read to its end (its socket closed), or once it has been read for EXIT_DRAIN_MS
 * without reaching an end (rare: the kernel hangs the terminal up when its session leader ends, so
 * even jobs left in the background do not keep it open), or after EXIT_HOLD_MAX_MS of not being
 * read at all. PtyPane (host/pty.ts) says when it reads.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** node-pty's `fork` (its native module's), and the posix_spawn one with the same arguments. */
type NativeFork = (file: string, args: string[], env: string[], cwd: string, cols: number, rows: number, uid: number, gid: number, utf8: boolean, helperPath: string, onexit: (code: number, signal: number) => void) => { fd: number; pid: number; pty: string } | null;

/** How long an ended pane that is being read may take to reach the end of its output before its exit is told anyway. */
export const EXIT_DRAIN_MS = 100;
/** How long an ended pane's exit waits while the pane is not being read (a frame that never comes). */
export const EXIT_HOLD_MAX_MS = 5_000;

/** 'posix_spawn', or 'forkpty' and why: set once the first pane is about to start. */
let method: string | null = null;

/** Which way panes are started, and why (for teamux.log). */
export function spawnMethod(): string {
  return method ?? 'not chosen yet';
}

/**
 * Put teamux's `fork` in front of node-pty's, once: panes started afterwards use posix_spawn when
 * they can, and have their exit told once their output is read. Never throws: without the native
 * part, node-pty's forkpty starts every pane.
 */
export function installPaneSpawn(): string {
  if (method !== null) return method;
  method = install();
  return method;
}

function install(): string {
  const require = createRequire(import.meta.url);
  const nodePty = nodePtyNative(require);
  if (typeof nodePty === 'string') return `forkpty (node-pty's native module: ${nodePty})`;
  const forkpty = nodePty.fork;
  if (typeof forkpty !== 'function') return 'forkpty (unexpected native module)';
  const spawn = posixSpawn(require);
  const start: NativeFork = typeof spawn === 'string' ? forkpty : (...args) => spawn(...args) ?? forkpty(...args);
  if (!nodePty.__teamuxSpawn) {
    nodePty.fork = (file, args, env, cwd, cols, rows, uid, gid, utf8, helperPath, onexit) => {
      const gate: Gate = { pid: -1, exit: null, closed: false, held: false, timer: null, tell: onexit };
      const r = start(file, args, env, cwd, cols, rows, uid, gid, utf8, helperPath, (code, signal) => {
        gate.exit = [code, signal];
        settle(gate);
      });
      if (r) {
        gate.pid = r.pid;
        gates.set(r.pid, gate);
      }
      return r;
    };
    nodePty.__teamuxSpawn = true;
  }
  return typeof spawn === 'string' ? `forkpty (${spawn})` : 'posix_spawn';
}

/** The posix_spawn `fork`, or why there is none. */
function posixSpawn(require: NodeJS.Require): NativeFork | string {
  if (process.platform !== 'linux') return 'posix_spawn is used on Linux only';
  if (process.env.TEAMUX_SPAWN === 'forkpty') return 'TEAMUX_SPAWN=forkpty';
  try {
    // dist/<folder>/ (dist/host, dist/boot, dist/bundle) → the checkout's build/Release/
    const spawn = require(fileURLToPath(new URL('../../build/Release/teamux_pty_spawn.node', import.meta.url))) as { fork?: NativeFork };
    return typeof spawn.fork === 'function' ? spawn.fork : 'unexpected native part';
  } catch (err) {
    return `the native part is not built: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; npm run build:native`;
  }
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

/** One pane's exit on its way to node-pty. */
interface Gate {
  pid: number;
  /** The process's exit code and signal, once it has ended. */
  exit: [number, number] | null;
  /** Its output was read to the end (the read socket closed). */
  closed: boolean;
  /** The pane is not being read now. */
  held: boolean;
  timer: NodeJS.Timeout | null;
  /** node-pty's exit callback. */
  tell: (code: number, signal: number) => void;
}

/** Panes started by teamux's `fork` whose exit has not been told yet, by pid. */
const gates = new Map<number, Gate>();

/** Tell an ended pane's exit now, or once its output is read (see the header). */
function settle(gate: Gate): void {
  if (!gate.exit) return;
  if (gate.timer) clearTimeout(gate.timer);
  if (gate.closed) return tell(gate);
  gate.timer = setTimeout(() => tell(gate), gate.held ? EXIT_HOLD_MAX_MS : EXIT_DRAIN_MS);
}

function tell(gate: Gate): void {
  if (gate.timer) clearTimeout(gate.timer);
  gate.timer = null;
  gates.delete(gate.pid);
  const [code, signal] = gate.exit!;
  gate.tell(code, signal);
}

/** Whether the pane of process `pid` is being read now (PtyPane says so each time it stops or starts). */
export function paneReading(pid: number, reading: boolean): void {
  const gate = gates.get(pid);
  if (!gate || gate.held === !reading) return;
  gate.held = !reading;
  settle(gate);
}

/** The pane of process `pid` has read its output to the end. */
export function paneOutputEnded(pid: number): void {
  const gate = gates.get(pid);
  if (!gate) return;
  gate.closed = true;
  settle(gate);
}
