// FrameWriter: on a real terminal (a child process whose stdout is a pty) frames go straight to the
// descriptor, in order with what the process writes through the stream before and after them, and a
// frame larger than the pty's buffer arrives whole. With a seam for write(2): what the descriptor does
// not take (a short write, EAGAIN, another error) goes to the stream after what was written, a stream
// with bytes queued gets the frame behind them, a stream that is not a TTY (or has no descriptor) gets
// every frame, and a stream no longer writable gets nothing. A frame's bytes move the cursor only
// where it is not known to be, hide it around changed cells, and are empty for a frame that changed
// nothing and keeps the cursor where it was.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { frameBytes, FrameWriter, type FrameOutput } from '../../src/ui/frame-write.js';
import { waitFor } from '../helpers/team.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A stream that records what reaches it, with the TTY facts and queue length the test gives it. */
function stream(facts: { isTTY?: boolean; fd?: number; writableLength?: number; writable?: boolean } = {}): FrameOutput & { got: string[] } {
  const got: string[] = [];
  return {
    isTTY: true,
    fd: 7,
    writableLength: 0,
    writable: true,
    ...facts,
    got,
    write(chunk: string | Uint8Array) {
      got.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    },
  };
}

/** write(2) as the test plays it: takes at most `take` bytes, or throws `fail`; records what it took. */
function descriptor(behaviour: { take?: number; fail?: string } = {}): { write: (fd: number, bytes: Uint8Array) => number; took: string[]; fds: number[] } {
  const took: string[] = [];
  const fds: number[] = [];
  return {
    took,
    fds,
    write(fd, bytes) {
      fds.push(fd);
      if (behaviour.fail) throw Object.assign(new Error(behaviour.fail), { code: behaviour.fail });
      const n = Math.min(bytes.length, behaviour.take ?? bytes.length);
      took.push(Buffer.from(bytes.subarray(0, n)).toString('utf8'));
      return n;
    },
  };
}

describe('FrameWriter', () => {
  it('frame-write.a-tty-gets-frames-on-its-descriptor-in-order-with-the-stream', async () => {
    // The child writes through stdout (the stream), then frames, then the stream again; the last frame
    // is larger than a pty's buffer, so its write(2) blocks until this process has read its start.
    const big = 'x'.repeat(256 * 1024);
    const script = `
      import { FrameWriter } from ${JSON.stringify(path.join(REPO, 'dist', 'ui', 'frame-write.js'))};
      const w = new FrameWriter(process.stdout);
      process.stdout.write('<stream-1 direct=' + w.direct + '>');
      w.write('<frame-1 é>');
      process.stdout.write('<stream-2>');
      w.write('<frame-2>');
      w.write('<big>' + 'x'.repeat(${big.length}) + '</big>');
      process.stdout.write('<end>');
      // Exit only once the test has read it all: node-pty drops what is unread 200 ms after an exit.
      process.stdin.on('end', () => process.exit(0)).resume();
    `;
    const term = pty.spawn(process.execPath, ['--input-type=module', '-e', script], { cols: 80, rows: 24, cwd: REPO, env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string> });
    let out = '';
    let exit: number | null = null;
    term.onData((d) => (out += d));
    term.onExit((e) => (exit = e.exitCode));
    cleanups.push(() => {
      if (exit === null) term.kill('SIGKILL');
    });
    await waitFor(() => out.includes('<end>'), 'the child to write everything', 60_000);
    // the pty's line discipline turns nothing here into anything else (no newlines are written)
    expect(out.slice(0, out.indexOf('<end>') + 5)).toBe(`<stream-1 direct=true><frame-1 é><stream-2><frame-2><big>${big}</big><end>`);
    term.write('\x04');
    await waitFor(() => exit !== null, 'the child to exit at the end of its input', 60_000);
    expect(exit).toBe(0);
  });

  it('frame-write.a-short-write-sends-the-rest-through-the-stream', () => {
    const out = stream();
    const fd = descriptor({ take: 4 });
    new FrameWriter(out, fd.write).write('hello, world');
    expect(fd.fds).toEqual([7]);
    expect(fd.took).toEqual(['hell']);
    expect(out.got).toEqual(['o, world']);
  });

  it('frame-write.eagain-or-an-error-hands-the-whole-frame-to-the-stream', () => {
    for (const code of ['EAGAIN', 'EIO']) {
      const out = stream();
      const fd = descriptor({ fail: code });
      new FrameWriter(out, fd.write).write('frame');
      expect(fd.fds, code).toEqual([7]);
      expect(out.got, code).toEqual(['frame']);
    }
  });

  it('frame-write.bytes-queued-in-the-stream-keep-the-frame-behind-them', () => {
    const out = stream({ writableLength: 10 });
    const fd = descriptor();
    new FrameWriter(out, fd.write).write('frame');
    expect(fd.fds).toEqual([]);
    expect(out.got).toEqual(['frame']);
  });

  it('frame-write.not-a-tty-or-no-descriptor-writes-through-the-stream', () => {
    for (const facts of [{ isTTY: false }, { fd: undefined }, { fd: -1 }]) {
      const out = stream(facts);
      const fd = descriptor();
      const writer = new FrameWriter(out, fd.write);
      expect(writer.direct).toBe(false);
      writer.write('frame');
      expect(fd.fds).toEqual([]);
      expect(out.got).toEqual(['frame']);
    }
  });

  it('frame-write.nothing-is-written-to-a-closed-stream-or-for-an-empty-frame', () => {
    const closed = stream({ writable: false });
    const fd = descriptor();
    new FrameWriter(closed, fd.write).write('frame');
    const open = stream();
    new FrameWriter(open, fd.write).write('');
    expect(fd.fds).toEqual([]);
    expect([...closed.got, ...open.got]).toEqual([]);
  });
});

describe('frameBytes', () => {
  const codes = { hide: '<hide>', show: '<show>' };

  it('frame-bytes.cells-hide-the-cursor-then-it-is-placed-and-shown', () => {
    const shown = { x: 4, y: 2, hidden: false };
    expect(frameBytes('', '<k>', { x: 5, y: 2 }, shown, codes)).toBe('<hide><k>\x1b[3;6H<show>');
    expect(shown).toEqual({ x: 5, y: 2, hidden: false });
  });

  it('frame-bytes.an-echo-at-the-cursor-is-the-characters-alone', () => {
    const shown = { x: 4, y: 2, hidden: false };
    // "k" typed where the cursor is shown; the cursor ends just after it: no hide, move or show
    expect(frameBytes('', '\x1b[3;5Hk', { x: 5, y: 2 }, shown, codes)).toBe('k');
    expect(shown).toEqual({ x: 5, y: 2, hidden: false });
    // a pasted word the same way
    expect(frameBytes('', '\x1b[3;6Hls -l', { x: 10, y: 2 }, shown, codes)).toBe('ls -l');
    expect(shown).toEqual({ x: 10, y: 2, hidden: false });
  });

  it('frame-bytes.anything-else-is-drawn-with-the-cursor-hidden-and-placed', () => {
    const echo = (cells: string, cursor: { x: number; y: number }, at = { x: 4, y: 2, hidden: false }, queued = ''): string => frameBytes(queued, cells, cursor, { ...at }, codes);
    // not where the cursor is shown
    expect(echo('\x1b[3;9Hk', { x: 9, y: 2 })).toBe('<hide>\x1b[3;9Hk\x1b[3;10H<show>');
    // the cursor does not end just after it (an application that moved it)
    expect(echo('\x1b[3;5Hk', { x: 0, y: 3 })).toBe('<hide>\x1b[3;5Hk\x1b[4;1H<show>');
    // a colour, a second row, a non-ASCII character
    expect(echo('\x1b[3;5H\x1b[31mk\x1b[m', { x: 5, y: 2 })).toBe('<hide>\x1b[3;5H\x1b[31mk\x1b[m\x1b[3;6H<show>');
    expect(echo('\x1b[3;5Hk\x1b[9;1Hz', { x: 5, y: 2 })).toBe('<hide>\x1b[3;5Hk\x1b[9;1Hz\x1b[3;6H<show>');
    expect(echo('\x1b[3;5H\u00e9', { x: 5, y: 2 })).toBe('<hide>\x1b[3;5H\u00e9\x1b[3;6H<show>');
    // the cursor hidden, or not known, or blessed queued something
    expect(echo('\x1b[3;5Hk', { x: 5, y: 2 }, { x: 4, y: 2, hidden: true })).toBe('\x1b[3;5Hk\x1b[3;6H<show>');
    expect(echo('\x1b[3;5Hk', { x: 5, y: 2 }, { x: -1, y: 2, hidden: false })).toBe('<hide>\x1b[3;5Hk\x1b[3;6H<show>');
    expect(echo('\x1b[3;5Hk', { x: 5, y: 2 }, { x: 4, y: 2, hidden: false }, '<title>')).toBe('<title><hide>\x1b[3;5Hk\x1b[3;6H<show>');
  });

  it('frame-bytes.nothing-changed-and-the-cursor-stays-sends-nothing', () => {
    const shown = { x: 5, y: 2, hidden: false };
    expect(frameBytes('', '', { x: 5, y: 2 }, shown, codes)).toBe('');
    // the cursor moved only: one move
    expect(frameBytes('', '', { x: 0, y: 9 }, shown, codes)).toBe('\x1b[10;1H');
    // hidden, then shown again where it is: no move, only shown
    expect(frameBytes('', '', null, shown, codes)).toBe('<hide>');
    expect(frameBytes('', '', null, shown, codes)).toBe('');
    expect(frameBytes('', '', { x: 0, y: 9 }, shown, codes)).toBe('<show>');
    expect(shown).toEqual({ x: 0, y: 9, hidden: false });
  });

  it('frame-bytes.what-blessed-queued-goes-first-and-the-cursor-is-placed-again-after-it', () => {
    const shown = { x: 5, y: 2, hidden: false };
    expect(frameBytes('<title>', '', { x: 5, y: 2 }, shown, codes)).toBe('<title>\x1b[3;6H');
    // cells with the cursor already hidden: not hidden again
    const hidden = { x: -1, y: -1, hidden: true };
    expect(frameBytes('', '<cells>', null, hidden, codes)).toBe('<cells>');
    expect(hidden.hidden).toBe(true);
  });
});
