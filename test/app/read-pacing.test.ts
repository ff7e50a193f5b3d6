// Read pacing on real processes in real ptys (node-pty host): a pty held from inside its own data
// listener delivers nothing until released, then what waited in one read, losing nothing; a process
// that exits while held is seen to exit once released; and a pane printing a line every few ms,
// wired to a real FrameScheduler as the multiplexer wires it, is read about once per frame, not once
// per line, while every line still reaches its screen. Input: keys go to the pty at once, and a paste
// larger than the kernel's buffer is queued, with the keys after it kept behind it, byte for byte.
import { afterEach, describe, expect, it } from 'vitest';
import { FrameScheduler } from '../../src/app/frames.js';
import { Pane } from '../../src/app/pane.js';
import { systemClock } from '../../src/host/clock.js';
import { PtyHost } from '../../src/host/pty.js';
import type { PaneProcess } from '../../src/host/types.js';
import { waitFor } from '../helpers/team.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function spawn(script: string): Promise<PaneProcess> {
  const host = new PtyHost();
  cleanups.push(() => host.dispose({ kill: true }));
  return host.spawn({ id: 'p', command: 'perl', args: ['-e', script], cwd: process.cwd(), env: {}, cols: 80, rows: 24 });
}

/** perl printing `n` numbered lines `ms` apart, then `tail`. */
const printer = (n: number, ms: number, tail: string): string => `use Time::HiRes qw(sleep); $|=1; for my $i (1..${n}) { print "L$i\\n"; sleep(${ms / 1000}); } ${tail}`;

const lineNumbers = (text: string): number[] => [...text.matchAll(/L(\d+)\r?\n/g)].map((m) => Number(m[1]));
const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

/** A pane running `perl -e script` wired to a real FrameScheduler as the multiplexer wires it; frames() counts the frames drawn. */
async function pacedPane(script: string): Promise<{ pane: Pane; frames: () => number }> {
  const host = new PtyHost();
  cleanups.push(() => host.dispose({ kill: true }));
  let frames = 0;
  const scheduler = new FrameScheduler(systemClock, () => frames++, (err) => {
    throw err;
  });
  cleanups.push(() => scheduler.stop());
  const pane = new Pane({ id: 'p', command: 'perl', args: ['-e', script], cwd: process.cwd(), env: {}, cols: 80, rows: 24 }, 'shell', false, true, 1_000, (cause, source) => scheduler.request(cause, source), () => {});
  cleanups.push(() => pane.dispose());
  await pane.start(host);
  return { pane, frames: () => frames };
}

describe('read pacing on a pty', () => {
  it('pty.held-from-its-data-listener-it-delivers-nothing-until-released-then-what-waited-at-once', async () => {
    const proc = await spawn(printer(200, 2, 'print "DONE\\n"; sleep(60);'));
    let text = '';
    const chunks: { at: number; text: string }[] = [];
    let heldAt = 0;
    proc.onData((d) => {
      const s = String(d);
      text += s;
      chunks.push({ at: Date.now(), text: s });
      // the first chunk holds the reads, from inside the listener (as a frame request does)
      if (heldAt === 0) {
        heldAt = Date.now();
        proc.holdReads!();
      }
    });
    await waitFor(() => heldAt > 0, 'the first output');
    await new Promise((r) => setTimeout(r, 300));
    expect(chunks, 'nothing read while held').toHaveLength(1);
    proc.releaseReads!();
    await waitFor(() => chunks.length > 1, 'output after the release');
    expect(lineNumbers(chunks[1]!.text).length, 'what waited in the kernel comes in one read').toBeGreaterThanOrEqual(10);
    await waitFor(() => text.includes('DONE'), 'the rest of the output', 20_000);
    expect(lineNumbers(text), 'nothing lost, nothing reordered').toEqual(upTo(200));
  });

  it('pty.a-process-that-exits-while-held-is-seen-to-exit-once-released', async () => {
    const proc = await spawn(printer(50, 1, 'exit 7;'));
    let text = '';
    let exitCode: number | null | undefined;
    proc.onExit((e) => (exitCode = e.exitCode));
    proc.onData((d) => {
      if (!text) proc.holdReads!();
      text += String(d);
    });
    await waitFor(() => text.length > 0, 'the first output');
    // the process prints the rest and exits meanwhile
    await new Promise((r) => setTimeout(r, 150));
    expect(exitCode, 'not before its output was read').toBeUndefined();
    proc.releaseReads!();
    await waitFor(() => exitCode !== undefined, 'the exit', 20_000);
    expect(exitCode).toBe(7);
    expect(lineNumbers(text), 'the output before the exit is all there').toEqual(upTo(50));
  });

  it('pane.a-pane-printing-a-line-every-few-ms-is-read-about-once-per-frame-and-shows-every-line', async () => {
    const lines = 300;
    const { pane, frames: framesDrawn } = await pacedPane(printer(lines, 3, 'print "DONE\\n"; sleep(60);'));
    let reads = 0;
    let text = '';
    pane.proc!.onData((d) => {
      reads++;
      text += String(d);
    });
    await waitFor(() => text.includes('DONE'), 'the pane to print every line', 30_000);
    expect(lineNumbers(text), 'every line read, in order').toEqual(upTo(lines));
    await waitFor(() => pane.term.snapshotText().includes('DONE'), 'the last line on the pane\'s screen');
    // ~1 s of output at 30 frames a second: a read per frame and one more after it at most, far below a read per line
    const frames = framesDrawn();
    expect(reads, `${reads} reads for ${lines} lines in ${frames} frames`).toBeLessThan(lines / 2);
    expect(reads).toBeLessThanOrEqual(2 * frames + 2);
  });

  it('pane.a-pane-streaming-megabytes-is-not-held-to-a-read-per-frame', async () => {
    // 8 MiB as fast as the pty takes it: held once a frame, it would arrive a few KiB per frame
    // (~120 KiB/s, over a minute); read freely, in a few seconds even on a loaded machine
    const lines = Math.floor((8 * 2 ** 20) / 80);
    const { pane, frames: framesDrawn } = await pacedPane(`$|=1; my $line = ("x" x 79) . "\\n"; print $line for 1..${lines}; print "DONE\\n"; sleep(60);`);
    let received = 0;
    let tail = '';
    pane.proc!.onData((d) => {
      const s = String(d);
      received += s.length;
      tail = (tail + s).slice(-16);
    });
    await waitFor(() => tail.includes('DONE'), 'the pane to stream 8 MiB', 60_000);
    // the tty turns each LF into CRLF: 81 characters a line
    expect(received).toBeGreaterThanOrEqual(lines * 81);
    // a read per frame would be ~2,000 frames of ~4 KiB; streaming reads are many per frame
    const frames = framesDrawn();
    expect(received / Math.max(1, frames), `${received} characters in ${frames} frames`).toBeGreaterThan(16 * 1024);
  });
});

describe('input to a pty', () => {
  it('pty.keys-are-written-at-once-and-a-paste-larger-than-the-terminal-buffer-arrives-whole-and-in-order', async () => {
    // raw mode (no line discipline limits); reads nothing for 300 ms, so the kernel's buffer fills
    // and the rest of the paste must wait in the queue, behind which later keys must stay
    const script = 'import os, sys, tty, time, hashlib\ntty.setraw(0)\nos.write(1, b"READY\\r\\n")\ntime.sleep(0.3)\ngot = b""\nwhile not got.endswith(b"ZZEND"):\n  got += os.read(0, 65536)\nos.write(1, b"\\r\\nGOT %d %s\\r\\n" % (len(got), hashlib.sha1(got).hexdigest().encode()))\ntime.sleep(60)\n';
    const host = new PtyHost();
    cleanups.push(() => host.dispose({ kill: true }));
    const proc = await host.spawn({ id: 'p', command: 'python3', args: ['-c', script], cwd: process.cwd(), env: {}, cols: 80, rows: 24 });
    let text = '';
    proc.onData((d) => (text += String(d)));
    // setraw flushes input written before it (TCSAFLUSH): send once the process is raw
    await waitFor(() => text.includes('READY'), 'the process to set raw mode', 20_000);
    let sent = '';
    const send = (s: string): void => {
      sent += s;
      proc.write(s);
    };
    for (let i = 0; i < 50; i++) send(String.fromCharCode(97 + (i % 26)));
    expect(proc.queuedInputBytes!(), 'keys are in the kernel at once, not queued for a thread').toBe(0);
    send(Array.from({ length: 6_000 }, (_, i) => `paste line ${i} é ✓\n`).join(''));
    expect(proc.queuedInputBytes!(), 'the kernel did not take the whole paste at once').toBeGreaterThan(0);
    for (let i = 0; i < 50; i++) send(String.fromCharCode(65 + (i % 26)));
    send('ZZEND');
    const got = await waitFor(() => /GOT (\d+) ([0-9a-f]{40})/.exec(text), 'the process to read everything', 30_000);
    const bytes = Buffer.from(sent, 'utf8');
    const { createHash } = await import('node:crypto');
    expect(Number(got[1])).toBe(bytes.length);
    expect(got[2], 'the same bytes in the same order').toBe(createHash('sha1').update(bytes).digest('hex'));
  });
});
