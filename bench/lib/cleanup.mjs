/**
 * What a benchmark leaves behind, and its removal: the processes it started (by pid), the private
 * tmux servers (by socket name) and the temp folders. Everything is registered when it is created
 * and released by `cleanupAll()`, which runs from a `finally`, from the process 'exit' handler and
 * on SIGINT/SIGTERM. As a last net, every process still carrying this run's tag in its environment
 * (RUN_TAG; children inherit it: panes, tmux servers, `sleep`s) is killed by pid; the tag is unique
 * per run, so nothing another benchmark or user started is touched.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** The environment variable that marks this run's processes, and its value. */
export const RUN_TAG_VAR = 'TEAMUX_BENCH_RUN';
export const RUN_TAG = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;

// resources, released in reverse order of registration
const pids = new Set();
const sockets = new Set();
const dirs = new Set();
let installed = false;

/** An environment for children: the current one, tagged, without anything tying it to an outer tmux. */
export function childEnv(extra = {}) {
  const env = { ...process.env, ...extra, [RUN_TAG_VAR]: RUN_TAG, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TERM: 'xterm-256color' };
  delete env.TMUX;
  delete env.TMUX_PANE;
  delete env.TEAMUX_TEAM_DIR;
  delete env.TEAMUX_MEMBER;
  return env;
}

/** Remember a process to kill at the end (its process group too, when it leads one). */
export function trackPid(pid) {
  installHandlers();
  pids.add(pid);
  return () => pids.delete(pid);
}

/** Remember a private tmux server to kill at the end. */
export function trackTmuxSocket(socket) {
  installHandlers();
  sockets.add(socket);
  return () => sockets.delete(socket);
}

/** A fresh temp folder, removed at the end. */
export function tempDir(prefix) {
  installHandlers();
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

function killQuietly(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // not a group leader, or gone
  }
  try {
    process.kill(pid, signal);
  } catch {
    // gone
  }
}

/** Pids of live processes whose environment carries this run's tag (only our own are readable). */
export function taggedPids() {
  const mark = `${RUN_TAG_VAR}=${RUN_TAG}`;
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`, 'latin1');
      if (env.split('\0').includes(mark)) out.push(Number(name));
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

/** Where tmux puts the socket of `tmux -L name` (tmux leaves the file behind when killed). */
export function tmuxSocketPath(name) {
  return path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid()}`, name);
}

/** Kill a private tmux server and remove its socket file. */
export function killTmuxServer(name) {
  try {
    execFileSync('tmux', ['-L', name, 'kill-server'], { stdio: 'ignore', timeout: 5_000 });
  } catch {
    // already gone
  }
  rmSync(tmuxSocketPath(name), { force: true });
}

/** Release everything (synchronous, so it can run from an 'exit' handler). */
export function cleanupAll() {
  for (const socket of sockets) killTmuxServer(socket);
  sockets.clear();
  for (const pid of pids) killQuietly(pid, 'SIGKILL');
  pids.clear();
  for (const pid of taggedPids()) killQuietly(pid, 'SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

function installHandlers() {
  if (installed) return;
  installed = true;
  process.on('exit', cleanupAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      cleanupAll();
      process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1));
    });
  }
}
