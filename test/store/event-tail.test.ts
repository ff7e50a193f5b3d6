// EventTail: each appended event read once, partial lines held back, a replaced log read afresh, a
// line written late into a sealed segment still read, in its writer's order.
import { appendFileSync, closeSync, constants as fsc, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLog, EventTail, LATE_LINE_WAIT_MS } from '../../src/store/events.js';
import { sealedSeqs } from '../../src/store/segments.js';
import { tempDir } from '../helpers/team.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function line(i: number, type = 'message_sent'): string {
  return JSON.stringify({ time: '2026-01-01T00:00:00.000Z', type, seq: i }) + '\n';
}

describe('event tail', () => {
  it('tail.reads-each-appended-line-once-and-holds-back-a-partial-line', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, 'events.jsonl');
    const tail = new EventTail(file);
    expect((await tail.readNew()).events).toEqual([]);
    writeFileSync(file, line(0, 'member_working'));
    expect((await tail.readNew()).events.map((e) => e.seq)).toEqual([0]);
    // The first message after non-message events is the one the old tail dropped.
    appendFileSync(file, line(1));
    expect((await tail.readNew()).events.map((e) => e.seq)).toEqual([1]);
    const half = line(2);
    appendFileSync(file, half.slice(0, 10));
    expect((await tail.readNew()).events).toEqual([]);
    appendFileSync(file, half.slice(10) + line(3));
    expect((await tail.readNew()).events.map((e) => e.seq)).toEqual([2, 3]);
    expect((await tail.readNew()).events).toEqual([]);
    appendFileSync(file, '{not json\n' + line(4));
    const r = await tail.readNew();
    expect(r.events.map((e) => e.seq)).toEqual([4]);
    expect(r.problems).toHaveLength(1);
  });

  it('tail.first-read-of-a-long-log-starts-at-a-whole-line-and-a-replaced-log-is-reread', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, 'events.jsonl');
    const lines = Array.from({ length: 100 }, (_, i) => line(i));
    writeFileSync(file, lines.join(''));
    const size = lines[99]!.length; // lines 10..99 all have this length
    // A cut exactly on a line start keeps that line; a cut inside a line drops only that line.
    expect((await new EventTail(file, size * 10).readNew()).events.map((e) => e.seq)).toEqual(Array.from({ length: 10 }, (_, i) => 90 + i));
    expect((await new EventTail(file, size * 10 - 3).readNew()).events.map((e) => e.seq)).toEqual(Array.from({ length: 9 }, (_, i) => 91 + i));
    const tail = new EventTail(file, size * 2);
    expect((await tail.readNew()).events.map((e) => e.seq)).toEqual([98, 99]);
    writeFileSync(file + '.new', line(500));
    renameSync(file + '.new', file);
    expect((await tail.readNew()).events.map((e) => e.seq)).toEqual([500]);
  });
});

/** An events file in a fresh folder, sealed at `maxBytes`, with a writer and a tail. */
function sealedLog(maxBytes: number): { dir: string; file: string; log: EventLog; tail: EventTail } {
  const t = tempDir();
  cleanup = t.cleanup;
  const file = path.join(t.dir, 'events.jsonl');
  return { dir: t.dir, file, log: new EventLog(file, maxBytes), tail: new EventTail(file) };
}

describe('event tail: late lines in sealed segments', () => {
  it('tail.a-line-written-late-into-a-segment-sealed-several-rotations-ago-is-read-before-newer-lines', async () => {
    const { dir, file, log, tail } = sealedLog(2048);
    await log.record('message_sent', { writer: 'slow', seq: 0 });
    expect((await tail.readNew()).events.map((e) => e.writer)).toEqual(['slow']);
    // A writer opens events.jsonl to append its next line, and is descheduled before its write().
    const stalled = openSync(file, fsc.O_WRONLY | fsc.O_APPEND);
    // Meanwhile others fill and seal this file and four more, and the tail reads all of them.
    let n = 0;
    while (sealedSeqs({ file, dir: path.join(dir, 'segments') }).length < 5) {
      await log.record('message_sent', { writer: 'busy', seq: n++ });
      if (n % 7 === 0) await tail.readNew();
    }
    const before = await tail.readNew();
    expect(before.events.length).toBeGreaterThan(0);
    // The stalled write lands in segment 1, already read to its end; the writer's next line goes to
    // the active file.
    writeSync(stalled, line(1).replace('"seq"', '"writer":"slow","seq"'));
    closeSync(stalled);
    await log.record('message_sent', { writer: 'slow', seq: 2 });
    const r = await tail.readNew();
    expect(r.problems).toEqual([]);
    // Both arrive, the late one first: each writer's events come in the order it wrote them.
    expect(r.events.filter((e) => e.writer === 'slow').map((e) => e.seq)).toEqual([1, 2]);
    expect(r.events.at(-1)).toMatchObject({ writer: 'slow', seq: 2 });
    expect((await tail.readNew()).events).toEqual([]);
  });

  it('tail.a-sealed-segment-quiet-for-the-wait-is-let-go', async () => {
    const { log, tail } = sealedLog(512);
    await tail.readNew();
    for (let i = 0; i < 20; i++) await log.record('message_sent', { writer: 'w', seq: i, pad: 'x'.repeat(100) });
    await tail.readNew();
    const watched = (): number => (tail as unknown as { recent: Map<number, unknown> }).recent.size;
    expect(watched()).toBeGreaterThan(2);
    // Pretend the wait has passed for all of them.
    for (const at of (tail as unknown as { recent: Map<number, { grewAt: number }> }).recent.values()) at.grewAt -= LATE_LINE_WAIT_MS + 1;
    await tail.readNew();
    expect(watched()).toBe(0);
  });
});
