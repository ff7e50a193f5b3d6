/**
 * Throughput: `cat` of a 30 MB file of coloured text in the main pane of a 3-pane layout (the other
 * two are idle bash shells), timed from the keypress that starts it until the outer terminal shows
 * the unique end marker printed after it. Compared with the same in tmux (attached client, same
 * outer size, same pane size) and with a raw node-pty read of the file (no multiplexer at all).
 *
 * How "settled" is detected: both multiplexers run in an OuterTerminal (a node-pty this process
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
import { startTeamux, startTmux } from '../lib/mux-sessions.mjs';
import { clock, summarize } from '../lib/timing.mjs';
import { ms, num, ratio, verdict } from '../lib/report.mjs';

const FILE_BYTES = 30 * 2 ** 20;
const RUNS = 5; // measured runs per contestant, alternating teamux, tmux, raw
const QUIET_MS = 1_000;
const TIMEOUT_MS = 90_000;

/** The main pane's program: wait for Enter, cat the file, print the numbered end marker; repeat. */
function catLoop(file, tag) {
  const script = `stty -echo; i=0; printf 'READY-%s\\n' "$2"; while read _; do i=$((i+1)); cat "$1"; printf '\\n\\033[0mEND-%s-%s#\\n' "$2" "$i"; done`;
  return ['sh', '-c', script, 'catloop', file, tag];
}

async function timedCat(session, tag, n) {
  const { outer } = session;
  await outer.waitQuiet(300);
  const marker = `END-${tag}-${n}#`;
  const bytes0 = outer.bytes;
  const t0 = clock();
  outer.write('\r');
  const at = await outer.waitForHeld((v) => v.text().includes(marker), { quietMs: QUIET_MS, timeoutMs: TIMEOUT_MS, what: `${session.kind} end marker ${marker}`, hint: marker });
  // The main pane's text as the user sees it (below its title row), to check both show the same end.
  const pane = outer.screen().region(0, 1, session.paneCols, session.paneRows);
  return { ms: at - t0, outerBytes: outer.bytes - bytes0, pane };
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
  const mux = startTeamux(ctx.dir, { name: 'throughput', panes, ...size });
  const ref = startTmux(ctx.dir, { panes, ...size });
  // Both draw the main pane at the same place: columns 0..cols/2-1, rows 1..rows-2 (title row above, status line below).
  for (const s of [mux, ref]) Object.assign(s, { paneCols: Math.round(ctx.cols / 2), paneRows: ctx.rows - 2 });
  const times = { teamux: [], tmux: [], raw: [] };
  const sameScreen = [];
  let rawBytes = Infinity;
  const outBytes = { teamux: [], tmux: [] };
  try {
    await Promise.all([mux, ref].map((s) => s.outer.waitForText(`READY-${tag}`, 15_000, `${s.kind} ready`)));
    // Warm-up: one run each fills both scrollbacks (5000 lines) and warms the JIT; not counted.
    await timedCat(mux, tag, 1);
    await timedCat(ref, tag, 1);
    for (let r = 0; r < RUNS; r++) {
      const panes = {};
      for (const s of [mux, ref]) {
        const t = await timedCat(s, tag, r + 2);
        times[s.kind].push(t.ms);
        outBytes[s.kind].push(t.outerBytes);
        panes[s.kind] = t.pane;
      }
      const differ = panes.teamux.findIndex((row, y) => row !== panes.tmux[y]);
      sameScreen.push(differ < 0 ? 'same' : `row ${differ + 1} differs: teamux "${panes.teamux[differ].slice(0, 40)}" tmux "${panes.tmux[differ].slice(0, 40)}"`);
      // The raw reference: the pane's inner size (main pane: half the width, all rows but title and status).
      const raw = await rawRead(file, Math.round(ctx.cols / 2), ctx.rows - 2);
      times.raw.push(raw.ms);
      rawBytes = Math.min(rawBytes, raw.bytes);
    }
  } finally {
    await Promise.all([mux.stop(), ref.stop()]);
  }
  const a = summarize(times.teamux).p50;
  const b = summarize(times.tmux).p50;
  const c = summarize(times.raw).p50;
  const list = (xs) => xs.map((x) => num(x, 0)).join(', ');
  return {
    rows: [
      ['throughput', `cat ${num(mb, 1)} MB, time to marker on screen (median of ${RUNS})`, ms(a), `tmux ${ms(b)}`, ratio(a, b), '<= 1.00x tmux', verdict(a / b, 1.0, true)],
      ['', '  same, against a raw node-pty read (no multiplexer)', ms(a), `raw ${ms(c)}`, ratio(a, c), 'info', ''],
      ['', '  rate', `${num(mb / (a / 1000), 1)} MB/s`, `tmux ${num(mb / (b / 1000), 1)} MB/s`, '', '', ''],
    ],
    details: [
      `throughput: ${num(mb, 1)} MB, ${num(gen.lines, 0)} lines; pane ${Math.round(ctx.cols / 2)}x${ctx.rows - 2} in a ${ctx.cols}x${ctx.rows} outer terminal; one warm-up run each, not counted`,
      `throughput: runs (ms) teamux [${list(times.teamux)}], tmux [${list(times.tmux)}], raw [${list(times.raw)}]; median of the per-round ratios teamux/tmux ${ratio(summarize(times.teamux.map((t, i) => t / times.tmux[i])).p50, 1)}`,
      `throughput: bytes sent to the outer terminal per run (median) teamux ${num(summarize(outBytes.teamux).p50 / 2 ** 20, 2)} MB, tmux ${num(summarize(outBytes.tmux).p50 / 2 ** 20, 2)} MB`,
      `throughput: raw read: fewest bytes read in a run ${num(rawBytes, 0)} (file ${num(gen.bytes, 0)} + ${num(gen.lines, 0)} CRs from the tty's LF -> CRLF = ${num(gen.bytes + gen.lines, 0)})`,
      `throughput: final text of the cat pane, teamux vs tmux, per run: ${sameScreen.join('; ')}`,
    ],
  };
}
