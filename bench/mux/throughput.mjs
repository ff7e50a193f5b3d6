/**
 * Throughput: `cat` of a 30 MB file of coloured text in the main pane of a 3-pane layout (the other
 * two are idle bash shells), timed from the keypress that starts it until the outer terminal shows
 * the unique end marker printed after it. Compared with the same in tmux (attached client, same
 * outer size, same pane size) and with a raw node-pty read of the file (no multiplexer at all).
 * teamux runs twice, on each of its pane backends: node-pty, and tmux (the members in windows of a
 * private tmux server, their output read through control mode's `%output`); both draw in their own
 * outer terminal exactly as the other, so the end marker is found the same way for every variant.
 * Each round runs teamux (pty), teamux (tmux backend), tmux and the raw read once, in that order.
 * The CPU time of the processes doing the work (teamux's node, each tmux server) is read around
 * every run, so a slow variant shows where its time goes.
 *
 * How "settled" is detected: every multiplexer runs in an OuterTerminal (a node-pty this process
 * drains). While the cat runs, the outer output is only recorded with arrival times, not parsed:
 * tmux forwards ~25 MB to its terminal and parsing that here would steal one of the machine's two
 * cores from tmux (a real terminal has its own). Once the output has been quiet for a second, the
 * recording is replayed into a headless emulator chunk by chunk; the time of a run is the arrival
 * time of the chunk after which the marker is on the emulated screen. The marker is checked on the
 * screen, not searched in the byte stream, because a renderer may draw it in pieces.
 */
import * as path from 'node:path';
import { writeColourText } from '../lib/colour-text.mjs';
import { OuterTerminal } from '../lib/outer.mjs';
import { childEnv } from '../lib/cleanup.mjs';
import { startTeamux, startTmux, tmuxServerRuns } from '../lib/mux-sessions.mjs';
import { cpuMs } from '../lib/procfs.mjs';
import { clock, summarize } from '../lib/timing.mjs';
import { ms, num, ratio, verdict } from '../lib/report.mjs';

const FILE_BYTES = 30 * 2 ** 20;
const RUNS = 5; // measured runs per contestant, alternating teamux, teamux-tmux, tmux, raw
const QUIET_MS = 1_000;
const TIMEOUT_MS = 90_000;

/** The main pane's program: wait for Enter, cat the file, print the numbered end marker; repeat. */
function catLoop(file, tag) {
  const script = `stty -echo; i=0; printf 'READY-%s\\n' "$2"; while read _; do i=$((i+1)); cat "$1"; printf '\\n\\033[0mEND-%s-%s#\\n' "$2" "$i"; done`;
  return ['sh', '-c', script, 'catloop', file, tag];
}

/**
 * The processes that do a variant's work, by role: CPU time is read from each around every run.
 * (An attached tmux client uses next to none: its server writes to the client's terminal itself.)
 */
function workers(session) {
  if (session.kind === 'teamux') return { node: session.pid };
  if (session.kind === 'teamux-tmux') return { node: session.pid, 'tmux server': session.serverPid() };
  return { server: session.serverPid(), client: session.clientPid };
}

async function timedCat(session, tag, n) {
  const { outer } = session;
  await outer.waitQuiet(300);
  const marker = `END-${tag}-${n}#`;
  const bytes0 = outer.bytes;
  const cpu0 = Object.fromEntries(Object.entries(session.workers).map(([role, pid]) => [role, cpuMs(pid)]));
  const t0 = clock();
  outer.write('\r');
  const at = await outer.waitForHeld((v) => v.text().includes(marker), { quietMs: QUIET_MS, timeoutMs: TIMEOUT_MS, what: `${session.kind} end marker ${marker}`, hint: marker });
  // Includes the quiet second after the marker: an idle multiplexer uses next to nothing in it.
  const cpu = Object.fromEntries(Object.entries(session.workers).map(([role, pid]) => [role, cpuMs(pid) - cpu0[role]]));
  // The main pane's text as the user sees it (below its title row), to check all show the same end.
  const pane = outer.screen().region(0, 1, session.paneCols, session.paneRows);
  return { ms: at - t0, outerBytes: outer.bytes - bytes0, pane, cpu };
}

/** 'same', or the first row of `rows` that differs from `ref`'s. */
function compareRows(rows, ref) {
  const y = rows.findIndex((row, i) => row !== ref[i]);
  return y < 0 ? 'same' : `row ${y + 1} differs: "${rows[y].slice(0, 40)}" vs tmux "${ref[y].slice(0, 40)}"`;
}

async function rawRead(file, cols, rows) {
  const t0 = clock();
  const outer = new OuterTerminal('cat', [file], { cols, rows, emulate: false, env: childEnv() });
  const exit = await outer.exited;
  return { ms: Math.max(exit.at, outer.lastChunkAt) - t0, bytes: outer.bytes };
}

/** Run the section; returns table rows and detail lines. */
export async function throughput(ctx) {
  const file = path.join(ctx.dir, 'colour-30mb.txt');
  const gen = writeColourText(file, FILE_BYTES);
  const mb = gen.bytes / 2 ** 20;
  const tag = ctx.tag;
  const panes = [
    { name: 'lead', argv: catLoop(file, tag) },
    { name: 'shell', argv: ['bash', '--noprofile', '--norc'] },
    { name: 'spare', argv: ['bash', '--noprofile', '--norc'] },
  ];
  const size = { cols: ctx.cols, rows: ctx.rows };
  const sessions = [];
  const times = { teamux: [], 'teamux-tmux': [], tmux: [], raw: [] };
  const sameScreen = [];
  let rawBytes = Infinity;
  const outBytes = { teamux: [], 'teamux-tmux': [], tmux: [] };
  const cpu = { teamux: [], 'teamux-tmux': [], tmux: [] };
  let backendSocket = null;
  try {
    sessions.push(startTeamux(ctx.dir, { name: 'throughput', panes, ...size }));
    sessions.push(startTeamux(ctx.dir, { name: 'throughput-tmux', panes, ...size, backend: 'tmux' }));
    sessions.push(startTmux(ctx.dir, { panes, ...size }));
    backendSocket = sessions[1].socket;
    // All draw the main pane at the same place: columns 0..cols/2-1, rows 1..rows-2 (title row above, status line below).
    for (const s of sessions) Object.assign(s, { paneCols: Math.round(ctx.cols / 2), paneRows: ctx.rows - 2 });
    await Promise.all(sessions.map((s) => s.outer.waitForText(`READY-${tag}`, 15_000, `${s.kind} ready`)));
    for (const s of sessions) s.workers = workers(s);
    // Warm-up: one run each fills the scrollbacks (5000 lines) and warms the JIT; not counted.
    for (const s of sessions) await timedCat(s, tag, 1);
    for (let r = 0; r < RUNS; r++) {
      const panes = {};
      for (const s of sessions) {
        const t = await timedCat(s, tag, r + 2);
        times[s.kind].push(t.ms);
        outBytes[s.kind].push(t.outerBytes);
        cpu[s.kind].push(t.cpu);
        panes[s.kind] = t.pane;
      }
      sameScreen.push(['teamux', 'teamux-tmux'].map((k) => `${k} ${compareRows(panes[k], panes.tmux)}`).join(', '));
      // The raw reference: the pane's inner size (main pane: half the width, all rows but title and status).
      const raw = await rawRead(file, Math.round(ctx.cols / 2), ctx.rows - 2);
      times.raw.push(raw.ms);
      rawBytes = Math.min(rawBytes, raw.bytes);
    }
  } finally {
    await Promise.all(sessions.map((s) => s.stop()));
  }
  // The tmux backend's server must be gone with its session (`tmux -L name ls` fails).
  const backendGone = backendSocket === null || !tmuxServerRuns(backendSocket);
  if (!backendGone) throw new Error(`the tmux backend's server ${backendSocket} survived stop()`);
  const a = summarize(times.teamux).p50;
  const b = summarize(times.tmux).p50;
  const c = summarize(times.raw).p50;
  const d = summarize(times['teamux-tmux']).p50;
  const list = (xs) => xs.map((x) => num(x, 0)).join(', ');
  const perRound = (xs, ys) => ratio(summarize(xs.map((t, i) => t / ys[i])).p50, 1);
  const mbOut = (k) => num(summarize(outBytes[k]).p50 / 2 ** 20, 2);
  const cpuOf = (k) => Object.keys(cpu[k][0] ?? {}).map((role) => `${role} ${num(summarize(cpu[k].map((c) => c[role])).p50, 0)}`).join(' + ');
  return {
    rows: [
      ['throughput', `cat ${num(mb, 1)} MB, time to marker on screen (median of ${RUNS})`, ms(a), `tmux ${ms(b)}`, ratio(a, b), '<= 1.00x tmux', verdict(a / b, 1.0, true)],
      ['', '  same, against a raw node-pty read (no multiplexer)', ms(a), `raw ${ms(c)}`, ratio(a, c), 'info', ''],
      ['', '  rate', `${num(mb / (a / 1000), 1)} MB/s`, `tmux ${num(mb / (b / 1000), 1)} MB/s`, '', '', ''],
      ['', '  teamux, tmux backend: same cat, same layout', ms(d), `tmux ${ms(b)}`, ratio(d, b), 'info', ''],
      ['', '  tmux backend against the pty backend', ms(d), `pty ${ms(a)}`, ratio(d, a), 'info', ''],
      ['', '  tmux backend rate', `${num(mb / (d / 1000), 1)} MB/s`, `pty ${num(mb / (a / 1000), 1)} MB/s`, '', '', ''],
    ],
    details: [
      `throughput: ${num(mb, 1)} MB, ${num(gen.lines, 0)} lines; pane ${Math.round(ctx.cols / 2)}x${ctx.rows - 2} in a ${ctx.cols}x${ctx.rows} outer terminal; one warm-up run each, not counted`,
      `throughput: runs (ms) teamux [${list(times.teamux)}], teamux-tmux [${list(times['teamux-tmux'])}], tmux [${list(times.tmux)}], raw [${list(times.raw)}]`,
      `throughput: median of the per-round ratios teamux/tmux ${perRound(times.teamux, times.tmux)}, teamux-tmux/tmux ${perRound(times['teamux-tmux'], times.tmux)}, teamux-tmux/teamux ${perRound(times['teamux-tmux'], times.teamux)}`,
      `throughput: CPU ms per run (median, from the keypress to a quiet second after the marker): teamux ${cpuOf('teamux')}; teamux-tmux ${cpuOf('teamux-tmux')}; tmux ${cpuOf('tmux')}`,
      `throughput: bytes sent to the outer terminal per run (median) teamux ${mbOut('teamux')} MB, teamux-tmux ${mbOut('teamux-tmux')} MB, tmux ${mbOut('tmux')} MB`,
      `throughput: teamux-tmux members ran on tmux -L ${backendSocket}; after the run \`tmux -L ${backendSocket} ls\` fails (server gone)`,
      `throughput: raw read: fewest bytes read in a run ${num(rawBytes, 0)} (file ${num(gen.bytes, 0)} + ${num(gen.lines, 0)} CRs from the tty's LF -> CRLF = ${num(gen.bytes + gen.lines, 0)})`,
      `throughput: final text of the cat pane against tmux's, per run: ${sameScreen.join('; ')}`,
    ],
  };
}
