#!/usr/bin/env node
// Benchmark: the Stop hook with nothing to deliver (what every idle Claude Code turn pays), against
// `node -e 0` (bare Node start-up) and `teamux --version` (the CLI's own start-up), in the same run.
// The hook is timed as Claude Code runs it (a Perl script when there is Perl, src/agents/claude/stop-perl.ts,
// else the one-file CommonJS entry dist/agents/claude/stop-fast.cjs)
// and through bin/teamux (an ES module that loads the same entry); a hook that loads the whole CLI
// (SessionEnd, like PermissionRequest) for comparison. Also PreToolUse of a tool no gate concerns (every
// tool call runs it) and the status line (every screen change, and right as a permitted tool starts), each
// as the Perl script Claude Code runs when there is Perl (src/agents/claude/hook-perl.ts) and as the node CLI
// (what ran before, and without Perl).
// TEAMUX_BENCH_BASE=/other/checkout/bin/teamux times that build's forms of the same hooks (its CommonJS
// entry, its Perl scripts as its dist/ writes them, its CLI) in the same interleaved runs, and prints
// each row's ratio to the base's.
// Goal: median Stop hook < 150 ms. Prints medians and ratios; run after `npx tsc`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { perlStopScript } from '../dist/agents/claude/stop-perl.js';
import { perlHookScript } from '../dist/agents/claude/hook-perl.js';
import { initTeam } from '../dist/store/init.js';

const RUNS = Number(process.env.RUNS ?? 25);
const bin = fileURLToPath(new URL('../bin/teamux', import.meta.url));
const root = mkdtempSync(path.join(tmpdir(), 'teamux-bench-hook-'));
const teamDir = path.join(root, '.teamux', 'bench');
const member = (name, kind) => ({ name, role: name, kind, runtime: kind === 'lead' ? 'command' : 'claude', planRequired: false, planApprover: null, tools: null });
await initTeam(teamDir, { name: 'bench', root, layoutFile: null, members: [member('lead', 'lead'), member('amy', 'teammate')], seedTasks: [] });
const stdin = JSON.stringify({ hook_event_name: 'Stop', session_id: 's', transcript_path: '/nonexistent', cwd: root, stop_hook_active: false, last_assistant_message: '' });

// The CPU time of the children this process waited for (user + system, clock ticks of 10 ms), from
// /proc/self/stat: what a hook takes from the tool Claude Code starts beside it, whatever the load.
const childTicks = () => {
  const f = readFileSync('/proc/self/stat', 'utf8').slice(readFileSync('/proc/self/stat', 'utf8').lastIndexOf(')') + 2).split(' ');
  return Number(f[13]) + Number(f[14]);
};
const cpuTicks = {};
function time(args, input, program = process.execPath, row = null) {
  const c0 = childTicks();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(program, args, { input, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (row) cpuTicks[row] = (cpuTicks[row] ?? 0) + childTicks() - c0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const entry = fileURLToPath(new URL('../dist/agents/claude/stop-fast.cjs', import.meta.url));
// The Perl form Claude Code runs when Perl is there (src/agents/claude/stop-perl.ts), as teamux writes it.
let perl = null;
try {
  perl = execFileSync('sh', ['-c', 'command -v perl'], { encoding: 'utf8' }).trim() || null;
} catch {
  console.error('no perl on PATH: the Perl Stop hook is not timed');
}
const perlScript = path.join(root, 'stop-hook');
const perlHooks = path.join(root, 'hooks');
if (perl) {
  writeFileSync(perlScript, perlStopScript(perl, process.execPath, entry, bin));
  writeFileSync(perlHooks, perlHookScript(perl, process.execPath, bin));
  chmodSync(perlScript, 0o700);
  chmodSync(perlHooks, 0o700);
}
// The base build, when asked for: its own entry and Perl scripts, from its own dist/.
const baseBin = process.env.TEAMUX_BENCH_BASE ? path.resolve(process.env.TEAMUX_BENCH_BASE) : null;
let base = null;
if (baseBin) {
  const dist = path.join(path.dirname(baseBin), '..', 'dist');
  const claudeDir = existsSync(path.join(dist, 'agents', 'claude')) ? path.join(dist, 'agents', 'claude') : path.join(dist, 'claude');
  base = { bin: baseBin, entry: path.join(claudeDir, 'stop-fast.cjs'), stop: path.join(root, 'base-stop-hook'), hooks: path.join(root, 'base-hooks') };
  if (perl) {
    const { perlStopScript: baseStop } = await import(path.join(claudeDir, 'stop-perl.js'));
    const { perlHookScript: baseHooks } = await import(path.join(claudeDir, 'hook-perl.js'));
    writeFileSync(base.stop, baseStop(perl, process.execPath, base.entry, baseBin), { mode: 0o700 });
    writeFileSync(base.hooks, baseHooks(perl, process.execPath, baseBin), { mode: 0o700 });
  }
}
const rows = {
  'node -e 0': [], 'perl -e 0': [], 'teamux hook Stop, Perl (nothing to deliver)': [], 'teamux --version': [], 'teamux hook Stop (nothing to deliver)': [], 'bin/teamux hook Stop (same, ESM launcher)': [], 'teamux hook SessionEnd (the full CLI)': [],
  'PreToolUse Read, Perl fast path': [], 'PreToolUse Read, CommonJS entry (no Perl)': [], 'PreToolUse Read, node CLI': [], 'StatusLine, Perl': [], 'StatusLine, node CLI': [],
};
const endInput = JSON.stringify({ hook_event_name: 'SessionEnd', session_id: 's', transcript_path: '/nonexistent', cwd: root, reason: 'other' });
// A transcript of 40 responses for the status line to sum (read on incrementally by the Perl form).
const transcript = path.join(root, 'transcript.jsonl');
writeFileSync(transcript, Array.from({ length: 40 }, (_, i) => JSON.stringify({ type: 'assistant', requestId: `r${i}`, message: { id: `m${i}`, model: 'claude-sonnet-5', content: [{ type: 'text', text: 'x'.repeat(2000) }], usage: { input_tokens: 100, output_tokens: 50, cache_read_input_tokens: 1000, cache_creation_input_tokens: 10 } } })).join('\n') + '\n');
const toolInput = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', transcript_path: transcript, cwd: root, tool_name: 'Read', tool_input: { file_path: transcript }, tool_use_id: 't1' });
const statusInput = JSON.stringify({ session_id: 's', transcript_path: transcript, cwd: root, model: { id: 'claude-sonnet-5' }, cost: { total_cost_usd: 0.42 } });
const hookArgs = (event, who) => ['hook', event, '--as', who, '--team-dir', teamDir];
// Interleaved, so machine load hits all three alike; with a base build, which of the two goes first alternates.
for (let i = 0; i < RUNS; i++) {
  if (base && i % 2 === 1) timeBase();
  rows['node -e 0'].push(time(['-e', '0'], undefined, process.execPath, 'node -e 0'));
  if (perl) {
    rows['perl -e 0'].push(time(['-e', '0'], undefined, perl, 'perl -e 0'));
    rows['teamux hook Stop, Perl (nothing to deliver)'].push(time([perlScript, 'hook', 'Stop', '--as', 'amy', '--team-dir', teamDir], stdin, perl));
  }
  rows['teamux --version'].push(time([bin, '--version']));
  rows['teamux hook Stop (nothing to deliver)'].push(time([entry, 'hook', 'Stop', '--as', 'amy', '--team-dir', teamDir], stdin));
  rows['bin/teamux hook Stop (same, ESM launcher)'].push(time([bin, 'hook', 'Stop', '--as', 'amy', '--team-dir', teamDir], stdin));
  rows['teamux hook SessionEnd (the full CLI)'].push(time([bin, 'hook', 'SessionEnd', '--as', 'amy', '--team-dir', teamDir], endInput));
  rows['PreToolUse Read, node CLI'].push(time([bin, ...hookArgs('PreToolUse', 'amy')], toolInput, process.execPath, 'PreToolUse Read, node CLI'));
  rows['PreToolUse Read, CommonJS entry (no Perl)'].push(time([entry, ...hookArgs('PreToolUse', 'amy')], toolInput, process.execPath, 'PreToolUse Read, CommonJS entry (no Perl)'));
  rows['StatusLine, node CLI'].push(time([bin, ...hookArgs('StatusLine', 'amy')], statusInput, process.execPath, 'StatusLine, node CLI'));
  if (perl) {
    rows['PreToolUse Read, Perl fast path'].push(time([perlHooks, ...hookArgs('PreToolUse', 'amy')], toolInput, perl, 'PreToolUse Read, Perl fast path'));
    rows['StatusLine, Perl'].push(time([perlHooks, ...hookArgs('StatusLine', 'amy')], statusInput, perl, 'StatusLine, Perl'));
  }
  if (base && i % 2 === 0) timeBase();
}
/** One run of each of the base build's hooks. */
function timeBase() {
  const b = (row, args, input, program = process.execPath) => (rows[`${row} [base]`] ??= []).push(time(args, input, program, `${row} [base]`));
  b('teamux --version', [base.bin, '--version']);
  b('teamux hook Stop (nothing to deliver)', [base.entry, ...hookArgs('Stop', 'amy')], stdin);
  b('PreToolUse Read, CommonJS entry (no Perl)', [base.entry, ...hookArgs('PreToolUse', 'amy')], toolInput);
  b('StatusLine, node CLI', [base.bin, ...hookArgs('StatusLine', 'amy')], statusInput);
  if (perl) {
    b('teamux hook Stop, Perl (nothing to deliver)', [base.stop, ...hookArgs('Stop', 'amy')], stdin, perl);
    b('PreToolUse Read, Perl fast path', [base.hooks, ...hookArgs('PreToolUse', 'amy')], toolInput, perl);
    b('StatusLine, Perl', [base.hooks, ...hookArgs('StatusLine', 'amy')], statusInput, perl);
  }
}
// The detached bookkeeping of each Stop (idle_notification to the lead) finishes before the folder goes.
const leadInbox = path.join(teamDir, 'inboxes', 'lead.jsonl');
const notified = () => (existsSync(leadInbox) ? readFileSync(leadInbox, 'utf8').split('idle_notification').length - 1 : 0);
const stops = ((perl ? 3 : 2) + (base ? (perl ? 2 : 1) : 0)) * RUNS;
for (const deadline = Date.now() + 120_000; notified() < stops && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
if (notified() < stops) console.error(`warning: only ${notified()} of ${stops} idle notifications arrived`);
rmSync(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
const ref = median(rows['node -e 0']);
console.log(`Stop hook benchmark, ${RUNS} runs each (median ms, ratio to node -e 0):`);
const cpu = (name) => (cpuTicks[name] === undefined ? '' : `   CPU ${((cpuTicks[name] * 10) / rows[name].length).toFixed(0).padStart(4)} ms a run`);
for (const [name, xs] of Object.entries(rows)) if (xs.length) console.log(`  ${name.padEnd(52)} ${median(xs).toFixed(1).padStart(7)} ms  ${(median(xs) / ref).toFixed(2)}x${cpu(name)}`);
if (base) {
  console.log(`This build vs TEAMUX_BENCH_BASE (${base.bin}), same runs (median, ratio this/base):`);
  for (const name of Object.keys(rows)) {
    const other = rows[`${name} [base]`];
    if (!name.endsWith('[base]') && other?.length && rows[name].length) console.log(`  ${name.padEnd(52)} ${median(rows[name]).toFixed(1).padStart(7)} ms vs ${median(other).toFixed(1).padStart(7)} ms  ${(median(rows[name]) / median(other)).toFixed(2)}x`);
  }
}
const stop = median(rows[perl ? 'teamux hook Stop, Perl (nothing to deliver)' : 'teamux hook Stop (nothing to deliver)']);
if (perl) {
  const pre = median(rows['PreToolUse Read, Perl fast path']);
  const st = median(rows['StatusLine, Perl']);
  console.log(`  PreToolUse fast path ${(median(rows['PreToolUse Read, node CLI']) / pre).toFixed(1)}x faster than the node CLI; status line ${(median(rows['StatusLine, node CLI']) / st).toFixed(1)}x faster (${st.toFixed(1)} ms vs ${median(rows['StatusLine, node CLI']).toFixed(1)} ms)`);
}
console.log(`  goal: Stop hook median < 150 ms: ${stop < 150 ? 'met' : 'NOT met'} (${stop.toFixed(1)} ms, ${(stop / ref).toFixed(2)}x bare node, which took ${ref.toFixed(1)} ms here)`);
