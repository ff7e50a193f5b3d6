#!/usr/bin/env node
/**
 * The team store on NATS JetStream next to the team folder, in the same run on the same machine:
 * claims/s with CLAIMERS real processes racing through the store API, and appends/s of one sender
 * through TeamStore.send (inbox message plus its event), then the invariants (every task claimed
 * once, every message read back once, in order). Prints both figures and JetStream/folder ratios.
 * It starts its own nats-server (-js, file storage in a temp folder, 127.0.0.1, a free port) and
 * stops it. Run: `npx tsc -p tsconfig.json && node bench/nats-store.mjs`.
 * The same file is the worker: `node bench/nats-store.mjs --worker claim KIND ...`.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { childReady, childResult, killWorkers, raceWorkers, startWorker } from './lib/children.mjs';
import { machineLine, num, printTable, rate, ratio } from './lib/report.mjs';
import { clock, perSecond } from './lib/timing.mjs';
import { withTempDir } from './lib/tmp.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

const CONFIG = { claimTasks: 400, claimers: 4, appends: 2000, appendWarmup: 100 };
const names = Array.from({ length: CONFIG.claimers }, (_, i) => `w${i}`);

const dist = (p) => pathToFileURL(path.join(REPO, 'dist', p)).href;
const { TeamStore } = await import(dist('store/team.js'));
const { initTeam } = await import(dist('store/init.js'));
const { openRemoteTeam, initRemoteTeam } = await import(dist('store/select.js'));

const members = ['lead', ...names].map((n, i) => ({ name: n, role: 'r', kind: i === 0 ? 'lead' : 'teammate', runtime: 'command', speaksProtocol: true, planRequired: false, planApprover: null, tools: null }));

/** Open the team of `kind` (folder: dir; nats: url + team) as another process would. */
async function open(kind, url, team, dir, who) {
  const r = kind === 'folder' ? await TeamStore.open(dir, who) : await openRemoteTeam(url, team, dir, process.env, who);
  if (!r.ok) throw new Error(r.error.message);
  return r.store;
}

if (process.argv[2] === '--worker') {
  const [kind, url, team, dir, name] = process.argv.slice(4);
  const store = await open(kind, url, team, dir, name);
  await childReady();
  let won = 0;
  for (;;) {
    const r = await store.tasks.claim(name);
    if (!r.ok) {
      if (r.reason === 'no_ready_task') break;
      throw new Error(r.message);
    }
    won++;
  }
  childResult({ won });
  await store.backend.close();
  process.exit(0);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startNats(dir) {
  const port = await freePort();
  const child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', path.join(dir, 'js')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  await new Promise((resolve, reject) => {
    const on = (d) => {
      log += d.toString();
      if (log.includes('Server is ready')) resolve();
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.once('exit', (code) => reject(new Error(`nats-server exited ${code}: ${log}`)));
  });
  return { url: `nats://127.0.0.1:${port}`, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) };
}

/** Make the team on one backend; returns a store for the parent. */
async function makeTeam(kind, url, dir, team) {
  const spec = { name: team, root: dir, layoutFile: null, members, seedTasks: [] };
  if (kind === 'folder') return (await initTeam(path.join(dir, '.teamux', team), spec)).store;
  const r = await initRemoteTeam(url, path.join(dir, '.teamux', team), spec, process.env);
  if (!r.ok) throw new Error(r.error.message);
  return r.store;
}

async function measure(kind, url, dir) {
  const team = `b${kind}`;
  const store = await makeTeam(kind, url, path.join(dir, kind), team);
  for (let i = 0; i < CONFIG.claimTasks; i++) await store.tasks.create({ subject: `job ${i}` });
  const workers = names.map((n) => startWorker(process.execPath, [SELF, '--worker', 'claim', kind, url ?? '-', team, store.dir, n]));
  const race = await raceWorkers(workers, 600_000);
  const won = race.values.reduce((s, r) => s + r.won, 0);
  const board = await store.tasks.snapshot();
  const claimedOnce = won === CONFIG.claimTasks && board.tasks.every((t) => t.owner !== null);
  const claims = perSecond(won, race.wallMs);

  for (let i = 0; i < CONFIG.appendWarmup; i++) await store.send({ from: 'w0', to: 'w1', type: 'message', text: `warm ${i}` });
  await store.mail.read('w1');
  const t0 = clock();
  for (let i = 0; i < CONFIG.appends; i++) await store.send({ from: 'w0', to: 'lead', type: 'message', text: `m ${i}`, payload: { seq: i } });
  const appends = perSecond(CONFIG.appends, clock() - t0);
  const { messages } = await store.mail.read('lead');
  const inOrder = messages.length === CONFIG.appends && messages.every((m, i) => m.payload.seq === i);
  await store.backend.close();
  return { claims, appends, claimedOnce, inOrder };
}

await withTempDir('teamux-nats-bench-', async (dir) => {
  process.stdout.write(`${machineLine()}\nteam store: JetStream (nats-server ${NATS_SERVER}) next to the team folder, same run\n`);
  const nats = await startNats(dir);
  try {
    const folder = await measure('folder', null, dir);
    const js = await measure('nats', nats.url, dir);
    printTable(`claims: ${CONFIG.claimers} processes racing for ${CONFIG.claimTasks} tasks; appends: one sender, ${CONFIG.appends} messages`, ['metric', 'folder', 'JetStream', 'JetStream/folder'], [
      ['claims/s', rate(folder.claims), rate(js.claims), ratio(js.claims, folder.claims)],
      ['appends/s', rate(folder.appends), rate(js.appends), ratio(js.appends, folder.appends)],
    ]);
    const ok = folder.claimedOnce && js.claimedOnce && folder.inOrder && js.inOrder;
    process.stdout.write(`\ninvariants: every task claimed once (folder ${folder.claimedOnce}, JetStream ${js.claimedOnce}); every message read back in order (folder ${folder.inOrder}, JetStream ${js.inOrder})\n`);
    process.stdout.write(`per claim: folder ${num(1000 / folder.claims)} ms, JetStream ${num(1000 / js.claims)} ms; per append: folder ${num(1000 / folder.appends)} ms, JetStream ${num(1000 / js.appends)} ms\n`);
    process.exitCode = ok ? 0 : 1;
  } finally {
    killWorkers();
    await nats.stop();
  }
});
