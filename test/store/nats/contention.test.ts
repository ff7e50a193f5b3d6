// Contention on the JetStream store with real child processes: 16 processes race to claim one board
// (no task is claimed twice, none is left), and 8 writers send 1,000 messages each to one inbox (none
// is lost, none is stored twice, each sender's order is kept).
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeNatsTeam, NatsServer } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/team.js';
import { killWorkers, worker } from './procs.js';

let server: NatsServer & { cleanup: () => Promise<void> };
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => {
  server = await NatsServer.start();
}, 60_000);
afterEach(async () => {
  killWorkers();
  for (const c of cleanups.splice(0)) await c();
});
afterAll(async () => {
  await server.cleanup();
});

describe('contention on JetStream', () => {
  it('nats.contention.16-processes-racing-to-claim-never-claim-a-task-twice', async () => {
    const names = Array.from({ length: 16 }, (_, i) => `c${i}`);
    const t = await makeNatsTeam(server.url, names);
    cleanups.push(t.cleanup);
    const TASKS = 160;
    for (let i = 0; i < TASKS; i++) expect((await t.store.tasks.create({ subject: `job ${i}` })).ok).toBe(true);
    const go = path.join(t.dir, 'go');
    const racers = names.map((n) => worker('nats-claimer.mjs', [server.url, t.team, t.dir, n, go]));
    await waitFor(() => racers.every((r) => r.out().startsWith('ready')), 'every claimer to connect', 60_000);
    writeFileSync(go, '');
    const codes = await Promise.all(racers.map((r) => r.exit));
    expect(codes).toEqual(names.map(() => 0));
    const results = racers.map((r) => JSON.parse(r.lines().at(-1)!) as { name: string; won: string[] });
    const all = results.flatMap((r) => r.won);
    expect(all.length - new Set(all).size).toBe(0);
    expect(all.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: TASKS }, (_, i) => i + 1));
    const board = await t.store.tasks.snapshot();
    for (const r of results) for (const id of r.won) expect(board.index.get(id)!.owner).toBe(r.name);
    const winners = results.filter((r) => r.won.length > 0).length;
    process.stdout.write(`16 claimers on JetStream: ${TASKS} tasks, 0 double claims, ${winners} processes won at least one\n`);
  }, 240_000);

  it('nats.contention.8-writers-x-1000-messages-none-lost-and-each-sender-in-order', async () => {
    const senders = Array.from({ length: 8 }, (_, i) => `s${i}`);
    const t = await makeNatsTeam(server.url, senders);
    cleanups.push(t.cleanup);
    const COUNT = 1000;
    const started = Date.now();
    const writers = senders.map((s) => worker('nats-sender.mjs', [server.url, t.team, t.dir, s, 'lead', String(COUNT)]));
    expect(await Promise.all(writers.map((w) => w.exit))).toEqual(senders.map(() => 0));
    const seconds = (Date.now() - started) / 1000;
    const { messages, problems } = await t.store.mail.unread('lead');
    expect(problems).toEqual([]);
    expect(messages).toHaveLength(senders.length * COUNT);
    expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
    for (const s of senders) {
      const seqs = messages.filter((m) => m.from === s).map((m) => (m.payload as { seq: number }).seq);
      expect(seqs).toEqual(Array.from({ length: COUNT }, (_, i) => i));
    }
    process.stdout.write(`8 writers x ${COUNT} on JetStream: ${messages.length} delivered, 0 lost, order kept (${seconds.toFixed(1)} s)\n`);
  }, 400_000);
});
