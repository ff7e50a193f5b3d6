/**
 * Sidebar freshness: from a task written to the team folder through the store API in this process
 * (TeamStore.tasks.create from dist/, timestamp taken just before the call) to the arrival of the
 * outer-terminal output that shows its subject in the sidebar. Between samples the task is claimed
 * and completed, so the next new task is always the first ready row (in view). The reference is the
 * floor any file-watching UI has: a plain fs.watch on the tasks folder in this process, timed to the
 * event for the task's own file, in the same samples.
 */
import { watch } from 'node:fs';
import * as path from 'node:path';
import { sleep } from '../lib/outer.mjs';
import { build, startTeamux } from '../lib/mux-sessions.mjs';
import { clock, percentile, summarize } from '../lib/timing.mjs';
import { ms, num, ratio } from '../lib/report.mjs';

const SAMPLES = 60;
const WARMUP = 5;
const TARGET_P95_MS = 100;

async function openStore(dir) {
  const TeamStore = await build.teamStore();
  const opened = await TeamStore.open(dir, 'bench');
  if (!opened.ok) throw new Error(opened.error.message);
  return opened.store;
}

/** Run the section; returns table rows and detail lines. */
export async function sidebar(ctx) {
  const ready = `SIDE-${ctx.tag}`;
  const panes = [
    { name: 'lead', argv: ['sh', '-c', `printf '%s\\n' "$1"; exec bash --noprofile --norc`, 'side', ready] },
    { name: 'shell', argv: ['bash', '--noprofile', '--norc'] },
  ];
  const mux = startTeamux(ctx.dir, { name: 'sidebar', panes, cols: ctx.cols, rows: ctx.rows, sidebar: { hidden: false, sections: ['task_board'] } });
  const shown = []; // task write started -> frame showing it
  const watched = []; // task write started -> fs.watch event for its file
  const created = []; // task write started -> create() returned
  const afterFile = []; // fs.watch event -> frame showing it (teamux's own share)
  let watcher = null;
  try {
    await mux.outer.waitForText([ready, 'TASKS 0'], 15_000, 'teamux with its sidebar');
    const store = await openStore(mux.layout.teamDir);
    const tasksDir = path.join(mux.layout.teamDir, 'tasks');
    const events = [];
    watcher = watch(tasksDir, (_type, name) => events.push({ name, at: clock() }));
    await sleep(300);
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      await mux.outer.waitQuiet(30, 1_000);
      await sleep(10 + Math.random() * 30);
      const subject = `fresh-${i}-${Math.random().toString(36).slice(2, 6)}`;
      // Listen before writing: the frame may come before create() returns (it also takes a lock).
      const seen = mux.outer.waitForText(subject, 5_000, `sidebar row "${subject}"`);
      events.length = 0;
      const t0 = clock();
      const r = await store.tasks.create({ subject });
      const returned = clock();
      if (!r.ok) throw new Error(`tasks.create: ${r.message}`);
      const at = await seen;
      const fileEvent = events.find((e) => e.name === `${r.value.id}.json` && e.at >= t0);
      if (i >= WARMUP) {
        shown.push(at - t0);
        created.push(returned - t0);
        if (fileEvent) {
          watched.push(fileEvent.at - t0);
          afterFile.push(at - fileEvent.at);
        }
      }
      const c = await store.tasks.claim('lead', r.value.id);
      if (c.ok) await store.tasks.complete(r.value.id, 'lead', null);
    }
  } finally {
    watcher?.close();
    await mux.stop();
  }
  const a = summarize(shown);
  const b = summarize(watched);
  const c = summarize(created);
  const d = summarize(afterFile);
  return {
    rows: [
      ['sidebar', `task write to sidebar frame, p95 (${a.n} tasks)`, ms(p95(shown)), `fs.watch ${ms(p95(watched))}`, ratio(p95(shown), p95(watched)), `< ${TARGET_P95_MS} ms`, p95(shown) < TARGET_P95_MS ? 'PASS' : 'MISS'],
      ['', '  median', ms(a.p50), `fs.watch ${ms(b.p50)}`, ratio(a.p50, b.p50), 'info', ''],
    ],
    details: [
      `sidebar: teamux min ${num(a.min)} p50 ${num(a.p50)} p90 ${num(a.p90)} p95 ${num(p95(shown))} max ${num(a.max)} ms; fs.watch event for the task file (${b.n} seen) p50 ${num(b.p50)} p95 ${num(p95(watched))} max ${num(b.max)} ms`,
      `sidebar: breakdown: create() itself (lock, 3 writes, unlock) p50 ${num(c.p50)} p95 ${num(p95(created))} ms; from the file's fs.watch event to the frame (teamux's share) p50 ${num(d.p50)} p95 ${num(p95(afterFile))} max ${num(d.max)} ms`,
    ],
  };
}

function p95(samples) {
  return percentile(Float64Array.from(samples).sort(), 95);
}
