// events.jsonl and teamux.log are sealed into segments and never grow without bound. Real child
// processes write through the store while a tail follows: every event is read once and in each
// writer's order, across rotations, and a tail that is current reads only what is new.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLog, EventTail } from '../../src/store/events.js';
import { sealedSeqs } from '../../src/store/segments.js';
import type { TeamEvent } from '../../src/protocol/types.js';
import { makeTeam, REPO, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

const WRITER = path.join(REPO, 'test', 'workers', 'event-writer.mjs');

/** Run the event writer as a child process with these segment settings. */
function writer(dir: string, name: string, count: number, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [WRITER, dir, name, String(count)], { env: { ...process.env, ...env } }, (err, out, stderr) => {
      if (err || !out.includes('done')) reject(new Error(`writer ${name}: ${err?.message ?? ''} ${stderr}`));
      else resolve();
    });
  });
}

/** Check that each writer's events arrived once, in order, all of them. */
function expectComplete(events: TeamEvent[], writers: string[], count: number): void {
  for (const w of writers) {
    const seqs = events.filter((e) => e.writer === w).map((e) => e.seq);
    expect(seqs, `events of ${w}`).toEqual(Array.from({ length: count }, (_, i) => i));
  }
}

describe('event log segments', () => {
  it('rotation.a-tail-reads-every-event-once-across-rotations-while-child-processes-write', async () => {
    const t = await makeTeam(['amy']);
    cleanup.push(t.cleanup);
    const file = t.store.paths.events;
    // Start following before the writers: the reader is in the middle of every rotation.
    const tail = new EventTail(file);
    const seen: TeamEvent[] = [];
    seen.push(...(await tail.readNew()).events.filter((e) => e.writer));
    const env = { TEAMUX_EVENTS_SEGMENT_BYTES: '8192', TEAMUX_EVENTS_KEEP: '1000' };
    const writers = ['w0', 'w1', 'w2', 'w3'];
    let running = true;
    const done = Promise.all(writers.map((w) => writer(t.dir, w, 400, env))).finally(() => (running = false));
    const problems: unknown[] = [];
    while (running) {
      const r = await tail.readNew();
      seen.push(...r.events.filter((e) => e.writer));
      problems.push(...r.problems);
      await new Promise((res) => setTimeout(res, 2));
    }
    await done;
    const last = await tail.readNew();
    seen.push(...last.events.filter((e) => e.writer));
    expect([...problems, ...last.problems]).toEqual([]);
    expectComplete(seen, writers, 400);
    const sealed = sealedSeqs({ file, dir: t.store.paths.segments });
    // ~1600 lines of ~170 bytes in 8 KiB segments: many rotations happened under the reader.
    expect(sealed.length).toBeGreaterThan(20);
    // (The last append may have sealed the file away: until the next one there is no active log.)
    expect(existsSync(file) ? statSync(file).size : 0).toBeLessThan(8192 + 4096);
    // The whole log, read back across its segments, holds every event once.
    expectComplete((await t.store.events.read()).events.filter((e) => e.writer), writers, 400);
    // And the last 10 events are the last 10 lines, whichever segments they sit in.
    const all = (await t.store.events.read()).events;
    expect((await t.store.events.read(10)).events).toEqual(all.slice(-10));
  }, 120_000);

  it('rotation.old-segments-are-deleted-and-a-current-tail-reads-only-what-is-new', async () => {
    const t = await makeTeam(['amy']);
    cleanup.push(t.cleanup);
    const file = t.store.paths.events;
    const env = { TEAMUX_EVENTS_SEGMENT_BYTES: '16384', TEAMUX_EVENTS_KEEP: '4' };
    await writer(t.dir, 'w0', 2000, env);
    // About 340 KB were written; only the active file and 4 segments of 16 KiB remain.
    const names = readdirSync(t.store.paths.segments).filter((n) => n.startsWith('events.'));
    expect(names).toHaveLength(4);
    const kept = names.reduce((n, f) => n + statSync(path.join(t.store.paths.segments, f)).size, statSync(file).size);
    expect(kept).toBeLessThan(5 * (16384 + 4096));
    const tail = new EventTail(file);
    await tail.readNew();
    const before = tail.bytesRead;
    const log = new EventLog(file, 16384);
    await log.record('message_sent', { from: 'amy', to: 'lead', writer: 'late', seq: 0 });
    const r = await tail.readNew();
    expect(r.events.map((e) => e.writer)).toEqual(['late']);
    expect(tail.bytesRead - before).toBeLessThan(512);
    // A tail that fell behind the kept segments says so, and carries on from the oldest kept one.
    const slow = new EventTail(file);
    await slow.readNew();
    await writer(t.dir, 'w1', 1000, env);
    const caught = await slow.readNew();
    expect(caught.problems.map((p) => p.message)).toEqual([expect.stringMatching(/events segments \d+–\d+ were deleted before they were read/)]);
    const seqs = caught.events.filter((e) => e.writer === 'w1').map((e) => e.seq as number);
    expect(seqs.at(-1)).toBe(999);
    expect(seqs).toEqual(seqs.slice().sort((a, b) => a - b));
  }, 120_000);

  it('rotation.teamux-log-keeps-its-last-segments-only', async () => {
    const { Log, LOG_KEEP } = await import('../../src/store/log.js');
    const t = await makeTeam(['amy']);
    cleanup.push(t.cleanup);
    const log = new Log(t.store.paths.log, 'test', 4096);
    for (let i = 0; i < 2000; i++) {
      log.info(`line ${i} ${'y'.repeat(60)}`);
      if (i % 100 === 99) await new Promise((r) => setTimeout(r, 5));
    }
    const segs = () => readdirSync(t.store.paths.segments).filter((n) => /^teamux\.[0-9]{6,}\.log$/.test(n));
    await waitFor(() => segs().length === LOG_KEEP, `${LOG_KEEP} log segments`, 10_000);
    // A burst of synchronous lines may run past the limit while a seal is in flight; the next line seals it.
    await waitFor(() => {
      log.info('tick');
      return statSync(t.store.paths.log).size < 4096 * 2;
    }, 'the active log back under its limit', 10_000, 20);
    expect(segs()).toHaveLength(LOG_KEEP);
  }, 60_000);

  it('rotation.the-sidebar-traffic-keeps-every-message-across-rotations', async () => {
    const { TeamWatch } = await import('../../src/store/team-watch.js');
    const t = await makeTeam(['amy']);
    cleanup.push(t.cleanup);
    const watch = new TeamWatch(t.store);
    await watch.start();
    cleanup.push(() => watch.dispose());
    await Promise.all(['w0', 'w1'].map((w) => writer(t.dir, w, 60, { TEAMUX_EVENTS_SEGMENT_BYTES: '2048', TEAMUX_EVENTS_KEEP: '1000' })));
    await waitFor(() => watch.state().traffic.length === 120, 'all 120 messages in the traffic', 30_000);
    expectComplete([...watch.state().traffic], ['w0', 'w1'], 60);
    expect(sealedSeqs({ file: t.store.paths.events, dir: t.store.paths.segments }).length).toBeGreaterThan(5);
  }, 120_000);
});
