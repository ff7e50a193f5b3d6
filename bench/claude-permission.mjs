#!/usr/bin/env node
// Benchmark: key press (C-a a on a Claude Code permission request) to the permitted Bash command
// starting, with the real binary (the pinned version, node scripts/agent-clis.mjs) under a real teamux
// screen in a private tmux server, against the offline scripted Messages API. Two Claude Code members
// of one team, measured in turn in the same run:
//   before: the status line and PreToolUse run the node CLI (teamux before the Perl forms, and any
//           machine without Perl);
//   after:  both run the Perl script teamux writes (src/agents/claude/hook-perl.ts).
// The reference, also in the same run: a key press (Enter) to a shell command starting in the lead pane.
// Each member's first Bash is a warm-up (Claude Code makes its shell snapshot then) and is not counted.
// Also printed: message sent → permission request open (PreToolUse and the PermissionRequest hook) and
// where the key press time went (the screen's answer, the hook handing it over, from teamux.log).
// Goal: median key press → tool < 300 ms. Prints medians and ratios; run after `npx tsc`. RUNS=8.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeCodeBinary } from '../scripts/agent-clis.mjs';
import { claudeSettings } from '../dist/agents/claude/launch.js';
import { startScriptedServer } from '../dist/demo/server.js';
import { readClaudeActivity, claudeStopScript } from '../dist/store/claude.js';
import { TeamStore } from '../dist/store/team.js';

const RUNS = Number(process.env.RUNS ?? 8);
const claude = claudeCodeBinary();
if (!claude) {
  console.error('Claude Code is not installed: run `node scripts/agent-clis.mjs` first');
  process.exit(1);
}
const bin = fileURLToPath(new URL('../bin/teamux', import.meta.url));
const root = mkdtempSync(path.join(tmpdir(), 'teamux-bench-perm-'));
const socket = `teamux-bench-${process.pid}`;
const tmux = (...args) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', env: { ...process.env, TMUX: '' } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(what, fn, timeoutMs = 90_000, everyMs = 5) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(everyMs)) {
    const v = await fn();
    if (v) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const MEMBERS = { before: 'bob', after: 'cal' };
const target = (member, k) => path.join(root, `${member}-${k}.txt`);
const steps = (member) => Array.from({ length: RUNS + 1 }, (_, k) => [
  { when: { last_user_contains: `run number ${k}` }, reply: [{ tool_use: { name: 'Bash', input: { command: `touch ${target(member, k)}`, description: `Create ${member}-${k}.txt` } } }] },
  { reply: [{ text: `ran ${k}` }] },
]).flat();
const server = await startScriptedServer({ scripts: Object.fromEntries(Object.values(MEMBERS).map((m) => [m, { idle_reply: '(waits)', steps: steps(m) }])) });

const layout = `name: bench
sidebar: { width: 48 }
permission_timeout: 120
lead: { name: lead, role: Leads, command: [bash, --noprofile, --norc] }
teammates:
  - { name: bob, role: Before, agent: { cli: claude } }
  - { name: cal, role: After, agent: { cli: claude } }
`;
writeFileSync(path.join(root, 'team.yaml'), layout);
const pathDir = path.join(root, 'bin');
mkdirSync(pathDir);
symlinkSync(claude, path.join(pathDir, 'claude'));
const home = path.join(root, 'home');
mkdirSync(home);
const env = `env -u ANTHROPIC_API_KEY -u TMUX -u TMUX_PANE PATH=${pathDir}:${process.env.PATH} HOME=${home} TEAMUX_DEMO_URL=${server.url}`;
tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'main', '-x', '220', '-y', '50', `cd ${root} && ${env} ${process.execPath} ${bin} start team.yaml; sleep 600`);

const teamDir = path.join(root, '.teamux', 'bench');
let store;
const tracers = [];
const results = { before: [], after: [], ref: [], openBefore: [], openAfter: [], answeredBefore: [], answeredAfter: [], handedBefore: [], handedAfter: [] };
try {
  store = await waitFor('the team folder', async () => (existsSync(path.join(teamDir, 'team.json')) ? (await TeamStore.open(teamDir)).store : null), 60_000, 100);
  const idle = (m) => waitFor(`${m} idle`, async () => (await readClaudeActivity(store.paths, m))?.state === 'idle', 120_000, 20);
  await Promise.all([idle('bob'), idle('cal')]);

  // "before": bob's status line and PreToolUse back to the node CLI, and bob started again with them.
  const cfg = await store.config();
  const ctx = { member: 'bob', teamDir, teamuxBin: bin, node: process.execPath, permissionTimeout: 120, perlStop: { perl: execFileSync('sh', ['-c', 'command -v perl'], { encoding: 'utf8' }).trim(), script: claudeStopScript(store.paths) } };
  writeFileSync(path.join(store.paths.claudeMember('bob'), 'settings.json'), JSON.stringify(claudeSettings(ctx), null, 2));
  const oldPid = cfg.members.find((m) => m.name === 'bob').pid;
  process.kill(oldPid, 'SIGTERM');
  await waitFor('bob exited', () => /bob · Before (exited|killed)/.test(tmux('capture-pane', '-p', '-t', 'main')), 60_000, 50);
  tmux('send-keys', '-t', 'main', 'C-a', '2');
  tmux('send-keys', '-t', 'main', 'C-a', 'R');
  await waitFor('bob restarted', async () => {
    const pid = (await store.config()).members.find((m) => m.name === 'bob').pid;
    return pid !== null && pid !== oldPid;
  }, 60_000, 50);
  await idle('bob');
  tmux('send-keys', '-t', 'main', 'C-a', '1');
  const statusCommand = (m) => JSON.parse(readFileSync(path.join(store.paths.claudeMember(m), 'settings.json'), 'utf8')).statusLine.command;
  console.error(`before (bob): ${statusCommand('bob').split(' ')[0]}; after (cal): ${statusCommand('cal').split(' ')[0]}`);

  // STRACE=DIR: each member's process tree traced (execve, exits) into DIR/<member>.trace, with the
  // key press times in DIR/keys.txt, to see where the time after the answer goes.
  if (process.env.STRACE) {
    const { spawn } = await import('node:child_process');
    for (const m of Object.values(MEMBERS)) {
      const pid = (await store.config()).members.find((x) => x.name === m).pid;
      const tracer = spawn('strace', ['-f', '-tt', '-e', 'trace=execve,exit_group,wait4', '-o', path.join(process.env.STRACE, `${m}.trace`), '-p', String(pid)], { stdio: 'ignore' });
      tracers.push(tracer);
    }
    await sleep(1000);
  }
  const logAt = (needle, from) => {
    const line = readFileSync(store.paths.log, 'utf8').split('\n').filter((l) => l.includes(needle)).pop();
    return line ? Date.parse(line.slice(0, 24)) - from : NaN;
  };
  for (let k = 0; k <= RUNS; k++) {
    // The reference: a shell command typed into the lead pane (focused), from Enter to its start.
    const ref = path.join(root, `ref-${k}.txt`);
    tmux('send-keys', '-t', 'main', '-l', `touch ${ref}`);
    await sleep(200);
    const enter = Date.now();
    tmux('send-keys', '-t', 'main', 'Enter');
    await waitFor('the reference file', () => existsSync(ref), 30_000);
    if (k > 0) results.ref.push(statSync(ref).mtimeMs - enter);
    // Alternating which goes first, so neither always follows the other's tool.
    for (const [which, m] of k % 2 ? Object.entries(MEMBERS) : Object.entries(MEMBERS).reverse()) {
      await idle(m);
      const sent = Date.now();
      await store.send({ from: 'lead', to: m, type: 'message', text: `run number ${k}` });
      const q = await waitFor(`${m}'s permission request ${k}`, async () => (await store.requests.list()).requests.find((r) => r.type === 'permission' && r.status === 'pending' && r.from === m), 120_000, 5);
      const opened = Date.parse(q.createdAt) - sent;
      await waitFor('the request in the sidebar', () => tmux('capture-pane', '-p', '-t', 'main').includes(`permission ${m}→human`), 30_000, 20);
      await sleep(300);
      const pressed = Date.now();
      tmux('send-keys', '-t', 'main', 'C-a', 'a');
      if (process.env.STRACE) appendFileSync(path.join(process.env.STRACE, 'keys.txt'), `${m} ${k} ${new Date(pressed).toISOString()}\n`);
      await waitFor(`${m}-${k}.txt`, () => existsSync(target(m, k)), 60_000, 2);
      if (k === 0) continue;
      results[which].push(statSync(target(m, k)).mtimeMs - pressed);
      const When = which === 'before' ? 'Before' : 'After';
      results[`open${When}`].push(opened);
      results[`answered${When}`].push(logAt(`allowed ${m}'s Bash`, pressed));
      results[`handed${When}`].push(logAt(`permission ${q.id} for ${m}: approved, handed to Claude Code`, pressed));
    }
  }
} finally {
  for (const t of tracers) t.kill();
  try {
    tmux('kill-server');
  } catch {}
  await server.close();
  const pids = store ? (await store.config()).members.map((m) => m.pid).filter(Boolean) : [];
  await waitFor('the members to exit', () => pids.every((p) => { try { process.kill(p, 0); return false; } catch { return true; } }), 30_000, 100).catch(() => undefined);
  await sleep(1000);
  rmSync(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
}
const ref = median(results.ref);
const row = (name, xs) => console.log(`  ${name.padEnd(62)} ${median(xs).toFixed(0).padStart(6)} ms  ${(median(xs) / ref).toFixed(2)}x   [${xs.map((x) => x.toFixed(0)).join(' ')}]`);
console.log(`Key press → permitted tool, Claude Code ${'2.1.328'}, ${RUNS} runs each (median ms, ratio to the reference; load ${(await import('node:os')).loadavg()[0].toFixed(1)}):`);
row('reference: Enter → shell command in the lead pane', results.ref);
row('before: status line and PreToolUse in node, C-a a → Bash starts', results.before);
row('  C-a a → the screen answered (teamux.log)', results.answeredBefore);
row('  C-a a → the hook handed the answer over (teamux.log)', results.handedBefore);
row('after: status line and PreToolUse in Perl, C-a a → Bash starts', results.after);
row('  C-a a → the screen answered (teamux.log)', results.answeredAfter);
row('  C-a a → the hook handed the answer over (teamux.log)', results.handedAfter);
row('before: message sent → permission request open', results.openBefore);
row('after: message sent → permission request open', results.openAfter);
const after = median(results.after);
console.log(`  after/before ${(after / median(results.before)).toFixed(2)}x; goal: median < 300 ms: ${after < 300 ? 'met' : 'NOT met'} (${after.toFixed(0)} ms)`);
