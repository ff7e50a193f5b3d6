// EventTail: each appended event read once, partial lines held back, a replaced log read afresh.
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventTail } from '../../src/store/events.js';
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
