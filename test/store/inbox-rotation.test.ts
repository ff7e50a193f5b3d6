// Inboxes are sealed into segments and a sealed segment is deleted only once every reader has
// passed it. Real child processes send while the member reads and commits in the middle of the
// rotations: every message arrives once, in each sender's order; nothing unread is deleted.
import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/protocol/types.js';
import type { Mailbox } from '../../src/store/inbox.js';
import { makeTeam, REPO } from '../helpers/team.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

const SENDER = path.join(REPO, 'test', 'workers', 'sender.mjs');
const ENV = { TEAMUX_INBOX_SEGMENT_BYTES: '16384' };

function send(dir: string, from: string, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [SENDER, dir, from, 'lead', String(count)], { env: { ...process.env, ...ENV } }, (err, out, stderr) => {
      if (err || !out.includes('done')) reject(new Error(`sender ${from}: ${err?.message ?? ''} ${stderr}`));
      else resolve();
    });
  });
}

function expectComplete(messages: Message[], senders: string[], count: number): void {
  for (const s of senders) {
    const seqs = messages.filter((m) => m.from === s).map((m) => (m.payload as { seq: number }).seq);
    expect(seqs, `messages from ${s}`).toEqual(Array.from({ length: count }, (_, i) => i));
  }
}

const segments = (dir: string) => {
  try {
    return readdirSync(path.join(dir, 'segments', 'inboxes')).filter((n) => n.startsWith('lead.'));
  } catch {
    return [];
  }
};

describe('inbox segments', () => {
  it('inbox-rotation.a-reader-committing-in-the-middle-of-rotations-gets-every-message-once', async () => {
    process.env.TEAMUX_INBOX_SEGMENT_BYTES = ENV.TEAMUX_INBOX_SEGMENT_BYTES;
    cleanup.push(async () => { delete process.env.TEAMUX_INBOX_SEGMENT_BYTES; });
    const t = await makeTeam(['s0', 's1', 's2']);
    cleanup.push(t.cleanup);
    const senders = ['s0', 's1', 's2'];
    let running = true;
    const done = Promise.all(senders.map((s) => send(t.dir, s, 150))).finally(() => (running = false));
    const got: Message[] = [];
    let maxSegments = 0;
    while (running) {
      const r = await t.store.mail.read('lead');
      expect(r.problems).toEqual([]);
      got.push(...r.messages);
      maxSegments = Math.max(maxSegments, segments(t.dir).length);
      await new Promise((res) => setTimeout(res, 3));
    }
    await done;
    got.push(...(await t.store.mail.read('lead')).messages);
    expectComplete(got, senders, 150);
    // ~450 messages, one in seven with 3 KB of payload: about 230 KB, so many 16 KiB segments were sealed…
    const cursor = await (t.store.mail as Mailbox).cursor('lead', 'lead');
    expect(cursor.seq ?? 1).toBeGreaterThan(8);
    // …and the reader kept up, so the read ones were deleted: only the last sealed one is kept (for late lines).
    expect(segments(t.dir).length).toBeLessThanOrEqual(1);
    expect(statSync(t.store.paths.inbox('lead')).size).toBeLessThan(16384 + 4096);
  }, 120_000);

  it('inbox-rotation.unread-segments-are-kept-for-a-reader-that-has-not-read-them', async () => {
    process.env.TEAMUX_INBOX_SEGMENT_BYTES = ENV.TEAMUX_INBOX_SEGMENT_BYTES;
    cleanup.push(async () => { delete process.env.TEAMUX_INBOX_SEGMENT_BYTES; });
    const t = await makeTeam(['s0']);
    cleanup.push(t.cleanup);
    // A second reader (the screen, say) reads once at the start and then not again.
    await t.store.mail.read('lead', 'screen');
    await send(t.dir, 's0', 200);
    const sealedBefore = segments(t.dir).length;
    expect(sealedBefore).toBeGreaterThan(3);
    // The member reads everything; the screen's cursor still holds the segments it has not read.
    expectComplete((await t.store.mail.read('lead')).messages, ['s0'], 200);
    expect(segments(t.dir).length).toBe(sealedBefore);
    const screen = await t.store.mail.read('lead', 'screen');
    expectComplete(screen.messages, ['s0'], 200);
    expect(segments(t.dir).length).toBeLessThanOrEqual(1);
  }, 120_000);
});
