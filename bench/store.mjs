#!/usr/bin/env node
/**
 * Benchmark of the team store (src/store, compiled to dist/): claim throughput with 8 real processes
 * racing through the store API and through the CLI, single-writer inbox appends against a raw
 * appendFile reference, and the invariants that must hold afterwards (every task claimed once, every
 * message read once and in each sender's order, every file parses). Figures are measured in this run
 * on this machine; targets are printed next to them. Exits 1 when an invariant fails (a missed target
 * is reported, not fatal). Run: `npx tsc -p tsconfig.json && node bench/store.mjs`.
 *
 * It measures a frozen copy of dist/ (with bin/teamux and package.json) taken when it starts, so a
 * rebuild of dist/ while it runs cannot change or break what is being measured. The same file is also
 * the worker: `node bench/store.mjs --worker KIND ...` runs one child process against that copy.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { childReady, childResult, killWorkers, raceWorkers, runCommand, startWorker } from './lib/children.mjs';
import { machineLine, ms, num, printTable, rate, ratio, verdict } from './lib/report.mjs';
import { clock, perSecond, summarize } from './lib/timing.mjs';
import { withTempDir } from './lib/tmp.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
/** The package under test: the frozen copy once main() has made it (workers get it in the environment). */
let PKG = process.env.TEAMUX_BENCH_PKG ?? REPO;
const bin = () => path.join(PKG, 'bin', 'teamux');

/** What is measured, and how much of it. */
const CONFIG = {
  claimTasks: 2000, // tasks on the board for the store-API claim race
  claimers: 8, // contending processes
  cliTasks: 96, // tasks for the CLI claim race (each claim is a fresh node process)
  cliFloorRuns: 32, // `teamux --version` runs, to show what node start-up alone costs
  appends: 20_000, // single-writer messages per path
  appendWarmup: 500, // messages sent first on each path and not timed
  senders: 8, // concurrent senders for the inbox invariant
  perSender: 1000, // messages per concurrent sender
};

const TARGETS = { claimsPerSec: 300, appendsPerSec: 5000 };

const workerNames = Array.from({ length: CONFIG.claimers }, (_, i) => `w${i}`);

async function loadStore() {
  const dist = path.join(PKG, 'dist');
  const { TeamStore } = await import(pathToFileURL(path.join(dist, 'store', 'team.js')).href);
  const { initTeam } = await import(pathToFileURL(path.join(dist, 'store', 'init.js')).href);
  return { TeamStore, initTeam };
}

/**
 * Copy dist/, bin/teamux and package.json into `tmp` (node_modules is linked), and check that the
 * copy loads: the whole CLI graph is imported once. A copy taken while dist/ was being rewritten
 * fails that check and is taken again.
 */
async function freezePackage(tmp) {
  if (!existsSync(path.join(REPO, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing; build it first with `npx tsc -p tsconfig.json`');
  let last;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const pkg = path.join(tmp, `pkg-${attempt}`);
    mkdirSync(path.join(pkg, 'bin'), { recursive: true });
    cpSync(path.join(REPO, 'dist'), path.join(pkg, 'dist'), { recursive: true });
    copyFileSync(path.join(REPO, 'bin', 'teamux'), path.join(pkg, 'bin', 'teamux'));
    copyFileSync(path.join(REPO, 'package.json'), path.join(pkg, 'package.json'));
    symlinkSync(path.join(REPO, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
    const probe = await runCommand(process.execPath, [path.join(pkg, 'bin', 'teamux'), '--version']);
    if (probe.code === 0) return pkg;
    last = probe.stderr.trim().split('\n').slice(0, 4).join('\n');
  }
  throw new Error(`the copy of dist/ does not load (is dist/ being rebuilt?):\n${last}`);
}

async function openStore(dir, who) {
  const { TeamStore } = await loadStore();
  const opened = await TeamStore.open(dir, who);
  if (!opened.ok) throw new Error(opened.error.message);
  return opened.store;
}

// ---------------------------------------------------------------------------------------------
// Workers (child processes)

const workers = {
  /** Claim the next ready task in a loop through TeamStore.claim until none is ready. */
  async claim(dir, name) {
    const store = await openStore(dir, name);
    await childReady();
    const cpu0 = process.cpuUsage();
    const won = [];
    const lat = [];
    const refused = [];
    for (;;) {
      const t0 = clock();
      const r = await store.claim(name);
      if (!r.ok) {
        if (r.reason === 'no_ready_task') break;
        refused.push(`${r.reason}: ${r.message}`);
        if (refused.length > 20) break;
        continue;
      }
      lat.push(clock() - t0);
      won.push(r.value.id);
    }
    childResult({ name, won, lat, refused, cpuMs: cpuMs(process.cpuUsage(cpu0)) });
  },

  /** One writer: raw appendFile reference, then Mailbox.deliver(compose()), then TeamStore.send(). */
  async append(dir, rawFile, countArg, warmupArg) {
    const store = await openStore(dir, 'bench');
    const count = Number(countArg);
    const warmup = Number(warmupArg);
    const text = (i) => `benchmark message ${i}: ${'x'.repeat(60)}`;
    // The raw reference appends the very lines the store writes: composed messages, serialised.
    const lines = Array.from({ length: warmup + count }, (_, i) => JSON.stringify(store.mail.compose({ from: 'w0', to: 'sink1', type: 'message', text: text(i) })) + '\n');
    await childReady();
    const runs = {};
    const timeLoop = async (label, op) => {
      for (let i = 0; i < warmup; i++) await op(i);
      const lat = new Float64Array(count);
      const cpu0 = process.cpuUsage();
      const start = clock();
      for (let i = warmup; i < warmup + count; i++) {
        const t0 = clock();
        await op(i);
        lat[i - warmup] = clock() - t0;
      }
      runs[label] = { ms: clock() - start, cpuMs: cpuMs(process.cpuUsage(cpu0)), lat: summarize(lat) };
    };
    await timeLoop('raw', (i) => appendFile(rawFile, lines[i], { mode: 0o600 }));
    await timeLoop('deliver', (i) => store.mail.deliver(store.mail.compose({ from: 'w0', to: 'sink1', type: 'message', text: text(i) })));
    await timeLoop('send', async (i) => {
      const r = await store.send({ from: 'w0', to: 'sink2', type: 'message', text: text(i) });
      if (!r.ok) throw new Error(r.message);
    });
    childResult(runs);
  },

  /** One of several concurrent senders: COUNT numbered messages to one inbox, through TeamStore.send. */
  async send(dir, from, to, countArg) {
    const store = await openStore(dir, from);
    const count = Number(countArg);
    await childReady();
    const ids = [];
    const start = clock();
    for (let i = 0; i < count; i++) {
      // Every 50th message is large (8 KiB), so appends of very different sizes interleave.
      const r = await store.send({ from, to, type: 'message', text: `${from}:${i}`, payload: { seq: i, pad: 'p'.repeat(i % 50 === 0 ? 8192 : 16) } });
      if (!r.ok) throw new Error(r.message);
      ids.push(r.value.id);
    }
    childResult({ from, ids, ms: clock() - start });
  },
};

/** CPU time (user + system) of a process.cpuUsage() difference, in milliseconds. */
function cpuMs(usage) {
  return (usage.user + usage.system) / 1000;
}

async function runWorker([kind, ...args]) {
  const fn = workers[kind];
  if (!fn) throw new Error(`unknown worker ${kind}`);
  await fn(...args);
}

// ---------------------------------------------------------------------------------------------
// Parent: set-up, measurements and checks

const checks = [];

/** Record an invariant check. */
function check(name, ok, detail = '') {
  checks.push({ name, ok: Boolean(ok), detail });
}

function spawnWorker(kind, ...args) {
  return startWorker(process.execPath, [SELF, '--worker', kind, ...args], { env: { ...process.env, TEAMUX_BENCH_PKG: PKG } });
}

async function makeTeam(tmp, name, extra = []) {
  const { initTeam } = await loadStore();
  const root = path.join(tmp, name);
  const dir = path.join(root, '.teamux', name);
  const member = (n, kind = 'teammate') => ({ name: n, role: kind === 'lead' ? 'lead' : 'worker', kind, runtime: 'command', planRequired: false, planApprover: null, tools: null });
  const members = [member('lead', 'lead'), ...workerNames.map((n) => member(n)), ...extra.map((n) => member(n))];
  const { store } = await initTeam(dir, { name, root, layoutFile: null, members, seedTasks: [] });
  return { dir, store };
}

async function addTasks(store, n) {
  const t0 = clock();
  for (let i = 0; i < n; i++) {
    const r = await store.tasks.create({ subject: `bench task ${i + 1}` });
    if (!r.ok) throw new Error(r.message);
  }
  return clock() - t0;
}

/** Every task claimed exactly once, by the process that says it won it, and every file parses. */
async function checkClaims(label, dir, claims, expected) {
  const store = await openStore(dir, 'audit');
  const board = await store.tasks.snapshot();
  const all = claims.flatMap((c) => c.won);
  const unique = new Set(all);
  const missing = board.tasks.filter((t) => !unique.has(t.id)).map((t) => t.id);
  check(`${label}: no task claimed twice`, unique.size === all.length, `${all.length - unique.size} duplicate claim(s)`);
  check(`${label}: no task missing`, missing.length === 0 && all.length === expected && board.tasks.length === expected, `${all.length} claims, ${board.tasks.length} tasks on the board, missing ${missing.slice(0, 5).join(',')}`);
  const wrong = [];
  for (const c of claims) {
    for (const id of c.won) {
      const t = board.index.get(id);
      if (!t || t.owner !== c.name || t.status !== 'in_progress' || t.revision !== 2) wrong.push(`${id}:${t?.owner}/${t?.status}/r${t?.revision}`);
    }
  }
  check(`${label}: owner in the file is the claimer`, wrong.length === 0, wrong.slice(0, 5).join(' '));
  const refused = claims.flatMap((c) => c.refused ?? []);
  check(`${label}: no unexpected refusal or failed run`, refused.length === 0, refused.slice(0, 3).join('; '));
  const events = await store.events.read();
  const claimedEvents = events.events.filter((e) => e.type === 'task_claimed').length;
  check(`${label}: task files parse (snapshot().problems empty)`, board.problems.length === 0, board.problems.slice(0, 3).map((p) => `${p.path}: ${p.message}`).join('; '));
  check(`${label}: events.jsonl parses, one task_claimed per claim`, events.problems.length === 0 && claimedEvents === expected, `${events.problems.length} bad line(s), ${claimedEvents} task_claimed events`);
}

async function claimRace(dir, processes) {
  const ws = workerNames.slice(0, processes).map((n) => spawnWorker('claim', dir, n));
  const race = await raceWorkers(ws);
  const total = race.values.reduce((s, v) => s + v.won.length, 0);
  const cpuPerClaim = race.values.reduce((s, v) => s + v.cpuMs, 0) / total;
  return { ...race, total, cpuPerClaim, lat: summarize(race.values.flatMap((v) => v.lat)) };
}

/** Run commands in `loops` concurrent loops; after each, `next(loop, result, runsSoFar)` says whether that loop goes on. */
async function commandLoops(loops, argsFor, next) {
  const lat = [];
  const start = clock();
  await Promise.all(Array.from({ length: loops }, async (_, i) => {
    for (;;) {
      const r = await runCommand(process.execPath, argsFor(i), { cwd: PKG });
      lat.push(r.ms);
      if (!next(i, r, lat.length)) break;
    }
  }));
  return { wallMs: clock() - start, lat: summarize(lat), runs: lat.length };
}

async function cliClaimRace(dir) {
  const claims = workerNames.map((name) => ({ name, won: [], refused: [] }));
  const run = await commandLoops(CONFIG.claimers, (i) => [bin(), 'task', 'claim', '--as', workerNames[i], '--json', '--team-dir', dir], (i, r) => {
    let out;
    try {
      out = JSON.parse(r.stdout);
    } catch {
      claims[i].refused.push(`exit ${r.code}, unparsable output: ${r.stdout.slice(0, 80)} ${r.stderr.slice(0, 200)}`);
      return false;
    }
    if (r.code === 0 && out.ok) {
      claims[i].won.push(out.id);
      return true;
    }
    if (r.code === 3 && out.reason === 'no_ready_task') return false;
    claims[i].refused.push(`exit ${r.code}: ${out.reason ?? out.error}`);
    return claims[i].refused.length < 5;
  });
  const total = claims.reduce((s, c) => s + c.won.length, 0);
  return { ...run, claims, total };
}

/** 8 senders race into one inbox while this process reads it with a cursor; checks exactly-once and order. */
async function inboxRace(dir) {
  const store = await openStore(dir, 'sink');
  const senders = workerNames.slice(0, CONFIG.senders);
  const ws = senders.map((n) => spawnWorker('send', dir, n, 'sink', String(CONFIG.perSender)));
  const got = [];
  const problems = [];
  let reads = 0;
  let done = false;
  const reader = (async () => {
    while (!done) {
      const r = await store.mail.read('sink');
      reads++;
      got.push(...r.messages);
      problems.push(...r.problems);
      if (r.messages.length === 0 && !done) await store.mail.waitForUnread('sink', 'sink', 100);
    }
  })();
  const race = await raceWorkers(ws).finally(() => { done = true; });
  await reader;
  const last = await store.mail.read('sink');
  got.push(...last.messages);
  problems.push(...last.problems);
  const again = await store.mail.read('sink');
  const sent = race.values.flatMap((v) => v.ids);
  const expected = CONFIG.senders * CONFIG.perSender;
  const ids = got.map((m) => m.id);
  const unique = new Set(ids);
  check('inbox: every message read exactly once', ids.length === expected && unique.size === expected && sent.every((id) => unique.has(id)) && again.messages.length === 0,
    `${ids.length} read (${unique.size} distinct) of ${expected} sent over ${reads + 2} reads; a further read gave ${again.messages.length}`);
  const outOfOrder = [];
  for (const from of senders) {
    const seqs = got.filter((m) => m.from === from).map((m) => m.payload?.seq);
    if (seqs.length !== CONFIG.perSender || seqs.some((s, i) => s !== i)) outOfOrder.push(from);
  }
  check("inbox: each sender's order kept", outOfOrder.length === 0, outOfOrder.length ? `out of order: ${outOfOrder.join(', ')}` : '');
  check('inbox: sink inbox parses (read().problems empty)', problems.length === 0 && again.problems.length === 0, problems.slice(0, 3).map((p) => `${p.path}: ${p.message}`).join('; '));
  return { ...race, expected, reads };
}

async function appendRun(tmp, dir) {
  const rawFile = path.join(tmp, 'raw-reference.jsonl');
  const w = spawnWorker('append', dir, rawFile, String(CONFIG.appends), String(CONFIG.appendWarmup));
  const race = await raceWorkers([w]);
  const runs = race.values[0];
  const store = await openStore(dir, 'audit');
  const n = CONFIG.appends + CONFIG.appendWarmup;
  for (const inbox of ['sink1', 'sink2']) {
    const r = await store.mail.unread(inbox, 'audit');
    check(`appends: ${inbox} inbox parses, holds every message once`, r.problems.length === 0 && r.messages.length === n && new Set(r.messages.map((m) => m.id)).size === n,
      `${r.messages.length} of ${n} messages, ${r.problems.length} problem(s)`);
  }
  const rawLines = readFileSync(rawFile, 'utf8').split('\n').length - 1;
  check('appends: raw reference file holds every line', rawLines === n, `${rawLines} of ${n}`);
  return runs;
}

async function main() {
  process.on('SIGINT', killWorkers);
  process.on('SIGTERM', killWorkers);
  const t0 = clock();
  const loadStart = loadLine();
  process.stdout.write(`teamux store benchmark\n${machineLine()}\n`);
  process.stdout.write(`targets: claims >= ${TARGETS.claimsPerSec}/s with ${CONFIG.claimers} contending processes; single-writer appends >= ${TARGETS.appendsPerSec}/s\n`);

  const rows = [];
  const lat = (s) => [ms(s.p50), ms(s.p99)];
  await withTempDir('teamux-bench-', async (tmp) => {
    PKG = await freezePackage(tmp);
    // Claims through the store API: 8 processes, then 1 as the reference, on identical boards.
    const a = await makeTeam(tmp, 'claims');
    const createMs = await addTasks(a.store, CONFIG.claimTasks);
    cpSync(path.join(tmp, 'claims'), path.join(tmp, 'claims1'), { recursive: true });
    const b = { dir: path.join(tmp, 'claims1', '.teamux', 'claims') };

    const many = await claimRace(a.dir, CONFIG.claimers);
    await checkClaims(`claims x${CONFIG.claimers}`, a.dir, many.values, CONFIG.claimTasks);
    const one = await claimRace(b.dir, 1);
    await checkClaims('claims x1', b.dir, one.values, CONFIG.claimTasks);
    const manyRate = perSecond(many.total, many.wallMs);
    const oneRate = perSecond(one.total, one.wallMs);
    rows.push([`claim-next, ${CONFIG.claimers} processes, store API, ${num(many.total, 0)} tasks`, rate(manyRate), `>= ${TARGETS.claimsPerSec} /s`, verdict(manyRate, TARGETS.claimsPerSec), ...lat(many.lat), ms(many.cpuPerClaim), `wall ${ms(many.wallMs)}`]);
    rows.push([`claim-next, 1 process, store API, ${num(one.total, 0)} tasks`, rate(oneRate), 'reference', '', ...lat(one.lat), ms(one.cpuPerClaim), `wall ${ms(one.wallMs)}`]);
    rows.push([`  ratio ${CONFIG.claimers} processes / 1 process`, ratio(manyRate, oneRate), '', '', '', '', '', '']);

    // Claims through the CLI: every claim is a fresh `node bin/teamux` process.
    const c = await makeTeam(tmp, 'cli');
    await addTasks(c.store, CONFIG.cliTasks);
    const cli = await cliClaimRace(c.dir);
    await checkClaims(`CLI claims x${CONFIG.claimers}`, c.dir, cli.claims, CONFIG.cliTasks);
    const floor = await commandLoops(CONFIG.claimers, () => [bin(), '--version'], (_i, _r, runs) => runs < CONFIG.cliFloorRuns);
    const cliRate = perSecond(cli.total, cli.wallMs);
    const floorRate = perSecond(floor.runs, floor.wallMs);
    rows.push([`claim-next, ${CONFIG.claimers} processes, CLI \`teamux task claim\`, ${num(cli.total, 0)} tasks`, rate(cliRate), 'info', '', ...lat(cli.lat), '', `${cli.runs} runs incl. the final "none ready"`]);
    rows.push([`  node start-up floor: \`teamux --version\`, ${CONFIG.claimers} at a time`, rate(floorRate), 'info', '', ...lat(floor.lat), '', `${floor.runs} runs; CLI claim / floor = ${ratio(cliRate, floorRate)}`]);

    // Appends: one writer, raw reference and both store paths, in one child process.
    const d = await makeTeam(tmp, 'mail', ['sink', 'sink1', 'sink2']);
    const ap = await appendRun(tmp, d.dir);
    const rawRate = perSecond(CONFIG.appends, ap.raw.ms);
    const deliverRate = perSecond(CONFIG.appends, ap.deliver.ms);
    const sendRate = perSecond(CONFIG.appends, ap.send.ms);
    const cpu = (r) => ms(r.cpuMs / CONFIG.appends);
    rows.push([`append, 1 writer, mail.deliver(compose()), ${num(CONFIG.appends, 0)} msgs`, rate(deliverRate), `>= ${TARGETS.appendsPerSec} /s`, verdict(deliverRate, TARGETS.appendsPerSec), ...lat(ap.deliver.lat), cpu(ap.deliver), `${ratio(deliverRate, rawRate)} of raw`]);
    rows.push([`append, 1 writer, store.send() (roster check + event)`, rate(sendRate), `>= ${TARGETS.appendsPerSec} /s`, verdict(sendRate, TARGETS.appendsPerSec), ...lat(ap.send.lat), cpu(ap.send), `${ratio(sendRate, rawRate)} of raw`]);
    rows.push([`append, 1 writer, raw fs.promises.appendFile, same lines`, rate(rawRate), 'reference', '', ...lat(ap.raw.lat), cpu(ap.raw), '']);

    // Inbox invariant: 8 concurrent senders, one reader with a cursor reading while they write.
    const inbox = await inboxRace(d.dir);
    rows.push([`append, ${CONFIG.senders} concurrent senders, store.send(), reader running`, rate(perSecond(inbox.expected, inbox.wallMs)), 'info', '', '', '', '', `${inbox.reads} cursor reads during the run`]);
    rows.push([`task create, 1 process, store API (set-up, ${num(CONFIG.claimTasks, 0)} tasks)`, rate(perSecond(CONFIG.claimTasks, createMs)), 'info', '', '', '', '', '']);
  });

  printTable('Figures (measured in this run; latency and CPU are per operation, CPU summed over all processes)', ['measure', 'result', 'target', 'verdict', 'p50', 'p99', 'CPU/op', 'note'], rows);
  process.stdout.write('\nInvariants\n');
  for (const c of checks) process.stdout.write(`${c.ok ? 'PASS' : 'FAIL'}  ${c.name}${c.ok || !c.detail ? '' : `  (${c.detail})`}\n`);
  const failed = checks.filter((c) => !c.ok).length;
  process.stdout.write(`\n${loadStart}; at the end: ${loadLine().replace(/^load average /, '')}\n`);
  process.stdout.write(`${checks.length - failed}/${checks.length} invariants hold; total run time ${num((clock() - t0) / 1000, 1)} s; temp folders removed.\n`);
  process.exitCode = failed > 0 ? 1 : 0;
}

/** The 1-minute load average with the CPU count, to tell a busy machine from a slow store. */
function loadLine() {
  return `load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} CPUs`;
}

if (process.argv[2] === '--worker') {
  await runWorker(process.argv.slice(3));
} else {
  try {
    await main();
  } catch (err) {
    killWorkers();
    process.stderr.write(`bench/store: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  }
}
