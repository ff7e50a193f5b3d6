/**
 * Pane-count rows of bench/scale.mjs: teamux against tmux 3.3a in the same run, as the number of
 * panes grows (2/4/8/16), and CPU while 4 panes print.
 *   start-up  spawn of `teamux start` (fresh layout folder) to the first output after which every
 *             pane's marker is on the outer screen, against one cold `tmux new-session` that starts
 *             the server, builds the same panes and attaches; runs alternate teamux, tmux. Beside
 *             the wall time, the CPU time spent up to that frame (teamux process; tmux server +
 *             client), which a loaded machine stretches far less than the wall time
 *   RSS       right after that start-up: the teamux process against the tmux server + its client
 *   memory    8 panes that each printed 6,000 lines (5,000 kept by both) and 8 empty ones, settled,
 *             alternating teamux and tmux: RSS and the scrollback's cost per pane
 *   printing  4 panes each printing 100 lines/s (a paced perl loop), teamux and tmux side by side
 *             over the same window; CPU of the teamux process against the tmux server + client
 * The panes' own processes are not counted on either side. Outer terminal 200x64 for all.
 */
import { sleep } from '../lib/outer.mjs';
import { startTeamux, startTmux, startTmuxCold } from '../lib/mux-sessions.mjs';
import { cpuMs, rssBytes } from '../lib/procfs.mjs';
import { num, ratio } from '../lib/report.mjs';
import { clock, summarize } from '../lib/timing.mjs';

const OUTER = { cols: 200, rows: 64 };
const LINES_PER_SECOND = 100;

/** A pane that prints `lines` numbered lines (none by default), then its marker, and sleeps. */
function markPane(name, mark, lines = 0) {
  const fill = lines > 0 ? `seq 1 ${lines}; ` : '';
  return { name, argv: ['sh', '-c', `${fill}printf '%s\\n' "$1"; exec sleep 600`, 'mark', mark] };
}

/** Lines each pane prints for the memory rows: more than the 5,000 both keep. */
const FILL_LINES = 6_000;

/** A pane that prints its marker, then LINES_PER_SECOND lines a second, paced on the clock. */
function printingPane(name, mark) {
  const script = `use Time::HiRes qw(time sleep); $|=1; print "$ARGV[0]\\n"; my $t0=time; my $i=0; while (1) { $i++; printf("%s line %06d %s\\n", $ARGV[1], $i, "x" x 60); my $due=$t0+$i/${LINES_PER_SECOND}; my $w=$due-time; sleep($w) if $w>0; }`;
  return { name, argv: ['perl', '-e', script, mark, name] };
}

const names = (n) => Array.from({ length: n }, (_, i) => (i === 0 ? 'lead' : `p${i}`));

async function startOnce(start, ctx, n, run, { lines = 0, settle = false } = {}) {
  const marks = names(n).map((x) => `MK-${ctx.tag}-${n}-${x}-${run}-${lines}`);
  const panes = names(n).map((x, i) => markPane(x, marks[i], lines));
  const s = start(ctx.dir, { name: `panes${n}`, panes, ...OUTER });
  const teamux = s.kind === 'teamux';
  try {
    const at = await s.outer.waitForText(marks, 120_000, `${s.kind} start-up with ${n} panes`);
    const cpu = teamux ? cpuMs(s.pid) : cpuMs(s.serverPid()) + cpuMs(s.clientPid);
    if (settle) {
      // Output done and the heap settled, as for bench/mux memory.
      await s.outer.waitQuiet(300, 5_000);
      await sleep(1_500);
    }
    const rss = teamux ? rssBytes(s.pid) : rssBytes(s.serverPid()) + rssBytes(s.clientPid);
    return { ms: at - s.started, cpu, rss };
  } finally {
    await s.stop();
  }
}

const median = (xs) => summarize(xs).p50;
const range = (xs, digits = 0) => `${num(median(xs), digits)} (${num(Math.min(...xs), digits)}–${num(Math.max(...xs), digits)})`;
const mib = (xs) => xs.map((x) => x / 2 ** 20);

/** Start-up and RSS for each pane count; returns the table rows. */
export async function paneCountRows(ctx, { counts, runs }) {
  const rows = [];
  for (const n of counts) {
    process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] panes: ${n}\n`);
    const r = { teamux: [], tmux: [], teamuxCpu: [], tmuxCpu: [], teamuxRss: [], tmuxRss: [] };
    for (let i = 0; i < runs; i++) {
      for (const [kind, start] of [['teamux', startTeamux], ['tmux', startTmuxCold]]) {
        const a = await startOnce(start, ctx, n, i);
        r[kind].push(a.ms);
        r[`${kind}Cpu`].push(a.cpu);
        r[`${kind}Rss`].push(a.rss);
        await sleep(200);
      }
    }
    rows.push([
      String(n), range(r.teamux), range(r.tmux), ratio(median(r.teamux), median(r.tmux)),
      `${num(median(r.teamuxCpu), 0)} / ${num(median(r.tmuxCpu), 0)}`, ratio(median(r.teamuxCpu), median(r.tmuxCpu)),
      num(median(mib(r.teamuxRss)), 1), num(median(mib(r.tmuxRss)), 1), ratio(median(r.teamuxRss), median(r.tmuxRss)),
    ]);
  }
  return rows;
}

/**
 * RSS with `n` panes full (FILL_LINES printed each, 5,000 kept) and empty, settled; runs alternate
 * teamux and tmux. Returns the table rows: full, empty, and the scrollback's cost per pane.
 */
export async function memoryRows(ctx, { n, runs }) {
  const r = { teamuxFull: [], tmuxFull: [], teamuxEmpty: [], tmuxEmpty: [] };
  for (let i = 0; i < runs; i++) {
    process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] memory: ${n} panes, run ${i + 1}\n`);
    for (const [kind, start] of [['teamux', startTeamux], ['tmux', startTmuxCold]]) {
      r[`${kind}Full`].push((await startOnce(start, ctx, n, i, { lines: FILL_LINES, settle: true })).rss);
      r[`${kind}Empty`].push((await startOnce(start, ctx, n, i, { settle: true })).rss);
    }
  }
  const perPane = (full, empty) => full.map((f, i) => (f - empty[i]) / n);
  const row = (what, a, b) => [what, `${range(mib(a), 1)}`, `${range(mib(b), 1)}`, ratio(median(a), median(b))];
  return [
    row(`${n} panes x ${num(FILL_LINES, 0)} lines printed (5,000 kept)`, r.teamuxFull, r.tmuxFull),
    row(`${n} panes, empty`, r.teamuxEmpty, r.tmuxEmpty),
    row('scrollback per pane ((full - empty) / panes)', perPane(r.teamuxFull, r.teamuxEmpty), perPane(r.tmuxFull, r.tmuxEmpty)),
  ];
}

/** CPU while 4 panes print, teamux and tmux side by side over the same window; returns the table rows. */
export async function printingRows(ctx, { windowMs, rounds }) {
  const rows = [];
  for (let round = 0; round < rounds; round++) {
    const ready = names(4).map((x) => `PR-${ctx.tag}-${round}-${x}`);
    const panes = names(4).map((x, i) => printingPane(x, ready[i]));
    const mux = startTeamux(ctx.dir, { name: 'printing', panes, ...OUTER });
    const ref = startTmux(ctx.dir, { panes, ...OUTER });
    try {
      await Promise.all([mux, ref].map((s) => s.outer.waitFor((v) => v.text().includes('line 000050'), 60_000, `${s.kind} printing`)));
      // Settled: start-up is behind both; then the same window for both.
      await sleep(1_000);
      const pids = { teamux: mux.pid, server: ref.serverPid(), client: ref.clientPid };
      const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)]));
      const bytes0 = { teamux: mux.outer.bytes, tmux: ref.outer.bytes };
      const t0 = clock();
      await sleep(windowMs);
      const wall = clock() - t0;
      const pct = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, ((cpuMs(pid) - before[k]) / wall) * 100]));
      const kib = (b) => num(b / 1024 / (wall / 1000), 0);
      const tmuxPct = pct.server + pct.client;
      rows.push([
        String(round + 1), num(wall / 1000, 1), `${num(pct.teamux, 1)} %`, `${num(pct.server, 1)} + ${num(pct.client, 1)} %`, ratio(pct.teamux, tmuxPct),
        `${kib(mux.outer.bytes - bytes0.teamux)} / ${kib(ref.outer.bytes - bytes0.tmux)}`,
      ]);
    } finally {
      await Promise.all([mux.stop(), ref.stop()]);
    }
  }
  return rows;
}
