#!/usr/bin/env node
/**
 * Giant fields (docs/protocol.md §12, attack 7): what one board change costs the screen when two
 * tasks carry 9.5 MB subjects, next to the same board without them, measured in one run and
 * interleaved. A board change is what the screen does for every task write: the team watch reloads
 * and the sidebar's rows are rendered (TeamWatch + renderSidebar, in-process). The giant tasks are
 * written by hand (the store refuses such subjects at write, protocol/limits.ts), so this measures
 * the screen against a hostile file as well; a second table renders a board holding them in memory
 * (what the renderer does if one ever reaches it) and a 30 MB subject.
 *   node bench/giant-fields.mjs [--quick]     (npm run build first; it measures dist/ of this checkout)
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cleanupAll, tempDir } from './lib/cleanup.mjs';
import { machineLine, num, printTable, ratio } from './lib/report.mjs';
import { clock, summarize } from './lib/timing.mjs';

const DIST = path.join(fileURLToPath(new URL('..', import.meta.url)), 'dist');
const load = (rel) => import(pathToFileURL(path.join(DIST, rel)).href);
const { TeamStore } = await load('store/team.js');
const { initTeam } = await load('store/init.js');
const { TeamWatch } = await load('store/team-watch.js');
const { renderSidebar } = await load('ui/sidebar.js');
const SAMPLES = process.argv.includes('--quick') ? 5 : 12;
const MB = 1_000_000;
const OPTS = { width: 40, height: 50, sections: ['task_board', 'mailbox', 'requests'], selectedRequest: null, notices: [] };
const member = (name, kind) => ({ name, role: kind, kind, runtime: 'command', speaksProtocol: true, planRequired: false, planApprover: null, tools: null });

/** A team with 20 small tasks, and with `giant` tasks whose subjects are `size` characters, written by hand. */
async function team(giant, size) {
  const root = tempDir('teamux-giant-');
  const dir = path.join(root, '.teamux', 'g');
  await initTeam(dir, { name: 'g', root, layoutFile: null, members: [member('lead', 'lead'), member('amy', 'teammate')], seedTasks: [] });
  const now = new Date().toISOString();
  const n = 20 + giant;
  for (let i = 1; i <= n; i++) {
    const subject = i <= giant ? `${'x'.repeat(size - 12)} giant ${i}` : `task ${i}`;
    const task = { version: 1, id: String(i), subject, description: '', status: 'pending', owner: null, blocks: [], blockedBy: [], revision: 1, createdAt: now, updatedAt: now, claimedAt: null, completedAt: null, result: null, holder: null };
    writeFileSync(path.join(dir, 'tasks', `${i}.json`), JSON.stringify(task) + '\n');
  }
  writeFileSync(path.join(dir, 'tasks', 'highwater'), `${n}\n`);
  const open = async () => {
    const r = await TeamStore.open(dir, 'bench');
    if (!r.ok) throw new Error(r.error.message);
    return r.store;
  };
  const writer = await open();
  const tw = new TeamWatch(await open());
  await tw.start();
  return { writer, tw };
}

/** One board change: a task written, until the sidebar rendered from the watch shows it; ms. */
async function change(t, i) {
  const expected = t.tw.state().board.size + 1;
  const seen = new Promise((resolve) => {
    const sub = t.tw.onChange((s) => {
      const rows = renderSidebar(s, OPTS);
      if (s.board.size === expected && rows.some((r) => r.some((c) => c.text.includes(`TASKS ${expected} `)))) {
        sub.dispose();
        resolve(clock());
      }
    });
  });
  const t0 = clock();
  await t.writer.tasks.create({ subject: `fresh ${i}` });
  return (await seen) - t0;
}

const rssMiB = () => process.memoryUsage().rss / 2 ** 20;

try {
  process.stdout.write(`${machineLine()}\n`);
  const plain = await team(0, 0);
  const giant = await team(2, 9.5 * MB);
  const shown = { plain: [], giant: [] };
  let peak = rssMiB();
  for (let i = 0; i < SAMPLES + 2; i++) {
    // Interleaved: the reference board, then the one with the giant subjects.
    const a = await change(plain, i);
    const b = await change(giant, i);
    peak = Math.max(peak, rssMiB());
    if (i >= 2) [shown.plain.push(a), shown.giant.push(b)];
  }
  const sp = summarize(shown.plain);
  const sg = summarize(shown.giant);
  printTable('Board change with two 9.5 MB subjects written by hand, task write → sidebar rendered (TeamWatch + renderSidebar), ms; reference: the same board without them; goal: ratio ≈ 1',
    ['board', 'p50', 'max', 'ratio p50', 'peak RSS MiB'],
    [['20 tasks', num(sp.p50), num(sp.max), '1.00', ''], ['20 tasks + 2 × 9.5 MB subjects', num(sg.p50), num(sg.max), ratio(sg.p50, sp.p50), num(peak, 0)]]);
  await plain.tw.dispose();
  await giant.tw.dispose();

  // The renderer alone, with the giant subjects in memory (as if a reader let them through).
  const now = new Date().toISOString();
  const task = (id, subject) => ({ version: 1, id, subject, description: '', status: 'pending', owner: null, blocks: [], blockedBy: [], revision: 1, createdAt: now, updatedAt: now, claimedAt: null, completedAt: null, result: null, holder: null, attempts: [], blockedReason: null, reopenedAt: null });
  const data = (tasks) => ({ team: 'g', roster: [], tasks, requests: [], traffic: [], problems: [] });
  const small = Array.from({ length: 20 }, (_, i) => task(String(i + 3), `task ${i + 3}`));
  const boards = {
    plain: data(small),
    'two 9.5 MB': data([task('1', 'x'.repeat(9.5 * MB)), task('2', 'y'.repeat(9.5 * MB)), ...small]),
    'one 30 MB': data([task('1', 'z'.repeat(30 * MB)), ...small]),
  };
  const times = Object.fromEntries(Object.keys(boards).map((k) => [k, []]));
  for (let i = 0; i < SAMPLES; i++) {
    for (const [k, d] of Object.entries(boards)) {
      const t0 = clock();
      renderSidebar(d, OPTS);
      times[k].push(clock() - t0);
    }
  }
  const ref = summarize(times.plain).p50;
  printTable('renderSidebar alone, subjects in memory, ms; reference: the plain board; goal: ratio ≈ 1 (fit() measures only what it can show)',
    ['board', 'p50', 'max', 'ratio p50'],
    Object.keys(boards).map((k) => { const s = summarize(times[k]); return [k, num(s.p50, 3), num(s.max, 3), ratio(s.p50, ref)]; }));
} finally {
  await cleanupAll();
}
