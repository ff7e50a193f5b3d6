/**
 * Pane-count rows of bench/scale.mjs: teamux against tmux 3.3a in the same run, as the number of
 * panes grows (2/4/8/16), and CPU while 4 panes print.
 *   start-up  spawn of `teamux start` (fresh layout folder) to the first output after which every
 *             pane's marker is on the outer screen, against one cold `tmux new-session` that starts
 *             the server, builds the same panes and attaches; runs alternate teamux, tmux
 *   RSS       right after that start-up: the teamux process against the tmux server + its client
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

/** A pane that prints its marker and sleeps. */
function markPane(name, mark) {
  return { name, argv: ['sh', '-c', `printf '%s\\n' "$1"; exec sleep 600`, 'mark', mark] };
}

/** A pane that prints its marker, then LINES_PER_SECOND lines a second, paced on the clock. */
function printingPane(name, mark) {
  const script = `use Time::HiRes qw(time sleep); $|=1; print "$ARGV[0]\\n"; my $t0=time; my $i=0; while (1) { $i++; printf("%s line %06d %s\\n", $ARGV[1], $i, "x" x 60); my $due=$t0+$i/${LINES_PER_SECOND}; my $w=$due-time; sleep($w) if $w>0; }`;
  return { name, argv: ['perl', '-e', script, mark, name] };
}

const names = (n) => Array.from({ length: n }, (_, i) => (i === 0 ? 'lead' : `p${i}`));

async function startOnce(start, ctx, n, run) {
  const marks = names(n).map((x) => `MK-${ctx.tag}-${n}-${x}-${run}`);
  const panes = names(n).map((x, i) => markPane(x, marks[i]));
  const s = start(ctx.dir, { name: `panes${n}`, panes, ...OUTER });
  try {
    const at = await s.outer.waitForText(marks, 60_000, `${s.kind} start-up with ${n} panes`);
    const rss = s.kind === 'teamux' ? rssBytes(s.pid) : rssBytes(s.serverPid()) + rssBytes(s.clientPid);
    return { ms: at - s.started, rss };
  } finally {
    await s.stop();
  }
}

/** Start-up and RSS for each pane count; returns the table rows. */
export async function paneCountRows(ctx, { counts, runs }) {
  const rows = [];
  for (const n of counts) {
    process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] panes: ${n}\n`);
    const r = { teamux: [], tmux: [], teamuxRss: [], tmuxRss: [] };
    for (let i = 0; i < runs; i++) {
      const a = await startOnce(startTeamux, ctx, n, i);
      r.teamux.push(a.ms);
      r.teamuxRss.push(a.rss);
      await sleep(200);
      const b = await startOnce(startTmuxCold, ctx, n, i);
      r.tmux.push(b.ms);
      r.tmuxRss.push(b.rss);
      await sleep(200);
    }
    const m = (xs) => summarize(xs).p50;
    const range = (xs) => `${num(m(xs), 0)} (${num(Math.min(...xs), 0)}–${num(Math.max(...xs), 0)})`;
    const mib = (xs) => m(xs) / 2 ** 20;
    rows.push([String(n), range(r.teamux), range(r.tmux), ratio(m(r.teamux), m(r.tmux)), num(mib(r.teamuxRss), 1), num(mib(r.tmuxRss), 1), ratio(mib(r.teamuxRss), mib(r.tmuxRss))]);
  }
  return rows;
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
