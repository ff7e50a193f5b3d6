/**
 * Idle CPU: teamux with 4 idle panes (bash shells) and its sidebar, against a tmux server with the
 * same 4 panes and an attached client, both measured over the same 10-second window (they run side
 * by side; neither does anything). CPU is utime + stime from /proc/<pid>/stat over the wall time,
 * in percent of one core. Start-up is excluded: the window opens SETTLE_MS after both screens are
 * ready, because V8's memory reducer runs a few major GCs in an idle node process some 8-10 s after
 * it started (about 100 ms of CPU, once); the CPU used while settling is reported aside.
 */
import { cpuMs } from '../lib/procfs.mjs';
import { sleep } from '../lib/outer.mjs';
import { startTeamux, startTmux } from '../lib/mux-sessions.mjs';
import { clock } from '../lib/timing.mjs';
import { num, ratio } from '../lib/report.mjs';

const WINDOW_MS = 10_000;
const SLICE_MS = 2_000;
const SETTLE_MS = 12_000;
const TARGET_PERCENT = 1;

/** Run the section; returns table rows and detail lines. */
export async function idle(ctx) {
  const ready = `IDLE-${ctx.tag}`;
  const shell = (name) => ({ name, argv: ['bash', '--noprofile', '--norc'] });
  const panes = [{ name: 'lead', argv: ['sh', '-c', `printf '%s\\n' "$1"; exec bash --noprofile --norc`, 'idle', ready] }, shell('alpha'), shell('bravo'), shell('charlie')];
  const size = { cols: ctx.cols, rows: ctx.rows };
  const mux = startTeamux(ctx.dir, { name: 'idle', panes, ...size, sidebar: { hidden: false } });
  const ref = startTmux(ctx.dir, { panes, ...size });
  let m;
  try {
    await Promise.all([mux, ref].map((s) => s.outer.waitForText(ready, 15_000, `${s.kind} ready`)));
    const pids = { teamux: mux.pid, server: ref.serverPid(), client: ref.clientPid };
    const settling = cpuMs(pids.teamux);
    await sleep(SETTLE_MS);
    const settled = cpuMs(pids.teamux) - settling;
    const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)]));
    const bytes0 = { teamux: mux.outer.bytes, tmux: ref.outer.bytes };
    const t0 = clock();
    // Also note teamux's CPU per 2-second slice, to tell a one-off (a late GC) from a steady cost.
    const slices = [];
    for (let i = 0; i < WINDOW_MS / SLICE_MS; i++) {
      const c = cpuMs(pids.teamux);
      await sleep(SLICE_MS);
      slices.push(cpuMs(pids.teamux) - c);
    }
    const wall = clock() - t0;
    const pct = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, ((cpuMs(pid) - before[k]) / wall) * 100]));
    m = { pct, wall, slices, settled, out: { teamux: mux.outer.bytes - bytes0.teamux, tmux: ref.outer.bytes - bytes0.tmux } };
  } finally {
    await Promise.all([mux.stop(), ref.stop()]);
  }
  const pc = (x) => `${num(x, 2)} %`;
  return {
    rows: [
      ['idle', `CPU, 4 idle panes, ${num(m.wall / 1000, 1)} s (% of one core)`, pc(m.pct.teamux), `tmux server ${pc(m.pct.server)}`, m.pct.server > 0 ? ratio(m.pct.teamux, m.pct.server) : 'n/a (tmux 0)', `< ${TARGET_PERCENT} %`, m.pct.teamux < TARGET_PERCENT ? 'PASS' : 'MISS'],
    ],
    details: [
      `idle: teamux CPU ms per ${SLICE_MS / 1000}-s slice [${m.slices.map((x) => num(x, 0)).join(', ')}]; while settling (first ${SETTLE_MS / 1000} s after ready) ${num(m.settled, 0)} ms; tmux client ${pc(m.pct.client)}; bytes written to the outer terminal in the window: teamux ${m.out.teamux}, tmux ${m.out.tmux}; CPU time resolution 10 ms (${pc(1000 / m.wall)} over this window)`,
    ],
  };
}
