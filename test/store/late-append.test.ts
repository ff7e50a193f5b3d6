// A line appended to a log that was sealed (renamed into segments/) between the writer's open and its
// write lands in the sealed segment, possibly after every reader finished it. appendLineKept tells the
// writer so, and an inbox message is then appended again: its reader gets it once, wherever it reads it.
import { existsSync, readFileSync, renameSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendLineKept } from '../../src/store/fsx.js';
import { messageLine, type Mailbox } from '../../src/store/inbox.js';
import { segmentPath } from '../../src/store/segments.js';
import { makeTeam, tempDir } from '../helpers/team.js';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

describe('late appends', () => {
  it('late-append.a-writer-learns-that-its-file-was-sealed-between-its-open-and-its-check', () => {
    const t = tempDir();
    cleanup.push(t.cleanup);
    const file = path.join(t.dir, 'log.jsonl');
    expect(appendLineKept(file, '{"n":1}')).toBe(true);
    const sealed = path.join(t.dir, 'log.000001.jsonl');
    // Sealed right after the write, before anyone appended again: no file under the name.
    expect(appendLineKept(file, '{"n":2}', () => renameSync(file, sealed))).toBe(false);
    expect(readFileSync(sealed, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    expect(existsSync(file)).toBe(false);
    // Sealed and a fresh file already started by another writer.
    expect(appendLineKept(file, '{"n":3}', () => { renameSync(file, path.join(t.dir, 'log.000002.jsonl')); appendLineKept(file, '{"n":4}'); })).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('{"n":4}\n');
    expect(appendLineKept(file, '{"n":5}')).toBe(true);
  });

  it('late-append.a-message-sealed-away-as-it-was-sent-and-appended-again-is-read-once', async () => {
    process.env.TEAMUX_INBOX_SEGMENT_BYTES = '2048';
    cleanup.push(() => { delete process.env.TEAMUX_INBOX_SEGMENT_BYTES; });
    const t = await makeTeam(['amy', 'bob']);
    cleanup.push(t.cleanup);
    const mail = t.store.mail as Mailbox;
    const send = (i: number) => t.store.send({ from: 'bob', to: 'amy', type: 'message', text: `m${i}`, payload: { seq: i, pad: 'x'.repeat(200) } });
    const seqs: number[] = [];
    const read = async (): Promise<void> => {
      const r = await t.store.mail.read('amy');
      expect(r.problems).toEqual([]);
      seqs.push(...r.messages.map((m) => (m.payload as { seq: number }).seq));
    };
    // The reader passes three sealed segments, so its cursor's `sealed` is no longer segment 1.
    let i = 0;
    while (!existsSync(segmentPath(mail.segments('amy'), 3))) {
      const r = await send(i++);
      expect(r.ok).toBe(true);
      await read();
    }
    await read();
    // A message's line reached a sealed segment late (its writer had opened the inbox before that
    // seal), and the writer, told so, appended it again to the active file. Once into the segment the
    // cursor still re-reads for late lines (both copies are read), once into one it has let go of.
    const cursor = await mail.cursor('amy', 'amy');
    expect(cursor.sealed?.seq).toBeGreaterThan(1);
    const inbox = path.join(t.dir, 'inboxes', 'amy.jsonl');
    for (const seg of [cursor.sealed!.seq, 1]) {
      const late = t.store.mail.compose({ from: 'bob', to: 'amy', type: 'message', text: 'late', payload: { seq: i++ } });
      const segment = segmentPath(mail.segments('amy'), seg);
      appendLineKept(segment, messageLine(late));
      expect(existsSync(segment)).toBe(true);
      appendLineKept(inbox, messageLine(late));
      expect((await send(i++)).ok).toBe(true);
      await read();
      await read();
    }
    expect(seqs).toEqual(Array.from({ length: i }, (_, k) => k));
  });
});
