/**
 * The inbox cursor as an append-only log (src/store/cursor-log.ts): moving it appends one short record,
 * the log is compacted into a snapshot, a cursor in the old format is read and upgraded in place, a
 * torn or damaged record never moves the cursor past a message, and the three readers of its offset —
 * the store, the Stop hook's node fast path (dist/agents/claude/stop-fast.cjs) and its Perl form — agree on
 * "nothing unread" across inbox rotations (or the fast paths hand the case to the full hook).
 */
import { appendFileSync, chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { perlStopScript } from '../../src/agents/claude/stop-perl.js';
import { COMPACT_SLACK, cursorRecord, parseCursorLog, SEEN_LIMIT } from '../../src/store/cursor-log.js';
import type { Mailbox } from '../../src/store/inbox.js';
import { PERL, runHook } from '../helpers/hook-shell.js';
import { makeTeam, REPO } from '../helpers/team.js';

const { nothingUnread } = createRequire(import.meta.url)(path.join(REPO, 'dist', 'agents', 'claude', 'stop-fast.cjs')) as { nothingUnread: (dir: string, member: string) => boolean };

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
  delete process.env.TEAMUX_INBOX_SEGMENT_BYTES;
});

async function team(): Promise<Awaited<ReturnType<typeof makeTeam>> & { file: string; mail: Mailbox }> {
  const t = await makeTeam(['amy']);
  cleanup.push(t.cleanup);
  return { ...t, file: t.store.paths.cursor('amy', 'amy'), mail: t.store.mail as Mailbox };
}

/** The old cursor format, exactly as writeJson wrote it before the log. */
const legacy = (c: object): string => JSON.stringify(c, null, 2) + '\n';

describe('inbox cursor log', () => {
  it('cursor-log.a-move-appends-one-record-and-the-log-is-compacted-past-its-slack', async () => {
    const t = await team();
    await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: 'one' });
    const first = await t.store.mail.read('amy');
    expect(first.messages.map((m) => m.text)).toEqual(['one']);
    // The first move writes a snapshot record.
    const text1 = readFileSync(t.file, 'utf8');
    expect(text1).toBe(cursorRecord(first.next, { seen: first.next.seen }) + '\n');
    // The next move appends a record with the new id only; the file before it is left as it was.
    const m2 = await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: 'two' });
    const second = await t.store.mail.read('amy');
    const text2 = readFileSync(t.file, 'utf8');
    expect(text2.startsWith(text1)).toBe(true);
    expect(text2.slice(text1.length)).toBe(`{"seq":1,"offset":${second.next.offset},"add":[${JSON.stringify(m2.ok && m2.value.id)}]}\n`);
    expect(await t.mail.cursor('amy', 'amy')).toEqual(second.next);
    // A read with nothing new writes nothing.
    expect((await t.store.mail.read('amy')).messages).toEqual([]);
    expect(readFileSync(t.file, 'utf8')).toBe(text2);
    // Many moves: the log stays within its snapshot plus the slack, and the cursor keeps every id.
    const ids: string[] = [...second.next.seen];
    for (let i = 0; i < 400; i++) {
      const r = await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: `m${i}` });
      if (r.ok) ids.push(r.value.id);
      expect((await t.store.mail.read('amy')).messages.map((m) => m.text)).toEqual([`m${i}`]);
      const stored = parseCursorLog(readFileSync(t.file, 'utf8'));
      expect(stored.bytes).toBeLessThanOrEqual(stored.snapshotBytes + COMPACT_SLACK);
    }
    const c = await t.mail.cursor('amy', 'amy');
    expect(c.seen).toEqual(ids);
    expect(c.offset).toBe(statSync(t.store.paths.inbox('amy')).size);
    expect(readFileSync(t.file, 'utf8').split('\n').filter(Boolean).length).toBeLessThan(400);
  }, 120_000);

  it('cursor-log.a-cursor-in-the-old-format-is-read-and-upgraded-in-place', async () => {
    const t = await team();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: `m${i}` });
      if (r.ok) ids.push(r.value.id);
    }
    const lines = readFileSync(t.store.paths.inbox('amy'), 'utf8').split('\n');
    const after3 = Buffer.byteLength(lines.slice(0, 3).join('\n') + '\n');
    // An old cursor past m0..m2 whose seen list also holds m4 (delivered once already, say).
    writeFileSync(t.file, legacy({ offset: after3, seen: [ids[0], ids[1], ids[2], ids[4]] }));
    expect(await t.mail.cursor('amy', 'amy')).toEqual({ offset: after3, seen: [ids[0], ids[1], ids[2], ids[4]] });
    const r = await t.store.mail.read('amy');
    expect(r.messages.map((m) => m.text)).toEqual(['m3']);
    // Rewritten as a log of one snapshot, which reads back the same.
    const text = readFileSync(t.file, 'utf8');
    expect(text.startsWith('{"seq":1,"offset":')).toBe(true);
    expect(text.split('\n').filter(Boolean)).toHaveLength(1);
    expect(await t.mail.cursor('amy', 'amy')).toEqual(r.next);
    expect((await t.store.mail.read('amy')).messages).toEqual([]);
    // An old cursor that names a segment and the one sealed last is read as it was.
    writeFileSync(t.file, legacy({ offset: 7, seen: ['a'], seq: 3, sealed: { seq: 2, offset: 90 } }));
    expect(await t.mail.cursor('amy', 'amy')).toEqual({ offset: 7, seen: ['a'], seq: 3, sealed: { seq: 2, offset: 90 } });
  });

  it('cursor-log.a-torn-or-damaged-record-never-moves-the-cursor-past-a-message', async () => {
    const t = await team();
    await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: 'read' });
    const read = await t.store.mail.read('amy');
    await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: 'waiting' });
    const end = statSync(t.store.paths.inbox('amy')).size;
    // A writer that died in the middle of appending the record that would pass "waiting": every cut of it.
    const next = cursorRecord({ ...read.next, offset: end }, { add: ['msg-x'] });
    const whole = readFileSync(t.file, 'utf8');
    for (let cut = 1; cut < next.length; cut++) {
      writeFileSync(t.file, whole + next.slice(0, cut));
      expect((await t.store.mail.unread('amy')).messages.map((m) => m.text), `cut at ${cut}`).toEqual(['waiting']);
      expect(nothingUnread(t.dir, 'amy'), `stop-fast, cut at ${cut}`).toBe(false);
    }
    // A damaged line in the middle (zeros after a crash, say) is skipped; the records around it stand.
    writeFileSync(t.file, whole + '\0\0\0\0\n' + cursorRecord({ ...read.next }, { add: [] }) + '\n');
    expect((await t.store.mail.unread('amy')).messages.map((m) => m.text)).toEqual(['waiting']);
    // The next move starts a line of its own after the torn bytes and reads back whole; so does a record glued onto them.
    writeFileSync(t.file, whole + next.slice(0, 20) + cursorRecord({ ...read.next }, { add: [] }) + '\n');
    expect((await t.store.mail.unread('amy')).messages.map((m) => m.text)).toEqual(['waiting']);
    writeFileSync(t.file, whole + next.slice(0, 20));
    const r = await t.store.mail.read('amy');
    expect(r.messages.map((m) => m.text)).toEqual(['waiting']);
    expect(await t.mail.cursor('amy', 'amy')).toEqual(r.next);
    expect((await t.store.mail.read('amy')).messages).toEqual([]);
    // Nothing in the file reads as a record: no cursor, so everything is handed out again.
    writeFileSync(t.file, 'garbage\n');
    expect((await t.store.mail.unread('amy')).messages).toHaveLength(2);
  });

  it('cursor-log.seen-is-bounded-and-survives-compaction', () => {
    const ids = Array.from({ length: SEEN_LIMIT + 500 }, (_, i) => `msg-${i}`);
    let text = cursorRecord({ offset: 10, seen: [] }, { seen: ids.slice(0, SEEN_LIMIT) }) + '\n';
    text += cursorRecord({ offset: 20, seen: [] }, { add: ids.slice(SEEN_LIMIT) }) + '\n';
    const c = parseCursorLog(text).cursor;
    expect(c.offset).toBe(20);
    expect(c.seen).toEqual(ids.slice(-SEEN_LIMIT));
  });
});

describe.skipIf(!PERL)('the three readers of a cursor agree', () => {
  it('cursor-log.store-node-and-perl-fast-paths-agree-on-nothing-unread-across-rotations', async () => {
    process.env.TEAMUX_INBOX_SEGMENT_BYTES = '2048';
    const t = await team();
    // The Perl Stop hook with stand-ins: the full hook prints "full", the idle bookkeeping does nothing.
    const full = path.join(t.dir, '..', 'full.mjs');
    const idle = path.join(t.dir, '..', 'idle.mjs');
    writeFileSync(full, "process.stdout.write('full');\n");
    writeFileSync(idle, '');
    const script = path.join(t.dir, '..', 'stop-hook');
    writeFileSync(script, perlStopScript(PERL, process.execPath, full, idle));
    chmodSync(script, 0o700);
    const perlIdle = async (): Promise<boolean> => {
      const r = await runHook(`${PERL} ${script} hook Stop --as amy --team-dir ${t.dir}`, '{"hook_event_name":"Stop"}');
      expect(r.code).toBe(0);
      return r.out === '';
    };
    /** The store's answer, and both fast paths': equal, or (`conservative`) the fast paths hand it to the full hook. */
    const check = async (what: string, unread: number, conservative = false): Promise<void> => {
      expect((await t.store.mail.unread('amy')).messages.length, `${what}: store`).toBe(unread);
      const fast = unread === 0 && !conservative;
      expect(nothingUnread(t.dir, 'amy'), `${what}: stop-fast.cjs`).toBe(fast);
      expect(await perlIdle(), `${what}: Perl`).toBe(fast);
    };
    const send = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: `hello ${i} ${'x'.repeat(200)}` });
    };
    const segment = (seq: number): string => path.join(t.dir, 'segments', 'inboxes', `amy.${String(seq).padStart(6, '0')}.jsonl`);

    await check('no inbox, no cursor', 0);
    await send(1);
    await check('one message', 1);
    await t.store.mail.read('amy');
    await check('read', 0);
    // Read up to just below the size limit; the next message fills the file, which is sealed with it:
    // the active file is empty (or gone), the unread message is in the cursor's own segment.
    const line = statSync(t.store.paths.inbox('amy')).size;
    while (statSync(t.store.paths.inbox('amy')).size + line < 2048) await send(1);
    expect(existsSync(segment(1))).toBe(false);
    await t.store.mail.read('amy');
    await check('read up to the limit', 0);
    await send(1);
    expect(statSync(segment(1)).size).toBeGreaterThan(2048);
    await check('the new message sealed with the cursor\'s segment', 1);
    await send(12);
    await check('cursor in a sealed segment, more after it', 13);
    await t.store.mail.read('amy');
    const c = await t.mail.cursor('amy', 'amy');
    expect(c.seq).toBeGreaterThan(1);
    await check('read across the rotation', 0);
    // A line that reached the segment sealed last after the reader moved on.
    const sealed = c.sealed ?? { seq: c.seq! - 1, offset: statSync(segment(c.seq! - 1)).size };
    const late = { id: 'msg-late', from: 'lead', to: 'amy', type: 'message', text: 'late', time: new Date().toISOString() };
    appendFileSync(segment(sealed.seq), JSON.stringify(late) + '\n');
    await check('a late line in the segment sealed last', 1);
    await t.store.mail.read('amy');
    await check('late line read', 0);
    // Cursors in the old format: one that names segments goes to the full hook…
    const now = await t.mail.cursor('amy', 'amy');
    writeFileSync(t.file, legacy({ offset: now.offset, seen: now.seen, seq: now.seq, sealed: now.sealed }));
    await check('old format naming its segment', 0, true);
    // …one without them (an inbox never sealed) is read by all three.
    process.env.TEAMUX_INBOX_SEGMENT_BYTES = String(1 << 20);
    const u = await team();
    await u.store.send({ from: 'lead', to: 'amy', type: 'message', text: 'hi' });
    const end = statSync(u.store.paths.inbox('amy')).size;
    writeFileSync(u.file, legacy({ offset: end, seen: [] }));
    expect((await u.store.mail.unread('amy')).messages).toEqual([]);
    expect(nothingUnread(u.dir, 'amy')).toBe(true);
    writeFileSync(u.file, legacy({ offset: end - 1, seen: [] }));
    expect(nothingUnread(u.dir, 'amy')).toBe(false);
  }, 120_000);
});
