/**
 * Keystroke latency: one character written to the outer pty master, until the outer terminal's
 * screen shows it echoed at the cursor. The pane runs `cat` with its tty in raw mode and echo off,
 * so the echo is a process writing the byte back (as a shell or an editor would), and every key is
 * a round trip: outer pty -> multiplexer -> pane pty -> cat -> pane pty -> multiplexer -> outer pty.
 * teamux and tmux run side by side (same panes, same outer size) and keys alternate between them
 * one by one, so load on this shared machine falls on both alike. Node's floor runs beside them
 * (bench/lib/node-floor.cjs relay: the same cat in a pty, input and output passed straight through by
 * node and node-pty), so the gap to tmux splits into Node's share and teamux's own. The goal is
 * issue 12's: a median within 1.5x tmux's. A sample is the arrival time of
 * the output chunk that put the character in the cell under the cursor, minus the time of the write.
 * TEAMUX_BENCH_BASE=/other/checkout/bin/teamux adds that build as a third session in the same
 * rotation (an A/B of a change against tmux in one run; that build is not copied, so leave it be).
 */
import { startNodeRelay, startTeamux, startTmux } from '../lib/mux-sessions.mjs';
import { sleep } from '../lib/outer.mjs';
import { clock, summarize } from '../lib/timing.mjs';
import { ms, num, ratio, verdict } from '../lib/report.mjs';

const SAMPLES = 220; // per multiplexer; the first WARMUP are not counted
const WARMUP = 20;
const LINE = 40; // characters per line before an (unmeasured) Enter
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';
const TARGET_P99_MS = 16.7; // one 60 Hz frame (proposed target)
const TARGET_RATIO = 1.5; // issue 12: a median within 1.5x tmux's

async function newline(outer) {
  const before = outer.cursor().y;
  outer.write('\r\n');
  await outer.waitFor(() => outer.cursor().x === 0 && outer.cursor().y !== before, 2_000, 'newline').catch(() => undefined);
  await outer.waitQuiet(30, 500);
}

async function sample(session, i) {
  const { outer } = session;
  await outer.waitQuiet(5, 500);
  const { x, y } = outer.cursor();
  let ch = ALPHABET[i % ALPHABET.length];
  if (outer.screen().cell(x, y) === ch) ch = ch === 'z' ? 'y' : 'z';
  const t0 = clock();
  outer.write(ch);
  const at = await outer.waitFor((v) => v.cell(x, y) === ch, 2_000, `${session.kind} echo of "${ch}" at ${x},${y}`);
  return at - t0;
}

/** Run the section; returns table rows and detail lines. */
export async function latency(ctx) {
  const ready = `ECHO-${ctx.tag}`;
  const panes = [
    { name: 'lead', argv: ['sh', '-c', `stty raw -echo; printf '%s\\r\\n' "$1"; exec cat`, 'echo', ready] },
    { name: 'shell', argv: ['bash', '--noprofile', '--norc'] },
    { name: 'spare', argv: ['bash', '--noprofile', '--norc'] },
  ];
  const size = { cols: ctx.cols, rows: ctx.rows };
  const mux = startTeamux(ctx.dir, { name: 'latency', panes, ...size });
  const ref = startTmux(ctx.dir, { panes, ...size });
  const floor = startNodeRelay(ctx.dir, { panes, ...size });
  const baseBin = process.env.TEAMUX_BENCH_BASE;
  const base = baseBin ? { ...startTeamux(ctx.dir, { name: 'latency-base', panes, ...size, bin: baseBin }), kind: 'base' } : null;
  const sessions = base ? [mux, ref, floor, base] : [mux, ref, floor];
  const lat = { teamux: [], tmux: [], floor: [], base: [] };
  try {
    await Promise.all(sessions.map((s) => s.outer.waitForText(ready, 15_000, `${s.kind} ready`)));
    await sleep(500);
    for (let i = 0; i < SAMPLES; i++) {
      if (i > 0 && i % LINE === 0) await Promise.all(sessions.map((s) => newline(s.outer)));
      // Rotate which one goes first, then a short random pause (keys are not machine-regular).
      const first = i % sessions.length;
      for (const s of [...sessions.slice(first), ...sessions.slice(0, first)]) {
        const t = await sample(s, i);
        if (i >= WARMUP) lat[s.kind].push(t);
        await sleep(5 + Math.random() * 15);
      }
    }
  } finally {
    await Promise.all(sessions.map((s) => s.stop()));
  }
  const a = summarize(lat.teamux);
  const b = summarize(lat.tmux);
  const line = (name, x) => `${name} min ${num(x.min)} p50 ${num(x.p50)} p90 ${num(x.p90)} p99 ${num(x.p99)} max ${num(x.max)} ms`;
  const c = base ? summarize(lat.base) : null;
  const f = summarize(lat.floor);
  return {
    rows: [
      ['latency', `keystroke to echo, median (${a.n} keys)`, ms(a.p50), `tmux ${ms(b.p50)}`, ratio(a.p50, b.p50), `<= ${TARGET_RATIO}x tmux (issue 12)`, verdict(a.p50 / b.p50, TARGET_RATIO, true)],
      ['', "  Node's floor: node + node-pty relay, median", ms(f.p50), `tmux ${ms(b.p50)}`, ratio(f.p50, b.p50), 'info', ''],
      ['', "  teamux over Node's floor, median", ms(a.p50), `floor ${ms(f.p50)}`, ratio(a.p50, f.p50), 'info', ''],
      ['', `keystroke to echo, p99 (${a.n} keys)`, ms(a.p99), `tmux ${ms(b.p99)}`, ratio(a.p99, b.p99), `<= ${TARGET_P99_MS} ms (proposed)`, verdict(a.p99, TARGET_P99_MS, true)],
      ...(c ? [['', `keystroke to echo, median, TEAMUX_BENCH_BASE build (${c.n} keys)`, ms(c.p50), `tmux ${ms(b.p50)}`, ratio(c.p50, b.p50), 'info', '']] : []),
    ],
    details: [`latency: ${line('teamux', a)}; ${line('tmux', b)}; ${line("Node's floor", f)}${c ? `; ${line(`base (${baseBin})`, c)}` : ''}`],
  };
}
