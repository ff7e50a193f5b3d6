#!/usr/bin/env node
/**
 * The web view's benchmark (issue 31's goals), on a team of 5,000 tasks, against references measured in
 * the same run:
 *   - a task change → the open team page in a real headless Chromium shows it (p50 / p95), beside the
 *     screen's own team watch seeing the same change (the sidebar's path, which the web view rides on);
 *   - the team page's first byte and fully rendered (Chromium, load event), beside the first byte of a
 *     static file from the same server;
 *   - the screen's CPU while idle with the web view on and a page open, against a screen process
 *     without it (child processes, interleaved), and their RSS.
 * Needs dist/ (npm run build) and chromium (TEAMUX_CHROMIUM or /usr/bin/chromium).
 *   node bench/web.mjs [--quick]
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { printTable, ratio, verdict } from './lib/report.mjs';
import { clock, percentile, summarize } from './lib/timing.mjs';
import { withTempDir } from './lib/tmp.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const DIST = path.join(REPO, 'dist');
const QUICK = process.argv.includes('--quick');
const TASKS = 5_000;
const load = (rel) => import(pathToFileURL(path.join(DIST, rel)).href);
const note = (what) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${what}\n`);
const member = (name, kind) => ({ name, role: kind, kind, runtime: 'command', speaksProtocol: true, planRequired: false, planApprover: null, tools: null });
const quiet = { info() {}, warn() {} };

/** A team folder with `n` task files written directly (a third completed, every fifth blocked by the one before). */
async function board(root, n) {
  const { initTeam } = await load('store/init.js');
  const dir = path.join(root, '.teamux', 'web');
  await initTeam(dir, { name: 'web', root, layoutFile: null, members: [member('lead', 'lead'), member('amy', 'teammate'), member('bob', 'teammate')], seedTasks: [] });
  const now = new Date().toISOString();
  for (let i = 1; i <= n; i++) {
    const done = i % 3 === 0;
    const task = {
      version: 2, id: String(i), subject: `task ${i}`, description: '', status: done ? 'completed' : 'pending', owner: done ? 'amy' : null,
      blocks: [], blockedBy: i % 5 === 0 ? [String(i - 1)] : [], revision: 1, createdAt: now, updatedAt: now, claimedAt: null, completedAt: null, result: null, holder: null, attempts: [],
    };
    writeFileSync(path.join(dir, 'tasks', `${i}.json`), JSON.stringify(task, null, 2) + '\n');
  }
  writeFileSync(path.join(dir, 'tasks', 'highwater'), `${n}\n`);
  return dir;
}

async function openStore(dir) {
  const { TeamStore } = await load('store/team.js');
  const r = await TeamStore.open(dir, 'bench');
  if (!r.ok) throw new Error(r.error.message);
  return r.store;
}

/** A screen's web view over the team: its TeamView and a started WebServer. */
async function serve(dir) {
  const { TeamView } = await load('app/team-view.js');
  const { WebServer } = await load('web/server.js');
  const store = await openStore(dir);
  const view = new TeamView(store);
  await view.start();
  const web = new WebServer({ snapshot: () => view.snapshot(), onChange: (l) => view.onChange(() => l()), events: async (n) => (await store.events.read(n)).events, answer: async () => ({ ok: false, message: 'bench' }), log: quiet }, { port: 0, listen: '127.0.0.1' });
  await web.start();
  return { store, view, web, close: async () => { await web.dispose(); await view.dispose(); } };
}

/** ms to the first byte of a GET. */
function firstByte(url, cookie) {
  return new Promise((resolve, reject) => {
    const t0 = clock();
    const req = httpRequest(url, { headers: cookie ? { Cookie: cookie } : {} }, (res) => {
      res.once('data', () => resolve(clock() - t0));
      res.resume();
    });
    req.on('error', reject);
    req.end();
  });
}

// --- a child screen for the idle CPU and RSS rows: `--child web|plain DIR` ---
if (process.argv[2] === '--child') {
  const [, , , mode, dir] = process.argv;
  const { TeamView } = await load('app/team-view.js');
  const store = await openStore(dir);
  const view = new TeamView(store);
  await view.start();
  let url = null;
  if (mode === 'web') {
    const { WebServer } = await load('web/server.js');
    const web = new WebServer({ snapshot: () => view.snapshot(), onChange: (l) => view.onChange(() => l()), events: async (n) => (await store.events.read(n)).events, answer: async () => ({ ok: false, message: 'bench' }), log: quiet }, { port: 0, listen: '127.0.0.1' });
    await web.start();
    url = web.url('/');
  }
  process.stdout.write(`${JSON.stringify({ url })}\n`);
  process.stdin.on('data', (d) => {
    if (String(d).startsWith('measure')) {
      const before = process.cpuUsage();
      const t0 = clock();
      setTimeout(() => {
        const used = process.cpuUsage(before);
        process.stdout.write(`${JSON.stringify({ cpuPercent: ((used.user + used.system) / 1000 / (clock() - t0)) * 100, rssMiB: process.memoryUsage().rss / 1048576 })}\n`);
      }, Number(String(d).split(' ')[1]));
    } else process.exit(0);
  });
} else {
  await main();
}

function lineReader(child) {
  let buf = '';
  const waiting = [];
  child.stdout.on('data', (c) => {
    buf += c;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      waiting.shift()?.(JSON.parse(line));
    }
  });
  return () => new Promise((r) => waiting.push(r));
}

async function main() {
  const { chromium } = await import('playwright-core');
  const exe = [process.env.TEAMUX_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
  if (!exe) throw new Error('no chromium: apt-get install chromium (or set TEAMUX_CHROMIUM)');
  await withTempDir('teamux-bench-web-', async (root) => {
    note(`a team of ${TASKS} tasks`);
    const dir = await board(root, TASKS);
    const browser = await chromium.launch({ executablePath: exe, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const s = await serve(dir);
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(s.web.url('/'));
      await page.locator('#live.on').waitFor();
      const cookie = (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
      const base = new URL(s.web.url('/')).origin;

      // 1. change → the browser shows it, beside the team watch seeing it
      const rounds = QUICK ? 15 : 40;
      const inBrowser = [];
      const inWatch = [];
      for (let i = 1; i <= rounds; i++) {
        const open = s.view.snapshot().tasks.filter((t) => t.status !== 'completed' && t.status !== 'in_progress' && t.status !== 'deleted').length;
        const want = `${open + 1} open`;
        const seen = new Promise((resolve) => { const sub = s.view.onChange(() => { sub.dispose(); resolve(clock()); }); });
        const t0 = clock();
        const made = await s.store.tasks.create({ subject: `probe ${i}` });
        if (!made.ok) throw new Error(made.message);
        await page.waitForFunction((w) => document.querySelector('.tasks')?.textContent?.includes(w), want, { polling: 'raf', timeout: 10_000 });
        inBrowser.push(clock() - t0);
        inWatch.push((await seen) - t0);
      }
      const p95 = (xs) => percentile(Float64Array.from(xs).sort(), 95);
      const b = { ...summarize(inBrowser), p95: p95(inBrowser) };
      const w = { ...summarize(inWatch), p95: p95(inWatch) };
      printTable(`Web view: a task created → the open team page (headless Chromium) shows it, ${TASKS} tasks, ${rounds} changes; reference: the screen's team watch seeing the same change (the sidebar's path)`, ['what', 'p50', 'p95', 'goal', ''], [
        ['team watch (reference)', `${w.p50.toFixed(1)} ms`, `${w.p95.toFixed(1)} ms`, '', ''],
        ['web page in the browser', `${b.p50.toFixed(1)} ms`, `${b.p95.toFixed(1)} ms`, 'p95 < 100 ms', verdict(b.p95, 100, true)],
        ['ratio (browser / watch)', ratio(b.p50, w.p50), ratio(b.p95, w.p95), '', ''],
      ]);

      // 2. the team page: first byte and fully rendered; reference: a static file's first byte
      const n = QUICK ? 7 : 15;
      const fb = [], ref = [], full = [];
      for (let i = 0; i < n; i++) {
        ref.push(await firstByte(`${base}/static/none`, cookie).catch(() => NaN));
        fb.push(await firstByte(`${base}/`, cookie));
        const p = await ctx.newPage();
        const t0 = clock();
        await p.goto(`${base}/board`, { waitUntil: 'load' });
        full.push(clock() - t0);
        await p.close();
      }
      const f = summarize(fb), r = summarize(ref.filter(Number.isFinite)), l = summarize(full);
      printTable(`Web view: pages of a ${TASKS}-task team (p50 of ${n}); reference: the same server's first byte of a 401/404 answer (no page rendered)`, ['what', 'p50', 'goal', '', 'ratio to reference'], [
        ['reference first byte', `${r.p50.toFixed(1)} ms`, '', '', ''],
        ['team page first byte', `${f.p50.toFixed(1)} ms`, '< 50 ms', verdict(f.p50, 50, true), ratio(f.p50, r.p50)],
        ['board page fully rendered (load)', `${l.p50.toFixed(1)} ms`, '< 300 ms', verdict(l.p50, 300, true), ''],
      ]);
      await s.close();

      // 3. idle CPU and RSS: a screen process with the web view on (a page open on it) and one without, interleaved
      const idleMs = QUICK ? 5_000 : 10_000;
      const rows = { web: [], plain: [] };
      for (let round = 0; round < (QUICK ? 2 : 3); round++) {
        for (const mode of round % 2 === 0 ? ['plain', 'web'] : ['web', 'plain']) {
          const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', mode, dir], { stdio: ['pipe', 'pipe', 'inherit'] });
          const next = lineReader(child);
          const { url } = await next();
          let p = null;
          if (url) {
            p = await (await browser.newContext()).newPage();
            await p.goto(url);
            await p.locator('#live.on').waitFor();
          }
          await new Promise((res) => setTimeout(res, 1_500));
          child.stdin.write(`measure ${idleMs}\n`);
          rows[mode].push(await next());
          child.stdin.write('quit\n');
          await new Promise((res) => child.once('exit', res));
          await p?.context().close();
        }
      }
      const cpu = (m) => summarize(rows[m].map((x) => x.cpuPercent)).p50;
      const rss = (m) => summarize(rows[m].map((x) => x.rssMiB)).p50;
      printTable(`Web view: a screen process's team watch over ${TASKS} tasks, idle ${idleMs / 1000} s (p50 of ${rows.web.length} runs each, interleaved); reference: the same process without the web view`, ['what', 'without (reference)', 'with the web view and a page open', 'difference', 'goal', ''], [
        ['CPU', `${cpu('plain').toFixed(3)} %`, `${cpu('web').toFixed(3)} %`, `${(cpu('web') - cpu('plain')).toFixed(3)} %`, '< 0.2 %', verdict(cpu('web') - cpu('plain'), 0.2, true)],
        ['RSS', `${rss('plain').toFixed(1)} MiB`, `${rss('web').toFixed(1)} MiB`, `${(rss('web') - rss('plain')).toFixed(1)} MiB`, '≤ +15 MiB', verdict(rss('web') - rss('plain'), 15, true)],
      ]);
    } finally {
      await browser.close();
    }
  });
}
