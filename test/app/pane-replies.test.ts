// Terminal replies under a hostile pane (issue 15): a program that floods queries and never reads
// its input must not make teamux queue the answers without limit; one that reads gets every answer.
// Real processes in real ptys through the node-pty host.
import { afterEach, describe, expect, it } from 'vitest';
import { Pane } from '../../src/app/pane.js';
import { PtyHost } from '../../src/host/pty.js';
import { REPLY_QUEUE_LIMIT } from '../../src/vt/limits.js';
import { waitFor } from '../helpers/team.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function paneRunning(script: string): Promise<Pane> {
  const host = new PtyHost();
  cleanups.push(() => host.dispose({ kill: true }));
  const pane = new Pane({ id: 'p', command: 'python3', args: ['-c', script], cwd: process.cwd(), env: {}, cols: 80, rows: 24 }, 'shell', false, true, 100, () => {}, () => {});
  cleanups.push(() => pane.dispose());
  await pane.start(host);
  return pane;
}

const RAW = 'import os, sys, tty, time, select\ntty.setraw(0)\n';
// DA1 and CSI 18 t: 13 bytes asked, 18 bytes answered
const QUERIES = '\\x1b[c\\x1b[18t';

describe('replies to a pane that does not read', () => {
  it('pane.replies-to-a-program-that-never-reads-stop-at-the-queue-limit', async () => {
    const n = 40_000; // 720 KB of answers, ten times the limit
    const pane = await paneRunning(`${RAW}for _ in range(${n / 100}): os.write(1, b"${QUERIES}" * 100)\nos.write(1, b"FLOOD-DONE")\ntime.sleep(60)\n`);
    await waitFor(() => pane.term.snapshotText().some((row) => row.includes('FLOOD-DONE')) && pane.term.pendingBytes === 0, 'the flood to be parsed', 60_000);
    const queued = pane.proc!.queuedInputBytes!();
    expect(queued).toBeGreaterThan(0);
    expect(queued).toBeLessThanOrEqual(REPLY_QUEUE_LIMIT + 18);
    expect(pane.droppedReplies).toBeGreaterThan(n / 2);
  });

  it('pane.a-program-that-reads-its-replies-gets-every-one', async () => {
    const n = 5_000;
    const pane = await paneRunning(
      `${RAW}got = b""\nfor _ in range(${n / 100}):\n  os.write(1, b"${QUERIES}" * 100)\n  while got.count(b"t") < (_ + 1) * 100: got += os.read(0, 65536)\n` +
        `os.write(1, b"\\r\\nGOT %d %d" % (got.count(b"\\x1b[?"), got.count(b"\\x1b[8;24;80t")))\ntime.sleep(60)\n`,
    );
    await waitFor(() => pane.term.snapshotText().find((row) => row.startsWith('GOT')), 'the program to count its replies', 60_000);
    expect(pane.term.snapshotText().find((row) => row.startsWith('GOT'))).toBe(`GOT ${n} ${n}`);
    expect(pane.droppedReplies).toBe(0);
  });
});
