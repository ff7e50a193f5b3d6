// Faults on the JetStream store, with real child processes and a real nats-server using file storage:
// clients killed with SIGKILL in the middle of sending and claiming lose nothing they were told was
// stored; a server stopped and started again in the middle of a run comes back with everything
// acknowledged, the clients reconnect on their own and finish, and nothing is stored twice.
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeNatsTeam, NatsServer, openNatsTeam } from '../../helpers/nats.js';
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

/** "ack SEQ ID" lines of a sender. */
function acked(lines: string[]): Array<{ seq: number; id: string }> {
  return lines.filter((l) => l.startsWith('ack ')).map((l) => {
    const [, seq, id] = l.split(' ');
    return { seq: Number(seq), id: id! };
  });
}

describe('faults on JetStream', () => {
  it('nats.faults.kill-9-mid-write-loses-nothing-acknowledged', async () => {
    const t = await makeNatsTeam(server.url, ['s0', 's1', 's2', 's3', 'c0', 'c1']);
    cleanups.push(t.cleanup);
    for (let i = 0; i < 400; i++) await t.store.tasks.create({ subject: `job ${i}` });
    const senders = ['s0', 's1', 's2', 's3'].map((s) => worker('nats-sender.mjs', [server.url, t.team, t.dir, s, 'lead', '100000']));
    const claimers = ['c0', 'c1'].map((c) => worker('nats-claimer.mjs', [server.url, t.team, t.dir, c]));
    await waitFor(() => senders.every((w) => acked(w.lines()).length >= 50) && claimers.every((w) => w.lines().some((l) => l.startsWith('won '))), 'every client to be writing', 120_000);
    for (const w of [...senders, ...claimers]) w.child.kill('SIGKILL');
    await Promise.all([...senders, ...claimers].map((w) => w.exit));

    const { messages } = await t.store.mail.unread('lead');
    const stored = new Set(messages.map((m) => m.id));
    let ackedCount = 0;
    for (const [i, w] of senders.entries()) {
      const acks = acked(w.lines());
      ackedCount += acks.length;
      for (const a of acks) expect(stored.has(a.id), `s${i} message ${a.seq}`).toBe(true);
      // What a sender stored is its own messages in order, with no gap and no repeat.
      const seqs = messages.filter((m) => m.from === `s${i}`).map((m) => (m.payload as { seq: number }).seq);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, k) => k));
    }
    const board = await t.store.tasks.snapshot();
    let claimedCount = 0;
    for (const [i, w] of claimers.entries()) {
      const won = w.lines().filter((l) => l.startsWith('won ')).map((l) => l.slice(4));
      claimedCount += won.length;
      for (const id of won) expect(board.index.get(id)!.owner, `task ${id}`).toBe(`c${i}`);
    }
    process.stdout.write(`kill -9 mid-write: ${ackedCount} acknowledged sends and ${claimedCount} acknowledged claims, 0 lost\n`);
  }, 300_000);

  it('nats.faults.server-restart-mid-run-clients-reconnect-and-nothing-acknowledged-is-lost-or-doubled', async () => {
    const t = await makeNatsTeam(server.url, ['s0', 's1', 's2']);
    cleanups.push(t.cleanup);
    const COUNT = 600;
    const senders = ['s0', 's1', 's2'].map((s) => worker('nats-sender.mjs', [server.url, t.team, t.dir, s, 'lead', String(COUNT)]));
    await waitFor(() => senders.every((w) => acked(w.lines()).length >= 50), 'the senders to be under way', 120_000);
    // Status: a watcher in this process sees the connection go and come back.
    const watcher = await openNatsTeam(server.url, t.team, path.join(t.dir, '..', 'watcher'), 'watcher');
    cleanups.push(() => watcher.backend.close());
    await server.stop();
    const before = senders.map((w) => acked(w.lines()).length);
    await waitFor(() => watcher.backend.connection()?.state === 'reconnecting', 'the status to show the lost connection', 30_000);
    expect(watcher.backend.connection()?.detail).toMatch(/lost nats:\/\/127\.0\.0\.1:\d+, reconnecting/);
    await server.start();
    expect(await Promise.all(senders.map((w) => w.exit))).toEqual([0, 0, 0]);
    await waitFor(() => watcher.backend.connection()?.state === 'connected', 'the status to show the connection back', 30_000);
    for (const [i, w] of senders.entries()) expect(acked(w.lines()).length, `s${i} went on after the restart`).toBeGreaterThan(before[i]!);

    const { messages } = await t.store.mail.unread('lead');
    expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
    for (const [i, w] of senders.entries()) {
      const acks = acked(w.lines());
      expect(acks).toHaveLength(COUNT);
      const mine = messages.filter((m) => m.from === `s${i}`);
      expect(mine.map((m) => (m.payload as { seq: number }).seq)).toEqual(Array.from({ length: COUNT }, (_, k) => k));
      expect(new Set(mine.map((m) => m.id))).toEqual(new Set(acks.map((a) => a.id)));
    }
    // The board works on the restarted server: nothing in the middle of a change was left half done.
    expect((await watcher.tasks.create({ subject: 'after the restart' })).ok).toBe(true);
    process.stdout.write(`server restart mid-run: ${messages.length} messages, 0 lost, 0 doubled\n`);
  }, 300_000);
});
