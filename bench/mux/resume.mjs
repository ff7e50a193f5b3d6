/**
 * Resume (issue 29): from spawning `teamux start` to the first output after which the screen shows
 * every one of 8 panes' markers and titles, on a team folder holding an unfinished run of 10,000
 * tasks and 100,000 messages (so `start` resumes it: the earlier run read, stale claims released, the
 * unread counted), against a fresh start of the same layout on an empty folder. The runs alternate
 * resume, fresh; medians reported; the goal is resume within 1.5x the fresh start.
 * The folder is written once through this build's store (one task made by it, the rest copies of its
 * file with their ids; messages composed by it and appended as its inbox lines).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { childEnv } from '../lib/cleanup.mjs';
import { build, writeLayout } from '../lib/mux-sessions.mjs';
import { OuterTerminal, sleep } from '../lib/outer.mjs';
import { clock, summarize } from '../lib/timing.mjs';
import { ms, num, ratio, verdict } from '../lib/report.mjs';

const RUNS = 5;
const TASKS = 10_000;
const MESSAGES = 100_000;
const NAMES = ['lead', 'alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf'];
const TARGET_RATIO = 1.5; // issue 29: resume within 1.5x a fresh start

function panes(tag) {
  return NAMES.map((name) => ({ name, argv: ['sh', '-c', `printf 'MK-%s-%s-%s\\n' "$1" "$2" "$(date +%N)"; exec sleep 600`, 'mark', tag, name] }));
}

/** Write the big unfinished run into the layout's team folder (made by `teamux init`). */
async function populate(layout) {
  execFileSync(process.execPath, [build.bin, 'init', layout.file], { env: childEnv(), cwd: layout.root, stdio: 'ignore' });
  const TeamStore = await build.teamStore();
  const opened = await TeamStore.open(layout.teamDir);
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.store;
  await store.startRun();
  const first = await store.tasks.create({ subject: 'task 1', description: 'benchmark work' });
  if (!first.ok) throw new Error(first.message);
  const template = JSON.parse(readFileSync(store.paths.task('1'), 'utf8'));
  for (let i = 2; i <= TASKS; i++) writeFileSync(store.paths.task(String(i)), JSON.stringify({ ...template, id: String(i), subject: `task ${i}` }));
  writeFileSync(store.paths.highWater, `${TASKS}\n`);
  mkdirSync(store.paths.inboxes, { recursive: true });
  const per = MESSAGES / NAMES.length;
  for (const [n, to] of NAMES.entries()) {
    const from = NAMES[(n + 1) % NAMES.length];
    const lines = [];
    for (let i = 0; i < per; i++) lines.push(JSON.stringify(store.mail.compose({ from, to, type: 'message', text: `message ${i} to ${to}` })));
    appendFileSync(store.paths.inbox(to), `${lines.join('\n')}\n`);
  }
  await store.backend.close();
}

async function once(layout, tag, ctx, what) {
  if (what === 'fresh') rmSync(path.join(layout.root, '.teamux'), { recursive: true, force: true });
  const started = clock();
  const outer = new OuterTerminal(process.execPath, [build.bin, 'start', layout.file], { cols: ctx.cols, rows: ctx.rows, env: childEnv(), cwd: layout.root });
  try {
    const want = [...NAMES.map((n) => `MK-${tag}-${n}-`), ...NAMES.map((n, i) => ` ${i + 1} ${n} `)];
    return (await outer.waitForText(want, 30_000, `${what} start-up`)) - started;
  } finally {
    await outer.stop('SIGTERM', 5_000);
  }
}

/** Run the section; returns table rows and detail lines. */
export async function resume(ctx) {
  const big = writeLayout(ctx.dir, { name: 'resumebench', panes: panes(`${ctx.tag}r`) });
  const fresh = writeLayout(ctx.dir, { name: 'resumebench', panes: panes(`${ctx.tag}f`) });
  const p0 = clock();
  await populate(big);
  const populated = clock() - p0;
  const times = { resume: [], fresh: [] };
  // One unmeasured start of each first (a new build's first start writes its code cache).
  await once(big, `${ctx.tag}r`, ctx, 'resume');
  await once(fresh, `${ctx.tag}f`, ctx, 'fresh');
  for (let r = 0; r < RUNS; r++) {
    times.resume.push(await once(big, `${ctx.tag}r`, ctx, 'resume'));
    await sleep(200);
    times.fresh.push(await once(fresh, `${ctx.tag}f`, ctx, 'fresh'));
    await sleep(200);
  }
  const log = readFileSync(path.join(big.teamDir, 'teamux.log'), 'utf8');
  const resumedRuns = log.split('\n').filter((l) => l.includes('resuming run ')).length;
  const timeline = (dir) => readFileSync(path.join(dir, 'teamux.log'), 'utf8').split('\n').filter((l) => l.includes('start-up (ms since')).at(-1)?.replace(/^.*start-up/, 'start-up') ?? 'not logged';
  const a = summarize(times.resume);
  const b = summarize(times.fresh);
  const list = (xs) => xs.map((x) => num(x, 0)).join(', ');
  return {
    rows: [['resume', `spawn to 8 panes' titles + markers, ${TASKS / 1000}k tasks, ${MESSAGES / 1000}k messages (median of ${RUNS})`, ms(a.p50), `fresh ${ms(b.p50)}`, ratio(a.p50, b.p50), `<= ${TARGET_RATIO}x fresh (issue 29)`, verdict(a.p50 / b.p50, TARGET_RATIO, true)]],
    details: [`resume: runs (ms) resume [${list(times.resume)}], fresh start of the same layout [${list(times.fresh)}]; the folder took ${num(populated / 1000, 1)} s to write; ${resumedRuns} of ${RUNS + 1} starts logged 'resuming run'`, `resume: the last resume's ${timeline(big.teamDir)}`, `resume: the last fresh start's ${timeline(fresh.teamDir)}`],
  };
}
