#!/usr/bin/env node
/**
 * Scaling benchmark: how the team store's costs grow with the size of the work, each figure next to a
 * reference measured in the same run, with medians and ranges of interleaved runs and the ratios.
 *   cli      `teamux --version`, `inbox read`, `task claim` (10k board) vs `node -e 0` and `tmux -V`
 *   tasks    claim-next, task list --status/--ready on boards of 10/1k/5k/10k tasks, in-process, vs
 *            reading the whole board (TaskBoard.snapshot, what claim and list did before the index)
 *   sidebar  task write → sidebar rows rendered, on populated boards (TeamWatch + renderSidebar), vs
 *            the fs.watch event for the same file; CPU per change
 *   logs     reading what is new in events.jsonl and an inbox of 1k/100k lines vs reading the file
 *   panes    start-up and RSS with 2/4/8/16 panes, RSS of 8 panes with full and empty scrollback,
 *            CPU while 4 panes print 100 lines/s, vs tmux
 *            (bench/scale/panes.mjs)
 *   long     one long run: a team under steady traffic, its last window against its first (memory,
 *            latency, CPU per operation, disk), bench/scale/long-run.mjs; TEAMUX_BENCH_LONG_S sets its
 *            length (quick: 20 s in 5 s windows, else 180 s in 30 s windows)
 * `--quick` takes fewer samples and a sidebar row at 1k/5k only (a few minutes); every row is still
 * printed. Sections can be named: `node bench/scale.mjs --quick tasks panes`. TEAMUX_BENCH_SIZES
 * picks the board sizes. Run `npx tsc -p tsconfig.json` first; it measures dist/ of this checkout.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cleanupAll, RUN_TAG, tempDir } from './lib/cleanup.mjs';
import { machineLine, num, printTable, ratio } from './lib/report.mjs';
import { clock, summarize } from './lib/timing.mjs';
import { longRunRows } from './scale/long-run.mjs';
import { memoryRows, paneCountRows, printingRows } from './scale/panes.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const DIST = path.join(REPO, 'dist');
const BIN = path.join(REPO, 'bin', 'teamux');
const QUICK = process.argv.includes('--quick');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const want = (s) => only.length === 0 || only.includes(s);

const SIZES_SET = process.env.TEAMUX_BENCH_SIZES ? process.env.TEAMUX_BENCH_SIZES.split(',').map(Number) : null;
const SIZES = SIZES_SET ?? [10, 1_000, 5_000, 10_000];
const SIDEBAR_SIZES = SIZES_SET ?? (QUICK ? [1_000, 5_000] : [10, 1_000, 5_000, 10_000]);
const CLI_BOARD = 10_000;
const RUNS = QUICK ? 7 : 15;

/** Progress on stderr (the tables go to stdout), so a slow row is seen as slow, not as a hang. */
const note = (what) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${what}\n`);

const load = (rel) => import(pathToFileURL(path.join(DIST, rel)).href);
const { TeamStore } = await load('store/team.js');
const { initTeam } = await load('store/init.js');

const member = (name, kind) => ({ name, role: kind, kind, runtime: 'command', speaksProtocol: true, planRequired: false, planApprover: null, tools: null });

/** A team folder with `n` task files written directly (a third of them completed, every fifth blocked by the one before). */
async function board(n) {
  const root = tempDir('teamux-scale-');
  const dir = path.join(root, '.teamux', 'scale');
  const { store } = await initTeam(dir, { name: 'scale', root, layoutFile: null, members: [member('lead', 'lead'), member('amy', 'teammate')], seedTasks: [] });
  const now = new Date().toISOString();
  for (let i = 1; i <= n; i++) {
    const done = i % 3 === 0;
    const task = {
      version: 1, id: String(i), subject: `task ${i}`, description: '', status: done ? 'completed' : 'pending', owner: done ? 'amy' : null,
      blocks: [], blockedBy: i % 5 === 0 ? [String(i - 1)] : [], revision: 1, createdAt: now, updatedAt: now, claimedAt: null, completedAt: null, result: null, holder: null,
    };
    writeFileSync(path.join(dir, 'tasks', `${i}.json`), JSON.stringify(task, null, 2) + '\n');
  }
  writeFileSync(path.join(dir, 'tasks', 'highwater'), `${n}\n`);
  return { dir, store };
}

async function open(dir) {
  const r = await TeamStore.open(dir, 'bench');
  if (!r.ok) throw new Error(r.error.message);
  return r.store;
}

/** "median (min–max)" of samples in ms. */
function mr(samples) {
  const s = summarize(samples);
  return `${num(s.p50)} (${num(s.min)}–${num(s.max)})`;
}
const med = (samples) => summarize(samples).p50;

/** Time `argv` as a child process, `runs` times each, interleaved with the others (`before`, untimed, runs first each time). */
async function interleaved(commands, runs) {
  const times = commands.map(() => []);
  for (let r = 0; r < runs; r++) {
    for (const [i, c] of commands.entries()) {
      if (c.before) await c.before();
      const t0 = clock();
      const p = spawnSync(c.argv[0], c.argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...c.env } });
      const t = clock() - t0;
      if (p.status !== c.status) throw new Error(`${c.name}: exit ${p.status}: ${String(p.stderr).slice(0, 300)}`);
      times[i].push(t);
    }
  }
  return times;
}

async function cliSection() {
  note(`cli: ${CLI_BOARD} tasks`);
  const { dir, store } = await board(CLI_BOARD);
  await store.tasks.index.current();
  for (let i = 0; i < 20; i++) await store.send({ from: 'lead', to: 'amy', type: 'message', text: `hello ${i}` });
  // The lead's inbox holds a full de-duplication list (2,000 ids) before the timed reads.
  for (let i = 0; i < 2_000; i++) await store.send({ from: 'amy', to: 'lead', type: 'message', text: `earlier ${i}` });
  await store.mail.read('lead');
  const tmux = spawnSync('tmux', ['-V']).status === 0;
  const commands = [
    { name: 'node -e 0', argv: [process.execPath, '-e', '0'], status: 0 },
    ...(tmux ? [{ name: 'tmux -V', argv: ['tmux', '-V'], status: 0 }] : []),
    { name: 'teamux --version', argv: [process.execPath, BIN, '--version'], status: 0 },
    // Read and then nothing new: each run reads an inbox that has no unread messages after the first.
    { name: 'teamux inbox read', argv: [process.execPath, BIN, 'inbox', 'read', '--as', 'amy', '--team-dir', dir], status: 0 },
    // One new message each time (sent before the clock starts): the read prints it and moves the cursor.
    { name: 'teamux inbox read, 1 new', argv: [process.execPath, BIN, 'inbox', 'read', '--as', 'lead', '--team-dir', dir], status: 0, before: () => store.send({ from: 'amy', to: 'lead', type: 'message', text: 'one more' }) },
    { name: `teamux task claim (${CLI_BOARD / 1000}k board)`, argv: [process.execPath, BIN, 'task', 'claim', '--as', 'amy', '--team-dir', dir], status: 0 },
  ];
  // TEAMUX_BENCH_BASE=/other/checkout/bin/teamux: that build's --version, inbox read and claim in the same rotation.
  const baseBin = process.env.TEAMUX_BENCH_BASE;
  const based = baseBin ? commands.filter((c) => c.argv[1] === BIN && !c.before).map((c) => ({ ...c, name: `${c.name} [base]`, argv: [c.argv[0], baseBin, ...c.argv.slice(2)] })) : [];
  commands.push(...based);
  const times = await interleaved(commands, RUNS);
  const node = med(times[0]);
  const version = med(times[commands.findIndex((c) => c.name === 'teamux --version')]);
  const baseOf = (name) => commands.findIndex((c) => c.name === `${name} [base]`);
  const rows = commands.map((c, i) => [c.name, mr(times[i]), ratio(med(times[i]), node), ratio(med(times[i]), version), baseOf(c.name) < 0 ? '' : ratio(med(times[i]), med(times[baseOf(c.name)]))]);
  printTable(`CLI floor: ${RUNS} interleaved runs each, ms (median (min–max)); goals: --version and inbox read ≤ 1.5x node -e 0, task claim ≤ 1.2x --version`, ['command', 'median (range)', 'vs node -e 0', 'vs --version', 'vs base'], rows);
}

async function tasksSection() {
  const rows = [];
  for (const n of SIZES) {
    note(`tasks: ${n}`);
    const { dir } = await board(n);
    const s = await open(dir);
    const t0 = clock();
    await s.tasks.index.current();
    const build = clock() - t0;
    const claim = [];
    const full = [];
    const listFew = [];
    const listReady = [];
    // Each sample claims one ready task; three more are left for the cold-handle claims.
    const readyCount = s.tasks.index.ready(await s.tasks.index.current()).length;
    const samples = Math.min(n >= 5_000 ? (QUICK ? 5 : 9) : 15, readyCount - 3);
    for (let i = 0; i < samples; i++) {
      // Interleaved: the reference (a whole-board read) and each indexed operation in turn.
      let a = clock();
      await s.tasks.snapshot();
      full.push(clock() - a);
      a = clock();
      const r = await s.claim('amy');
      claim.push(clock() - a);
      if (!r.ok) throw new Error(r.message);
      a = clock();
      await s.tasks.list({ status: 'in_progress' });
      listFew.push(clock() - a);
      if (i < 3) {
        a = clock();
        const l = await s.tasks.list({ ready: true });
        listReady.push({ ms: clock() - a, rows: l.tasks.length });
      }
    }
    // A fresh handle, as a new CLI process has: the index comes from disk.
    const cold = [];
    for (let i = 0; i < 3; i++) {
      const c = await open(dir);
      const a = clock();
      const r = await c.claim('amy');
      cold.push(clock() - a);
      if (!r.ok) throw new Error(r.message);
    }
    const lr = listReady.map((x) => x.ms);
    rows.push([
      num(n, 0), mr(full), mr(claim), ratio(med(claim), med(full)), mr(cold), `${mr(listFew)} (${samples} rows)`, `${mr(lr)} (${listReady[0].rows} rows)`, num(build),
    ]);
  }
  printTable('Tasks, in-process, ms (median (min–max)); reference: reading the whole board (snapshot); goal: claim < 20 ms at 10k, lists in proportion to rows', ['tasks', 'whole board read', 'claim next', 'claim/read', 'claim, cold handle', 'list --status in_progress', 'list --ready', 'index build'], rows);
}

async function sidebarSection() {
  const { TeamWatch } = await load('store/team-watch.js');
  const { renderSidebar } = await load('ui/sidebar.js');
  const rows = [];
  for (const n of SIDEBAR_SIZES) {
    note(`sidebar: ${n} tasks`);
    const { dir } = await board(n);
    const writer = await open(dir);
    const watchStore = await open(dir);
    const tw = new TeamWatch(watchStore);
    await tw.start();
    const fsEvents = new Map();
    const fsw = watch(path.join(dir, 'tasks'), (_t, name) => {
      if (name && !fsEvents.has(name)) fsEvents.set(name, clock());
    });
    const shown = [];
    const watched = [];
    const cpu = [];
    const samples = QUICK ? 15 : 40;
    try {
      for (let i = 0; i < samples + 3; i++) {
        const subject = `fresh ${i}`;
        const expected = tw.state().board.size + 1;
        let rendered = null;
        const seen = new Promise((resolve) => {
          const sub = tw.onChange((s) => {
            // What the screen does on each change: render the sidebar's rows (the new task is counted in its header).
            const out = renderSidebar(s, { width: 40, height: 50, sections: ['task_board', 'mailbox', 'requests'], selectedRequest: null, notices: [] });
            if (s.board.size === expected && out.some((r) => r.some((c) => c.text.includes(`TASKS ${expected} `)))) {
              rendered = clock();
              sub.dispose();
              resolve();
            }
          });
        });
        const c0 = process.cpuUsage();
        const t0 = clock();
        const r = await writer.tasks.create({ subject });
        await seen;
        const used = process.cpuUsage(c0);
        if (i >= 3) {
          shown.push(rendered - t0);
          const ev = fsEvents.get(`${r.value.id}.json`);
          if (ev) watched.push(ev - t0);
          cpu.push((used.user + used.system) / 1000);
        }
        // Claimed and completed, so the next new task is the first ready row again.
        await writer.claim('amy', r.value.id);
        await writer.complete('amy', r.value.id, null);
        fsEvents.clear();
      }
    } finally {
      fsw.close();
      await tw.dispose();
    }
    const a = summarize(shown);
    const b = summarize(watched);
    const p95 = (x) => { const s = Float64Array.from(x).sort(); return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]; };
    rows.push([num(n, 0), num(a.p50), num(p95(shown)), `${num(b.p50)} / ${num(p95(watched))}`, ratio(p95(shown), p95(watched)), num(med(cpu))]);
  }
  printTable(`Sidebar freshness, task write → rows rendered (in-process TeamWatch + renderSidebar), ms; reference: fs.watch event for the file; goal: p95 < 50 ms at 5k, CPU per change flat`, ['tasks', 'p50', 'p95', 'fs.watch p50 / p95', 'p95 ratio', 'CPU per change (ms, incl. the write)'], rows);
}

async function logsSection() {
  const { EventTail } = await load('store/events.js');
  const { writeJson } = await load('store/fsx.js');
  const rows = [];
  for (const n of [1_000, 100_000]) {
    note(`logs: ${n} lines`);
    const { dir, store } = await board(0);
    const line = (i) => JSON.stringify({ time: new Date().toISOString(), type: 'message_sent', from: 'lead', to: 'amy', messageType: 'message', excerpt: `message ${i} ${'x'.repeat(60)}` }) + '\n';
    let chunk = '';
    for (let i = 0; i < n; i++) chunk += line(i);
    appendFileSync(path.join(dir, 'events.jsonl'), chunk);
    // The inbox: n messages, of which the reader has read all but the last.
    let inbox = '';
    for (let i = 0; i < n; i++) inbox += JSON.stringify({ id: `msg-${i}`, from: 'lead', to: 'amy', type: 'message', text: `hello ${i}`, time: new Date().toISOString() }) + '\n';
    mkdirSync(path.join(dir, 'inboxes'), { recursive: true });
    appendFileSync(path.join(dir, 'inboxes', 'amy.jsonl'), inbox);
    await store.mail.read('amy');
    const tail = new EventTail(path.join(dir, 'events.jsonl'));
    await tail.readNew();
    const newEvent = [];
    const newMsg = [];
    const rewrite = [];
    const whole = [];
    for (let i = 0; i < RUNS; i++) {
      await store.send({ from: 'lead', to: 'amy', type: 'message', text: `late ${i}` });
      let a = clock();
      const m = await store.mail.read('amy');
      newMsg.push(clock() - a);
      if (m.messages.length !== 1) throw new Error(`inbox read ${m.messages.length} messages, expected 1`);
      // The reference for the cursor's move: the same cursor written whole, atomically, as before the cursor log.
      a = clock();
      await writeJson(path.join(dir, 'inboxes', 'amy.cursor.bench.json'), m.next);
      rewrite.push(clock() - a);
      // The send recorded an event of its own: read past it, then time one new event.
      await tail.readNew();
      await store.events.record('message_sent', { from: 'lead', to: 'amy', excerpt: `late ${i}` });
      a = clock();
      const r = await tail.readNew();
      newEvent.push(clock() - a);
      if (r.events.length !== 1) throw new Error(`tail read ${r.events.length} events, expected 1`);
      // The reference: the whole log read and parsed, across its sealed segments (what a reader without a cursor does).
      a = clock();
      const all = await store.events.read();
      whole.push(clock() - a);
      if (all.events.length < n) throw new Error(`the whole log has ${all.events.length} events, expected at least ${n}`);
    }
    const small = med(newEvent) / med(whole);
    rows.push([num(n, 0), mr(newEvent), mr(newMsg), mr(rewrite), ratio(med(newMsg), med(rewrite)), mr(whole), small < 0.01 ? `${small.toPrecision(2)}x` : ratio(med(newEvent), med(whole))]);
  }
  printTable('Logs: reading what is new (one event; one message, cursor committed) in a log of N lines, ms; references: the same cursor written whole and atomically (the cursor file before it was a log), reading and parsing the whole events log (all segments)', ['lines', 'events tail, 1 new', 'inbox read, 1 new', 'cursor rewritten whole', 'read/rewrite', 'whole events log', 'tail/whole'], rows);
}

async function panesSection() {
  const ctx = { dir: tempDir('teamux-scale-panes-'), tag: RUN_TAG.replace(/[^a-z0-9]/gi, '') };
  const runs = QUICK ? 3 : 5;
  const counts = await paneCountRows(ctx, { counts: [2, 4, 8, 16], runs });
  printTable(`Panes: spawn to every pane's marker on screen (teamux start vs a cold tmux new-session + attach), ms, median (min–max) of ${runs}; CPU used up to that frame (teamux process / tmux server + client), ms; RSS right after (same processes), MiB; goal: start-up ≤ 3x tmux`, ['panes', 'teamux start-up', 'tmux start-up', 'ratio', 'CPU to frame', 'CPU ratio', 'teamux RSS', 'tmux RSS', 'RSS ratio'], counts);
  const memory = await memoryRows(ctx, { n: 8, runs });
  printTable(`Memory: RSS settled after start-up (teamux process vs tmux server + client), MiB, median (min–max) of ${runs}, runs alternating; goal ≤ 6x tmux`, ['what', 'teamux', 'tmux', 'ratio'], memory);
  const printing = await printingRows(ctx, { windowMs: QUICK ? 8_000 : 20_000, rounds: QUICK ? 1 : 3 });
  printTable('CPU while 4 panes each print 100 lines/s, side by side over the same window, % of one core; goal ≤ 1.5x tmux (teamux skips intermediate frames: bytes to the terminal shown)', ['round', 'window (s)', 'teamux', 'tmux server + client', 'ratio', 'KiB/s to the terminal, teamux / tmux'], printing);
}

async function longRunSection() {
  const seconds = Number(process.env.TEAMUX_BENCH_LONG_S) || (QUICK ? 20 : 180);
  const windowS = QUICK ? 5 : 30;
  note(`long run: ${seconds} s`);
  const root = tempDir('teamux-scale-long-');
  const dir = path.join(root, '.teamux', 'long');
  await initTeam(dir, { name: 'long', root, layoutFile: null, members: [member('lead', 'lead'), ...['amy', 'bob', 'cat', 'dan'].map((n) => member(n, 'teammate'))], seedTasks: [] });
  const { TeamWatch } = await load('store/team-watch.js');
  const rows = await longRunRows({ seconds, windowS, dir, open, TeamWatch, note });
  printTable(`One long run: ${seconds} s of traffic (4 messages sent and read, 2 tasks created, 1 claimed and completed per round, the screen's TeamWatch following), its last window against its first (the reference); nothing but the board should grow without bound (logs roll over into segments, set small here)`, ['window', 'ops/s', 'send→read p50 / p95 (ms)', 'claim p50 (ms)', 'CPU ms per op', 'RSS MiB', 'heap MiB', 'logs on disk MiB', 'tasks on the board'], rows);
}

try {
  process.stdout.write(`teamux scale benchmark${QUICK ? ' (quick)' : ''}\n${machineLine()}\n`);
  const tmuxV = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  process.stdout.write(`reference: ${tmuxV.status === 0 ? tmuxV.stdout.trim() : 'tmux not found'}; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}\n`);
  if (want('cli')) await cliSection();
  if (want('tasks')) await tasksSection();
  if (want('sidebar')) await sidebarSection();
  if (want('logs')) await logsSection();
  if (want('panes')) await panesSection();
  if (want('long')) await longRunSection();
  process.stdout.write(`\nload average at the end ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}\n`);
} finally {
  cleanupAll();
}
