/**
 * The two multiplexers under comparison, each started with the same panes in an outer terminal of
 * the same size: teamux (`node bin/teamux start LAYOUT.yaml` running directly in an OuterTerminal),
 * and tmux (a private server, `-L bench-<pid>-<random>`, with a client attached in an OuterTerminal, so
 * tmux really renders). A pane is `{ name, argv }`; pane 0 is the main (focused) one, the rest are
 * stacked beside it (main-vertical, main pane half the width, as teamux's default). tmux is given a
 * title row per pane (pane-border-status top) and teamux's scrollback (history-limit 5000), so both
 * draw the same pane sizes and keep the same history; everything else is tmux's default.
 * teamux can also be started on its tmux backend (`--backend tmux`): its members then live in a
 * session on a private server of their own (`TEAMUX_TMUX_SOCKET=bench-...`), which stop() kills,
 * since teamux leaves that backend's members running when it is signalled.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { childEnv, killTmuxServer, trackTmuxSocket } from './cleanup.mjs';
import { OuterTerminal } from './outer.mjs';
import { clock } from './timing.mjs';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The teamux under test: a checkout's `bin/teamux` and the `dist/` beside it. By default this
 * checkout's, or another build's for an A/B run (TEAMUX_BENCH_BIN=/other/checkout/bin/teamux).
 */
export const build = {
  root: process.env.TEAMUX_BENCH_BIN ? path.resolve(path.dirname(process.env.TEAMUX_BENCH_BIN), '..') : REPO,
  get bin() {
    return path.join(this.root, 'bin', 'teamux');
  },
  get dist() {
    return path.join(this.root, 'dist');
  },
  /** dist/store/team.js of this build, once loaded (see snapshotBuild). */
  storeModule: null,
  /** TeamStore from this build's dist/. */
  async teamStore() {
    this.storeModule ??= await import(pathToFileURL(path.join(this.dist, 'store', 'team.js')).href);
    return this.storeModule.TeamStore;
  },
};

/**
 * Measure a private copy of the build (bin/, dist/, build/Release's native part, package.json;
 * node_modules linked), so that a rebuild of the checkout during the run (others work in it) cannot
 * change what is measured.
 * Returns where it came from and when that dist/ was last written.
 */
export async function snapshotBuild(dir) {
  const root = path.join(dir, 'teamux-under-test');
  const dist = path.join(build.root, 'dist');
  // A build in progress leaves half-written files: wait until dist/ has been still for a while, and
  // copy again if it changed during the copy.
  let before = 0;
  for (let attempt = 0; ; attempt++) {
    const deadline = Date.now() + 30_000;
    while (Date.now() - newestMtime(dist) < QUIET_BUILD_MS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    before = newestMtime(dist);
    rmSync(root, { recursive: true, force: true });
    // Timestamps kept: bin/teamux picks dist/bundle/ over dist/cli/ by their modification times.
    for (const part of ['bin', 'dist']) cpSync(path.join(build.root, part), path.join(root, part), { recursive: true, preserveTimestamps: true });
    // The native pane spawner (binding.gyp), when it was built.
    const native = path.join(build.root, 'build', 'Release', 'teamux_pty_spawn.node');
    if (existsSync(native)) cpSync(native, path.join(root, 'build', 'Release', 'teamux_pty_spawn.node'), { preserveTimestamps: true });
    if (newestMtime(dist) === before || attempt >= 3) break;
  }
  cpSync(path.join(build.root, 'package.json'), path.join(root, 'package.json'));
  symlinkSync(path.join(build.root, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  // The store API this process uses (sidebar section) comes from the checkout, loaded now while its
  // dist/ is still: loading it from the copy would reach CommonJS packages through the node_modules
  // symlink, and Node then caches proper-lockfile under both paths, one of them empty.
  build.storeModule = await import(pathToFileURL(path.join(dist, 'store', 'team.js')).href);
  const from = build.root;
  build.root = root;
  return { from, builtMs: before };
}

const QUIET_BUILD_MS = 3_000;

/** The newest modification time (ms) of any file under `dir`. */
export function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** The scrollback both keep per pane (teamux's SCROLLBACK_LINES; tmux's history-limit). */
export const SCROLLBACK = 5_000;

let serial = 0;

/** Write a teamux layout file (JSON is YAML) in a fresh folder under `dir`; returns its path and team folder. */
export function writeLayout(dir, { name, panes, sidebar = { hidden: true }, shutdownTimeout = 1 }) {
  const root = path.join(dir, `${name}-${++serial}`);
  mkdirSync(root, { recursive: true });
  const member = (p) => ({ name: p.name, role: p.role ?? `bench pane ${p.name}`, command: p.argv });
  const layout = {
    name,
    layout: { name: 'main-vertical', main_size: '50%' },
    sidebar,
    shutdown_timeout: shutdownTimeout,
    lead: member(panes[0]),
    teammates: panes.slice(1).map(member),
  };
  const file = path.join(root, 'layout.yaml');
  writeFileSync(file, `# generated by bench/mux.mjs\n${JSON.stringify(layout, null, 2)}\n`);
  return { file, root, teamDir: path.join(root, '.teamux', name) };
}

/**
 * Start teamux on a layout in an outer terminal; `started` is the clock() just before the spawn.
 * backend 'tmux' runs the members on a private tmux server (kind 'teamux-tmux', `socket` its name);
 * `env` adds variables to teamux's environment; `bin` runs another build's bin/teamux (default: the
 * build measured).
 */
export function startTeamux(dir, { name, panes, cols, rows, sidebar, backend = 'pty', env: extraEnv = {}, bin = build.bin }) {
  const layout = writeLayout(dir, { name, panes, sidebar });
  const server = backend === 'tmux' ? newSocket() : null;
  const env = childEnv({ ...extraEnv, ...(server ? { TEAMUX_TMUX_SOCKET: server.socket } : {}) });
  const args = [bin, 'start', layout.file, ...(server ? ['--backend', 'tmux'] : [])];
  const started = clock();
  const outer = new OuterTerminal(process.execPath, args, { cols, rows, env, cwd: layout.root });
  return {
    kind: server ? 'teamux-tmux' : 'teamux',
    outer,
    started,
    layout,
    socket: server?.socket ?? null,
    /** The teamux process (the pty's child is node itself). */
    pid: outer.pid,
    /** The tmux backend's server (it runs the members' panes and parses their output too). */
    serverPid() {
      if (!server) throw new Error('teamux runs on its pty backend: there is no tmux server');
      return tmuxServerPid(server.socket);
    },
    async stop() {
      try {
        await outer.stop('SIGTERM', 3_000);
      } finally {
        // Signalled, teamux detaches from its tmux backend and the members keep running: end them.
        if (server) {
          killTmuxServer(server.socket);
          server.untrack();
        }
      }
    },
  };
}

/** The pid of the tmux server on the private socket `socket`. */
function tmuxServerPid(socket) {
  return Number(execFileSync('tmux', ['-L', socket, 'display-message', '-p', '#{pid}'], { encoding: 'utf8', env: childEnv() }).trim());
}

/** Whether a tmux server answers on the private socket `socket`. */
export function tmuxServerRuns(socket) {
  try {
    execFileSync('tmux', ['-L', socket, 'ls'], { stdio: 'ignore', env: childEnv(), timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

function tmuxConf(dir, cols) {
  const file = path.join(dir, `tmux-${++serial}.conf`);
  writeFileSync(file, [
    `set -g history-limit ${SCROLLBACK}`,
    'set -g pane-border-status top',
    `set -g main-pane-width ${Math.round(cols / 2)}`,
    '',
  ].join('\n'));
  return file;
}

/** The tmux command sequence that builds the panes (argv form: `cmd ; cmd ; ...`). */
function tmuxBuildArgs(panes, detached, cols, rows) {
  const args = ['new-session', ...(detached ? ['-d', '-x', String(cols), '-y', String(rows)] : []), '-s', 'bench', '--', ...panes[0].argv];
  // Re-apply the layout after every split: splitting the newest pane again and again runs out of room.
  for (const p of panes.slice(1)) args.push(';', 'split-window', '-t', 'bench', '--', ...p.argv, ';', 'select-layout', '-t', 'bench', 'main-vertical');
  args.push(';', 'select-pane', '-t', 'bench:0.0');
  return args;
}

function newSocket() {
  const socket = `bench-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  return { socket, untrack: trackTmuxSocket(socket) };
}

function tmuxHandle({ socket, untrack }, outer, started) {
  return {
    kind: 'tmux',
    outer,
    started,
    socket,
    /** The tmux server (it owns the panes, parses their output and renders for the client). */
    serverPid() {
      return tmuxServerPid(socket);
    },
    /** The attached client. */
    get clientPid() {
      return outer.pid;
    },
    async stop() {
      killTmuxServer(socket);
      untrack();
      await outer.stop('SIGTERM', 2_000);
    },
  };
}

/**
 * Node's floor (bench/lib/node-floor.cjs): node and node-pty start the panes and draw one frame with
 * their titles and first output, in an outer terminal like the others. A reference, not a multiplexer.
 */
export function startNodeFloor(dir, { panes, cols, rows }) {
  return floorHandle(dir, ['frame', JSON.stringify(panes), String(cols), String(rows)], cols, rows);
}

/**
 * Node's floor for keystroke echo (bench/lib/node-floor.cjs relay): the first pane's argv in a pty,
 * the outer terminal's raw input passed to it and its output straight back. A reference, not a multiplexer.
 */
export function startNodeRelay(dir, { panes, cols, rows }) {
  return floorHandle(dir, ['relay', JSON.stringify(panes[0].argv)], cols, rows);
}

function floorHandle(dir, args, cols, rows) {
  const started = clock();
  const outer = new OuterTerminal(process.execPath, [path.join(REPO, 'bench', 'lib', 'node-floor.cjs'), ...args], { cols, rows, env: childEnv(), cwd: dir });
  return {
    kind: 'floor',
    outer,
    started,
    pid: outer.pid,
    async stop() {
      await outer.stop('SIGTERM', 2_000);
    },
  };
}

/** Start a private tmux server with the panes, then attach a client in an outer terminal. */
export function startTmux(dir, { panes, cols, rows }) {
  const server = newSocket();
  const { socket } = server;
  const conf = tmuxConf(dir, cols);
  try {
    execFileSync('tmux', ['-L', socket, '-f', conf, ...tmuxBuildArgs(panes, true, cols, rows)], { env: childEnv(), cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    throw new Error(`tmux could not build the ${panes.length}-pane session: ${String(err.stderr ?? err.message).trim().slice(0, 300)}`);
  }
  const started = clock();
  const outer = new OuterTerminal('tmux', ['-L', socket, 'attach-session', '-t', 'bench'], { cols, rows, env: childEnv(), cwd: dir });
  return tmuxHandle(server, outer, started);
}

/** Start tmux cold, server and client in one command in the outer terminal (the start-up reference). */
export function startTmuxCold(dir, { panes, cols, rows }) {
  const server = newSocket();
  const { socket } = server;
  const conf = tmuxConf(dir, cols);
  const started = clock();
  const outer = new OuterTerminal('tmux', ['-L', socket, '-f', conf, ...tmuxBuildArgs(panes, false, cols, rows)], { cols, rows, env: childEnv(), cwd: dir });
  return tmuxHandle(server, outer, started);
}

/** tmux's version string. */
export function tmuxVersion() {
  try {
    return execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim();
  } catch {
    return 'tmux not found';
  }
}
