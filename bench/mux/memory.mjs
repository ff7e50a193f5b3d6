/**
 * Memory: resident set of the teamux process with 8 panes that each printed 6000 lines (so each
 * holds a full 5000-line scrollback) and then idle, against the tmux server with the same 8 panes and
 * the same history limit (the server holds tmux's scrollback; its client is reported aside). Both
 * are also measured with the same 8 panes empty, to show what the scrollback itself costs. Order:
 * teamux empty, tmux empty, teamux full, tmux full, twice; medians reported. Then one more teamux
 * run each way, not counted, with a reporter preloaded (bench/lib/memory-split.mjs) for the detail
 * lines that say where the RSS goes.
 */
import * as path from 'node:path';
import { askHeapReport, heapReportEnv, smapsSplit, splitLine } from '../lib/memory-split.mjs';
import { rssBytes } from '../lib/procfs.mjs';
import { sleep } from '../lib/outer.mjs';
import { startTeamux, startTmux } from '../lib/mux-sessions.mjs';
import { summarize } from '../lib/timing.mjs';
import { num, ratio, verdict } from '../lib/report.mjs';

const ROUNDS = 2;
const PANES = 8;
const LINES = 6_000;
const SETTLE_MS = 1_500;
const TARGET_MIB = 200; // proposed
const PER_PANE_RATIO = 6; // issue 12: a pane's scrollback within 6x tmux's

function panes(tag, fill) {
  return Array.from({ length: PANES }, (_, i) => {
    const name = i === 0 ? 'lead' : `p${i}`;
    const body = fill ? `seq 1 ${LINES}; ` : '';
    return { name, argv: ['sh', '-c', `${body}printf 'MK-%s-%s\\n' "$1" "$2"; exec sleep 600`, 'mem', tag, name] };
  });
}

async function once(start, ctx, fill, split = null) {
  const p = panes(ctx.tag, fill);
  const env = split ? heapReportEnv(split) : {};
  const s = start(ctx.dir, { name: 'memory', panes: p, cols: ctx.cols, rows: ctx.rows, env });
  try {
    await s.outer.waitForText(p.map((x) => `MK-${ctx.tag}-${x.name}`), 30_000, `${s.kind} ${PANES} panes${fill ? ' filled' : ''}`);
    await s.outer.waitQuiet(300, 3_000);
    await sleep(SETTLE_MS);
    if (split) {
      const rss = rssBytes(s.pid);
      const smaps = smapsSplit(s.pid);
      return { line: splitLine(`memory split, teamux ${PANES} panes ${fill ? 'full' : 'empty'}`, rss, smaps, await askHeapReport(s.pid, split)) };
    }
    if (s.kind === 'teamux') return { main: rssBytes(s.pid) };
    return { main: rssBytes(s.serverPid()), client: rssBytes(s.clientPid) };
  } finally {
    await s.stop();
  }
}

/** Run the section; returns table rows and detail lines. */
export async function memory(ctx) {
  const r = { teamuxEmpty: [], tmuxEmpty: [], teamuxFull: [], tmuxFull: [], client: [] };
  for (let i = 0; i < ROUNDS; i++) {
    r.teamuxEmpty.push((await once(startTeamux, ctx, false)).main);
    r.tmuxEmpty.push((await once(startTmux, ctx, false)).main);
    r.teamuxFull.push((await once(startTeamux, ctx, true)).main);
    const t = await once(startTmux, ctx, true);
    r.tmuxFull.push(t.main);
    r.client.push(t.client);
  }
  const splits = [];
  for (const fill of [true, false]) splits.push((await once(startTeamux, ctx, fill, path.join(ctx.dir, `heap-report-${fill ? 'full' : 'empty'}.json`))).line);
  const med = (xs) => summarize(xs).p50 / 2 ** 20;
  const mib = (x) => `${num(x, 1)} MiB`;
  const [ae, be, af, bf] = [med(r.teamuxEmpty), med(r.tmuxEmpty), med(r.teamuxFull), med(r.tmuxFull)];
  return {
    rows: [
      ['memory', `RSS, ${PANES} panes x ${LINES} lines printed (5000 kept)`, mib(af), `tmux server ${mib(bf)}`, ratio(af, bf), `<= ${TARGET_MIB} MiB (proposed)`, verdict(af, TARGET_MIB, true)],
      ['', `  RSS, same ${PANES} panes empty`, mib(ae), `tmux server ${mib(be)}`, ratio(ae, be), 'info', ''],
      ['', '  scrollback cost (full - empty)', mib(af - ae), `tmux server ${mib(bf - be)}`, ratio(af - ae, bf - be), 'info', ''],
      ['', '  scrollback cost per pane', mib((af - ae) / PANES), `tmux server ${mib((bf - be) / PANES)}`, ratio(af - ae, bf - be), `<= ${PER_PANE_RATIO}x tmux (issue 12)`, verdict((af - ae) / Math.max(1e-9, bf - be), PER_PANE_RATIO, true)],
    ],
    details: [`memory: runs (MiB) teamux empty [${r.teamuxEmpty.map((x) => num(x / 2 ** 20, 1)).join(', ')}], full [${r.teamuxFull.map((x) => num(x / 2 ** 20, 1)).join(', ')}]; tmux server empty [${r.tmuxEmpty.map((x) => num(x / 2 ** 20, 1)).join(', ')}], full [${r.tmuxFull.map((x) => num(x / 2 ** 20, 1)).join(', ')}]; tmux client ${mib(med(r.client))}`, ...splits],
  };
}
