#!/usr/bin/env node
/**
 * Benchmark of `teamux mcp` (dist/, built by `npx tsc -p tsconfig.json`): the round trip of a tool
 * call through the real MCP SDK client, a stdio pipe and a real `teamux mcp` child (client → server →
 * store → reply), against the same op called in-process through the same call path (ops/invoke.js)
 * on the same team folder; and the server's start-up to an answered tools/list against `node -e 0`.
 * Every figure is printed with its reference from the same run and the ratio between them.
 * Run: `npx tsc -p tsconfig.json && node bench/mcp.mjs`.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { machineLine, ms, printTable, ratio } from './lib/report.mjs';
import { clock, summarize } from './lib/timing.mjs';
import { withTempDir } from './lib/tmp.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(REPO, 'bin', 'teamux');
const dist = (p) => pathToFileURL(path.join(REPO, 'dist', p)).href;

/** How much is measured. */
const CONFIG = { calls: 400, warmup: 40, starts: 15 };

/** The ops measured: a read and a write. */
const OPS = [
  { name: 'task_get', input: { id: '1' } },
  { name: 'send_message', input: { to: 'lead', text: 'progress report' } },
];

function env() {
  const out = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('TEAMUX_')) out[k] = v;
  return out;
}

async function connect(dir) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--as', 'alice', '--team-dir', dir], env: env(), stderr: 'pipe' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/**
 * Time `n` runs of each of `a` and `b`, alternating so that load on the machine falls on both alike,
 * after `warmup` untimed runs of each.
 */
async function sampleBoth(a, b, n, warmup) {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const ta = [];
  const tb = [];
  for (let i = 0; i < n; i++) {
    let t0 = clock();
    await a();
    ta.push(clock() - t0);
    t0 = clock();
    await b();
    tb.push(clock() - t0);
  }
  return [summarize(ta), summarize(tb)];
}

/** Spawn a process and resolve when it exits, with how long that took. */
function runToExit(argv) {
  return new Promise((resolve, reject) => {
    const t0 = clock();
    const child = spawn(process.execPath, argv, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(clock() - t0) : reject(new Error(`${argv.join(' ')} exited ${code}`))));
  });
}

async function main() {
  console.log('teamux mcp benchmark');
  console.log(machineLine());
  await withTempDir('teamux-bench-mcp-', async (tmp) => {
    const { initTeam } = await import(dist('store/init.js'));
    const { opByName } = await import(dist('ops/index.js'));
    const { invoke } = await import(dist('ops/invoke.js'));
    const dir = path.join(tmp, '.teamux', 'bench');
    const member = (name, kind) => ({ name, role: 'r', kind, runtime: 'command', planRequired: false, planApprover: null, tools: null });
    const { store } = await initTeam(dir, { name: 'bench', root: tmp, layoutFile: null, members: [member('lead', 'lead'), member('alice', 'teammate')], seedTasks: [] });
    await store.tasks.create({ subject: 'the task every call reads', description: 'x'.repeat(200) });

    const rows = [];
    const client = await connect(dir);
    try {
      for (const op of OPS) {
        const viaMcp = async () => {
          const r = await client.callTool({ name: op.name, arguments: op.input });
          if (r.isError) throw new Error(`${op.name} failed: ${JSON.stringify(r.content)}`);
        };
        // The reference: the same op through the same call path, in this process, with team.json
        // read per call as the server does.
        const inProcess = async () => {
          const team = await store.config();
          const r = await invoke(opByName(op.name), op.input, { store, team, me: team.members.find((m) => m.name === 'alice') });
          if (r.isError) throw new Error(`${op.name} failed: ${r.text}`);
        };
        const [m, p] = await sampleBoth(viaMcp, inProcess, CONFIG.calls, CONFIG.warmup);
        rows.push([op.name, ms(m.p50), ms(m.p90), ms(p.p50), ms(p.p90), ratio(m.p50, p.p50)]);
      }
    } finally {
      await client.close();
    }
    printTable(`tool call round trip (${CONFIG.calls} calls each, alternating, after ${CONFIG.warmup} warm-up)`, ['op', 'MCP p50', 'MCP p90', 'in-process p50', 'in-process p90', 'MCP / in-process'], rows);

    const starts = [];
    for (let i = 0; i < CONFIG.starts; i++) {
      const t0 = clock();
      const c = await connect(dir);
      await c.listTools();
      starts.push(clock() - t0);
      await c.close();
    }
    const nodeOnly = [];
    for (let i = 0; i < CONFIG.starts; i++) nodeOnly.push(await runToExit(['-e', '0']));
    const s = summarize(starts);
    const n = summarize(nodeOnly);
    printTable(`start-up (${CONFIG.starts} runs each)`, ['what', 'p50', 'p90', 'ratio to node -e 0'], [
      ['teamux mcp: spawn to tools/list answered', ms(s.p50), ms(s.p90), ratio(s.p50, n.p50)],
      ['node -e 0: spawn to exit', ms(n.p50), ms(n.p90), '1.00x'],
    ]);
  });
}

main().catch((err) => {
  console.error(`bench/mcp: ${err.stack ?? err}`);
  process.exitCode = 1;
});
