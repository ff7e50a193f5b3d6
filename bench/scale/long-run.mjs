/**
 * The "one long run" row of bench/scale.mjs: a team under steady traffic for a while (the lead
 * messaging every member, members reading their inboxes, tasks created, claimed and completed, the
 * screen's TeamWatch following it all), measured in its first and its last window. The first window
 * is the reference for the last, in the same run: if anything grew without bound (memory, latency,
 * CPU per operation, files on disk), the end/start ratios show it. The logs roll over into segments
 * (small segment sizes are set so they do within the run) and the board keeps its completed tasks,
 * as a real team's does. Pane output is measured by the panes rows.
 */
import * as path from 'node:path';
import { readdirSync, statSync } from 'node:fs';
import { clock, summarize } from '../lib/timing.mjs';
import { num, ratio } from '../lib/report.mjs';

/** Bytes under `p` (a file, or a folder recursively); 0 when it is missing. */
function du(p) {
  try {
    const st = statSync(p);
    if (!st.isDirectory()) return st.size;
  } catch {
    return 0;
  }
  let n = 0;
  for (const e of readdirSync(p)) n += du(path.join(p, e));
  return n;
}

/** The append-only logs of a team folder: events, inboxes (with cursors), their sealed segments, teamux.log. */
const logBytes = (dir) => ['events.jsonl', 'inboxes', 'segments', 'teamux.log'].reduce((n, f) => n + du(path.join(dir, f)), 0);

/**
 * Run the traffic for `seconds`, measuring windows of `windowS`; returns the table rows (first
 * window, last window, end/start ratio). `open(dir)` opens a store handle; `team` is an initialised team.
 */
export async function longRunRows({ seconds, windowS, dir, open, TeamWatch, note }) {
  const saved = [process.env.TEAMUX_EVENTS_SEGMENT_BYTES, process.env.TEAMUX_INBOX_SEGMENT_BYTES];
  process.env.TEAMUX_EVENTS_SEGMENT_BYTES ??= String(256 * 1024);
  process.env.TEAMUX_INBOX_SEGMENT_BYTES ??= String(64 * 1024);
  const store = await open(dir);
  const screen = await open(dir);
  const watch = new TeamWatch(screen);
  await watch.start();
  const members = ['amy', 'bob', 'cat', 'dan'];
  const windows = [];
  let current = null;
  const startWindow = () => ({ t0: clock(), cpu0: process.cpuUsage(), ops: 0, deliver: [], claim: [] });
  const endWindow = (w) => {
    const cpu = process.cpuUsage(w.cpu0);
    global.gc?.();
    return { ...w, ms: clock() - w.t0, cpuMs: (cpu.user + cpu.system) / 1000, rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed, disk: logBytes(dir), tasks: watch.state().board.size };
  };
  const t0 = clock();
  current = startWindow();
  let round = 0;
  try {
    while (clock() - t0 < seconds * 1000) {
      round++;
      // Messages: the lead to every member; each member reads what is new (the cursor committed).
      for (const m of members) {
        const a = clock();
        const sent = await store.send({ from: 'lead', to: m, type: 'message', text: `round ${round} ${'x'.repeat(80)}` });
        if (!sent.ok) throw new Error(sent.message);
        const r = await store.mail.read(m);
        if (r.messages.length !== 1) throw new Error(`${m} read ${r.messages.length} messages in round ${round}, expected 1`);
        current.deliver.push(clock() - a);
        current.ops += 2;
      }
      // Task churn: two new tasks, one claimed and completed by the next member.
      for (let i = 0; i < 2; i++) await store.tasks.create({ subject: `round ${round} task ${i}` });
      const who = members[round % members.length];
      const a = clock();
      const c = await store.claim(who);
      current.claim.push(clock() - a);
      if (!c.ok) throw new Error(c.message);
      const done = await store.complete(who, c.value.id, 'done');
      if (!done.ok) throw new Error(done.message);
      current.ops += 4;
      if (clock() - current.t0 >= windowS * 1000) {
        windows.push(endWindow(current));
        note(`long run: window ${windows.length}, ${Math.round((clock() - t0) / 1000)} s, ${round} rounds`);
        current = startWindow();
      }
    }
  } finally {
    await watch.dispose();
    for (const [i, k] of ['TEAMUX_EVENTS_SEGMENT_BYTES', 'TEAMUX_INBOX_SEGMENT_BYTES'].entries()) {
      if (saved[i] === undefined) delete process.env[k];
      else process.env[k] = saved[i];
    }
  }
  if (windows.length < 2) throw new Error(`the long run made ${windows.length} window(s); give it more time`);
  const [first, last] = [windows[0], windows.at(-1)];
  const p = (x, q) => { const s = [...x].sort((m, n) => m - n); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
  const row = (label, w) => [label, `${num(w.ops / (w.ms / 1000), 0)}`, `${num(p(w.deliver, 0.5))} / ${num(p(w.deliver, 0.95))}`, `${num(summarize(w.claim).p50)}`, num(w.cpuMs / w.ops, 3), num(w.rss / 2 ** 20, 1), num(w.heap / 2 ** 20, 1), num(w.disk / 2 ** 20, 2), num(w.tasks, 0)];
  return [
    row(`first ${windowS} s`, first),
    row(`last ${windowS} s (after ${num(seconds, 0)} s)`, last),
    [
      'last / first', ratio(last.ops / last.ms, first.ops / first.ms), `${ratio(p(last.deliver, 0.5), p(first.deliver, 0.5))} / ${ratio(p(last.deliver, 0.95), p(first.deliver, 0.95))}`,
      ratio(summarize(last.claim).p50, summarize(first.claim).p50), ratio(last.cpuMs / last.ops, first.cpuMs / first.ops), ratio(last.rss, first.rss), ratio(last.heap, first.heap), ratio(last.disk, first.disk), ratio(last.tasks, first.tasks),
    ],
  ];
}
