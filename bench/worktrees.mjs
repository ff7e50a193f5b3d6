#!/usr/bin/env node
/**
 * Benchmark of members' worktrees (dist/, built by `npx tsc -p tsconfig.json`), each figure against
 * its reference in the same run, interleaved, with the ratio (issue 28's goals):
 *   - making a member's worktree in a 10k-file repository (prepareWorktrees: git worktree add, the
 *     copy step, the record) vs `git worktree add` alone — goal ≤ 1.2x;
 *   - `teamux diff NAME --stat` (a real CLI process) vs `git diff --stat` in the same worktree —
 *     goal ≤ 1.3x; the diff op called in-process is shown too (where the time goes);
 *   - watching a 10k-file worktree: fs.watch({ recursive }) (inotify) vs chokidar (when installed:
 *     it lost and was removed from the dependencies): time to be watching, a write's event
 *     latency, and the diff stats after a change (goal < 100 ms).
 * Run: `npx tsc -p tsconfig.json && node bench/worktrees.mjs [--quick]`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, watch, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { machineLine, ms, printTable, ratio, verdict } from './lib/report.mjs';
import { clock, summarize } from './lib/timing.mjs';
import { withTempDir } from './lib/tmp.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(REPO, 'bin', 'teamux');
const dist = (p) => pathToFileURL(path.join(REPO, 'dist', p)).href;
const QUICK = process.argv.includes('--quick');
const CONFIG = { files: 10_000, creations: QUICK ? 3 : 7, diffs: QUICK ? 8 : 20, changes: QUICK ? 10 : 30 };

const { Git } = await import(dist('host/git/repo.js'));
const { execGit } = await import(dist('host/git/run.js'));
const { prepareWorktrees, bookWith } = await import(dist('ops/worktree-prepare.js'));
const { memberDiff } = await import(dist('ops/worktree-diff.js'));
const { WorktreeRecord } = await import(dist('store/worktrees.js'));
const { initTeam } = await import(dist('store/init.js'));

const ENV = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', maxBuffer: 1 << 28 });
const G = new Git(execGit(ENV));

/** A repository of `n` small files in 100 folders. */
function bigRepo(root, n) {
  mkdirSync(root, { recursive: true });
  git(root, 'init', '-q', '-b', 'main');
  for (let i = 0; i < n; i++) {
    const dir = path.join(root, `d${i % 100}`);
    if (i < 100) mkdirSync(dir);
    writeFileSync(path.join(dir, `f${i}.txt`), `file ${i}\n`.repeat(5));
  }
  writeFileSync(path.join(root, '.gitignore'), '.teamux/\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'big');
}

const median = (xs) => summarize(xs).p50;

async function creation(root) {
  const ours = [];
  const theirs = [];
  const common = path.join(root, '.git');
  // Alternating which goes first, with the disk flushed before each (writing 10k files back dominates otherwise).
  for (let i = 0; i < CONFIG.creations; i++) {
    const plain = path.join(path.dirname(root), `plain-${i}`);
    const theirsOnce = () => {
      spawnSync('sync');
      const t = clock();
      git(root, 'worktree', 'add', '--quiet', '-b', `plain/${i}`, plain, 'main');
      theirs.push(clock() - t);
    };
    if (i % 2 === 0) theirsOnce();
    spawnSync('sync');
    const t = clock();
    const made = await prepareWorktrees(G, { repo: root, commonDir: common, team: 'bench', base: 'main', copy: ['.gitignore'], members: [{ name: `m${i}`, branch: `teamux/bench/m${i}` }] }, () => {});
    ours.push(clock() - t);
    if (!made.ok) throw new Error(made.message);
    if (i % 2 === 1) theirsOnce();
    git(root, 'worktree', 'remove', '--force', plain);
    git(root, 'worktree', 'remove', '--force', made.worktrees[0].path);
  }
  return { ours: median(ours), theirs: median(theirs) };
}

async function diffStat(root, teamDir) {
  const made = await prepareWorktrees(G, { repo: root, commonDir: path.join(root, '.git'), team: 'bench', base: 'main', copy: [], members: [{ name: 'amy', branch: 'teamux/bench/amy' }] }, () => {});
  if (!made.ok) throw new Error(made.message);
  const wt = made.worktrees[0].path;
  await new WorktreeRecord(teamDir).update((b) => bookWith(b, 'bench', root, 'main', made.worktrees, new Date().toISOString()));
  for (let i = 0; i < 20; i++) writeFileSync(path.join(wt, `d${i}`, `f${i}.txt`), `changed ${i}\n`);
  git(wt, 'add', '-A');
  git(wt, 'commit', '-q', '-m', 'half');
  for (let i = 20; i < 40; i++) writeFileSync(path.join(wt, `d${i}`, `f${i}.txt`), `changed ${i}\n`);
  const cli = [];
  const ref = [];
  const op = [];
  const floor = [];
  const book = (await new WorktreeRecord(teamDir).read()).book;
  const env = { ...ENV, TEAMUX_TEAM_DIR: teamDir };
  for (let i = 0; i < CONFIG.diffs + 2; i++) {
    let t = clock();
    const r = spawnSync(process.execPath, [BIN, 'diff', 'amy', '--stat'], { cwd: root, env, encoding: 'utf8' });
    const c = clock() - t;
    if (r.status !== 0) throw new Error(r.stderr);
    t = clock();
    spawnSync('git', ['diff', '--stat', '--merge-base', 'main'], { cwd: wt, env, encoding: 'utf8' });
    const g = clock() - t;
    t = clock();
    await memberDiff(G, book, 'amy');
    const o = clock() - t;
    t = clock();
    spawnSync(process.execPath, ['-e', '0'], { env });
    const f = clock() - t;
    if (i >= 2) { cli.push(c); ref.push(g); op.push(o); floor.push(f); }
  }
  return { cli: median(cli), ref: median(ref), op: median(op), floor: median(floor), wt, book };
}

/** Watch `dir` recursively with `kind`; resolves once watching, with a way to await the next event. */
async function watcher(kind, dir) {
  let wake = null;
  const fired = () => { const w = wake; wake = null; w?.(); };
  const t = clock();
  let close;
  if (kind === 'chokidar') {
    // chokidar lost this comparison and is no longer a dependency: it is measured when installed (npm i --no-save chokidar).
    const cwatch = (await import('chokidar').catch(() => null))?.watch;
    if (!cwatch) return null;
    const w = cwatch(dir, { ignoreInitial: true, ignored: (p) => path.relative(dir, p).split(path.sep).includes('.git') });
    await new Promise((r) => w.once('ready', r));
    w.on('all', fired);
    close = () => w.close();
  } else {
    const w = watch(dir, { recursive: true }, fired);
    close = async () => w.close();
    // Node's recursive watch on Linux adds its inotify watches while it walks the tree, with no
    // ready event: it is watching once a write in the last folder it reaches is seen.
    const probe = path.join(dir, 'd99', 'probe.txt');
    let seen = false;
    wake = () => { seen = true; };
    for (let i = 0; !seen && i < 500; i++) {
      writeFileSync(probe, String(i));
      await new Promise((r) => setTimeout(r, 10));
    }
    wake = null;
  }
  const ready = clock() - t;
  const next = () => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${kind}: no event within 5 s`)), 5_000);
    wake = () => { clearTimeout(timer); resolve(); };
  });
  return { ready, next, close };
}

async function watching(wt, book) {
  const rows = [];
  for (const kind of ['fs.watch', 'chokidar']) {
    const rss0 = process.memoryUsage().rss;
    const w = await watcher(kind, wt);
    if (!w) {
      rows.push({ kind: `${kind} (not installed: skipped)` });
      continue;
    }
    const rss = process.memoryUsage().rss - rss0;
    const latency = [];
    const toStats = [];
    for (let i = 0; i < CONFIG.changes; i++) {
      const file = path.join(wt, `d${50 + (i % 40)}`, `f${50 + (i % 40)}.txt`);
      const t = clock();
      const ev = w.next();
      writeFileSync(file, `edit ${kind} ${i}\n`);
      await ev;
      latency.push(clock() - t);
      await memberDiff(G, book, 'amy');
      toStats.push(clock() - t);
    }
    await w.close();
    rows.push({ kind, ready: w.ready, rss, latency: median(latency), stats: summarize(toStats) });
  }
  return rows;
}

await withTempDir('teamux-bench-wt-', async (tmp) => {
  const root = path.join(tmp, 'repo');
  bigRepo(root, CONFIG.files);
  const { store } = await initTeam(path.join(root, '.teamux', 'bench'), { name: 'bench', root, layoutFile: null, members: [{ name: 'lead', role: 'l', kind: 'lead', runtime: 'command', speaksProtocol: false, planRequired: false, planApprover: null, tools: null }, { name: 'amy', role: 'w', kind: 'teammate', runtime: 'command', speaksProtocol: false, planRequired: false, planApprover: null, tools: null }], seedTasks: [] });
  process.stdout.write(`${machineLine()}\nworktrees benchmark: ${CONFIG.files} files, git ${git(root, 'version').trim().replace('git version ', '')}\n`);
  const c = await creation(root);
  const d = await diffStat(root, store.dir);
  const w = await watching(d.wt, d.book);
  printTable('worktree creation, 10k files (median)', ['what', 'time', 'reference', 'ratio', 'goal', ''], [
    ['prepareWorktrees vs git worktree add', ms(c.ours), ms(c.theirs), ratio(c.ours, c.theirs), '≤ 1.2x', verdict(c.ours / c.theirs, 1.2, true)],
  ]);
  printTable('diff --stat, 40 changed files of 10k (median)', ['what', 'time', 'reference', 'ratio', 'goal', ''], [
    ['teamux diff --stat (process) vs git diff --stat (process)', ms(d.cli), ms(d.ref), ratio(d.cli, d.ref), '≤ 1.3x', verdict(d.cli / d.ref, 1.3, true)],
    ['diff op in-process vs git diff --stat (process)', ms(d.op), ms(d.ref), ratio(d.op, d.ref), '', ''],
    ["Node's floor: node -e 0 (process) vs git diff --stat", ms(d.floor), ms(d.ref), ratio(d.floor, d.ref), '', ''],
  ]);
  printTable('watching a 10k-file worktree', ['watcher', 'watching after', 'rss', 'write → event (median)', 'write → stats p50', 'p90', 'goal', ''], w.map((r) => r.ready === undefined ? [r.kind] : [r.kind, ms(r.ready), `${(r.rss / 2 ** 20).toFixed(1)} MiB`, ms(r.latency), ms(r.stats.p50), ms(r.stats.p90), '< 100 ms', verdict(r.stats.p90, 100, true)]));
});
