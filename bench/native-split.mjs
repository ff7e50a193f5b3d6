#!/usr/bin/env node
// Benchmark: Claude Code's `split-window … -- CMD` to the first output of the new pane, through
// teamux's tmux stand-in (the generated Perl script, and the node client it falls back to) into a
// TmuxBridge whose panes are real ptys (node-pty), against the same command sent to a real tmux
// server on a private socket, whose pane output is seen by a control-mode client (%output), in the
// same run, interleaved. Goal: median teamux overhead (stand-in minus tmux) < 100 ms. Run after
// `npx tsc`. RUNS=N sets the number of rounds (default 15).
// The stand-in is run by the lead pane's own process (a small relay in a real pty, as Claude Code
// runs `tmux`), since the bridge lets only the lead's own process open panes (caller-gate.ts).
// BEFORE_DIST=/path/to/an/older/dist adds a row for that build's bridge, on a second socket.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PtyHost } from '../dist/host/pty.js';
import { TmuxBridge } from '../dist/agents/claude/tmux-bridge.js';
import { tmuxShimScript } from '../dist/agents/claude/launch.js';
import { writeTmuxShim } from '../dist/store/claude-teams.js';
import { initTeam } from '../dist/store/init.js';

const RUNS = Number(process.env.RUNS ?? 15);
const CLIENT = fileURLToPath(new URL('../dist/agents/claude/tmux-shim/client.js', import.meta.url));
const root = mkdtempSync(path.join(tmpdir(), 'teamux-bench-split-'));
const teamDir = path.join(root, '.teamux', 'bench');
const lead = { name: 'lead', role: 'lead', kind: 'lead', runtime: 'claude', speaksProtocol: true, planRequired: false, planApprover: null, tools: null };
const { store } = await initTeam(teamDir, { name: 'bench', root, layoutFile: null, members: [lead], seedTasks: [] });
const host = new PtyHost();
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, TERM: 'xterm-256color' };

/** A PaneControl over real ptys, noting when each pane first prints `READY`. */
const panes = [];
let readyWaiter = null;
const control = {
  all: () => [...panes],
  facts: (h) => (panes.includes(h) ? { name: h.name, rect: { left: 0, top: 1, width: 80, height: 23 }, alive: !h.exited, pid: h.proc.pid ?? null, focused: panes[0] === h } : null),
  area: () => ({ width: 160, height: 24 }),
  async open(launch) {
    const proc = await host.spawn({ id: launch.name, command: launch.command, args: launch.args, cwd: launch.cwd, env: launch.env, cols: 80, rows: 23 });
    const h = { name: launch.name, proc, exited: false, out: '', seen: false };
    proc.onData((d) => {
      h.out += typeof d === 'string' ? d : Buffer.from(d).toString();
      if (!h.seen && h.out.includes('READY')) {
        h.seen = true;
        readyWaiter?.(performance.now());
      }
    });
    proc.onExit(() => (h.exited = true));
    panes.push(h);
    return h;
  },
  async replace(old, launch) { await control.close(old); return control.open(launch); },
  async close(h) { h.proc.kill('SIGKILL'); panes.splice(panes.indexOf(h), 1); },
  focus() {},
  say() {},
};
// The lead pane's process: runs each JSON argv typed into it with execFile, prints DONE=<stdout>.
const relay = path.join(root, 'relay.mjs');
writeFileSync(relay, `import { execFile } from 'node:child_process';
import { createInterface } from 'node:readline';
process.stdin.setRawMode?.(true);
process.stdout.write('RELAY-READY\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const [file, ...args] = JSON.parse(line);
  execFile(file, args, (err, out, errText) => process.stdout.write('DONE=' + JSON.stringify(err ? 'ERR ' + errText : out) + '\\n'));
});
`);
const leadEnv = { ...env, TMUX: `${store.paths.tmuxSocket},${process.pid},0`, TMUX_PANE: '%0' };
const leadPane = await control.open({ name: 'lead', command: process.execPath, args: [relay], cwd: root, env: leadEnv });
await until(() => leadPane.out.includes('RELAY-READY'));
const leadLaunch = { name: 'lead', role: 'lead', isLead: true, speaksProtocol: true, command: process.execPath, args: [relay], cwd: root, env: leadEnv };
const socket = store.paths.tmuxSocket;
const bridge = new TmuxBridge({ socket, store, control, lead: leadLaunch, planRequired: false, session: 'bench' });
await bridge.listen();
const beforeDist = process.env.BEFORE_DIST;
const socketBefore = path.join(root, 'before.sock');
const bridgeBefore = beforeDist ? new (await import(path.join(beforeDist, 'app', 'tmux-bridge.js'))).TmuxBridge({ socket: socketBefore, store, control, lead: leadLaunch, planRequired: false, session: 'bench' }) : null;
await bridgeBefore?.listen();
const perlShim = await writeTmuxShim(store.paths, tmuxShimScript(process.execPath, CLIENT, '/usr/bin/perl'));

async function until(check, ms = 30_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting in the bench');
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Have the lead pane's process run `argv`; its stdout. */
async function inLead(argv) {
  const from = leadPane.out.length;
  leadPane.proc.write(`${JSON.stringify(argv)}\n`);
  let m = null;
  await until(() => (m = /DONE=(".*")\r?\n/.exec(leadPane.out.slice(from))) !== null);
  const out = JSON.parse(m[1]);
  if (out.startsWith('ERR ')) throw new Error(`${argv.join(' ')}: ${out}`);
  return out;
}

function run(file, args, e) {
  return new Promise((resolve, reject) => execFile(file, args, { env: e }, (err, out, errText) => (err ? reject(new Error(`${file} ${args.join(' ')}: ${errText || err.message}`)) : resolve(out))));
}

/** One round through the stand-in (run by the lead pane's process): split-window, time to READY in the new pane, then kill-pane. */
async function viaStandIn(file, args, sock = socket) {
  const t0 = performance.now();
  const seen = new Promise((resolve) => (readyWaiter = resolve));
  const id = (await inLead([file, ...args, '-S', sock, 'split-window', '-d', '-t', '%0', '-h', '-l', '70%', '-P', '-F', '#{pane_id}', '--', 'echo READY; sleep 30'])).trim();
  const t1 = await seen;
  readyWaiter = null;
  await inLead([file, ...args, '-S', sock, 'kill-pane', '-t', id]);
  return t1 - t0;
}

// The reference: a real tmux server, a control-mode client reporting pane output.
const sock = `teamux-bench-${process.pid}`;
await run('tmux', ['-L', sock, '-f', '/dev/null', 'new-session', '-d', '-s', 'b', '-x', '160', '-y', '24', 'sleep 3600'], { ...env, TMUX: '' });
const cc = spawn('tmux', ['-L', sock, '-C', 'attach', '-t', 'b'], { env: { ...env, TMUX: '' }, stdio: ['pipe', 'pipe', 'ignore'] });
let ccOut = '';
let ccWaiter = null;
cc.stdout.on('data', (d) => {
  ccOut += d.toString();
  if (ccWaiter && /%output %\d+ READY/.test(ccOut)) ccWaiter(performance.now());
});
async function viaTmux() {
  ccOut = '';
  const t0 = performance.now();
  const seen = new Promise((resolve) => (ccWaiter = resolve));
  const id = (await run('tmux', ['-L', sock, 'split-window', '-d', '-t', 'b', '-h', '-l', '70%', '-P', '-F', '#{pane_id}', '--', 'echo READY; sleep 30'], { ...env, TMUX: '' })).trim();
  const t1 = await seen;
  ccWaiter = null;
  await run('tmux', ['-L', sock, 'kill-pane', '-t', id], { ...env, TMUX: '' });
  return t1 - t0;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = { 'tmux 3.3a (reference)': [], 'teamux stand-in (Perl)': [], ...(bridgeBefore ? { 'stand-in (Perl), BEFORE_DIST': [] } : {}), 'teamux stand-in (node fallback)': [] };
try {
  for (let i = 0; i < RUNS; i++) {
    rows['tmux 3.3a (reference)'].push(await viaTmux());
    rows['teamux stand-in (Perl)'].push(await viaStandIn(perlShim, []));
    if (bridgeBefore) rows['stand-in (Perl), BEFORE_DIST'].push(await viaStandIn(perlShim, [], socketBefore));
    rows['teamux stand-in (node fallback)'].push(await viaStandIn(process.execPath, [CLIENT]));
  }
  const ref = median(rows['tmux 3.3a (reference)']);
  process.stdout.write(`split-window → first output of the new pane, median of ${RUNS} (interleaved, same run):\n`);
  for (const [name, xs] of Object.entries(rows)) {
    const m = median(xs);
    process.stdout.write(`  ${name.padEnd(34)} ${m.toFixed(1).padStart(7)} ms   ratio ${(m / ref).toFixed(2)}x   overhead ${(m - ref).toFixed(1)} ms\n`);
  }
  const overhead = median(rows['teamux stand-in (Perl)']) - ref;
  process.stdout.write(`  goal: teamux overhead < 100 ms: ${overhead < 100 ? 'met' : 'NOT met'} (${overhead.toFixed(1)} ms)\n`);
} finally {
  cc.kill();
  await run('tmux', ['-L', sock, 'kill-server'], { ...env, TMUX: '' }).catch(() => undefined);
  bridge.dispose();
  bridgeBefore?.dispose();
  await host.dispose({ kill: true });
  rmSync(root, { recursive: true, force: true });
}
