// The blessed Surface on a terminal stream: a frame's flush sends the changed cells and the cursor
// to the terminal in the same turn of the event loop (a key's echo must not wait for blessed's
// buffered write on the next turn), and a real emulator fed with what was sent shows the painted
// cells with the cursor where the frame put it; a frame with nothing changed resends no cells.
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/host/clock.js';
import { TerminalScreen } from '../../src/ui/screen.js';
import { markChanged } from '../../src/ui/surface.js';
import { PaneTerminal } from '../../src/vt/terminal.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

/** A terminal whose output is recorded as it is written (synchronously). */
function tty(cols: number, rows: number): { input: NodeJS.ReadStream; output: NodeJS.WriteStream; sent: () => string; clear: () => void } {
  let sent = '';
  const input = Object.assign(new PassThrough(), { isTTY: true, isRaw: false, setRawMode(this: { isRaw: boolean }, on: boolean) { this.isRaw = on; return this; } });
  const output = Object.assign(new Writable({ write(chunk: Buffer, _enc, done) { sent += chunk.toString('utf8'); done(); } }), { isTTY: true, columns: cols, rows });
  return { input: input as unknown as NodeJS.ReadStream, output: output as unknown as NodeJS.WriteStream, sent: () => sent, clear: () => (sent = '') };
}

function paint(screen: TerminalScreen, x: number, y: number, text: string): void {
  const line = screen.lines[y]!;
  for (let i = 0; i < text.length; i++) {
    line[x + i]![0] = screen.blank;
    line[x + i]![1] = text[i]!;
  }
  markChanged(line, x, x + text.length - 1);
}

describe('TerminalScreen', () => {
  it('screen.flush-sends-the-frame-in-the-same-turn-and-only-what-changed', async () => {
    const cols = 40;
    const rows = 10;
    const t = tty(cols, rows);
    const screen = new TerminalScreen(t.input, t.output, 'test', systemClock);
    const shown = new PaneTerminal({ cols, rows, scrollback: 0 });
    cleanup.push(() => screen.destroy(), () => screen.restore(), () => shown.dispose());
    // the first frame draws the whole (blank) grid; let blessed's start-up writes go out
    screen.flush(null);
    await new Promise((resolve) => setImmediate(resolve));
    await shown.writeAsync(t.sent());
    t.clear();

    paint(screen, 3, 2, 'hello');
    screen.flush({ x: 8, y: 2 });
    // no await: the frame is on the terminal already
    const frame = t.sent();
    expect(frame).toContain('hello');
    expect(frame).toContain('\x1b[3;9H');
    await shown.writeAsync(frame);
    expect(shown.snapshotText()[2]).toBe('   hello');
    expect(shown.cursor).toMatchObject({ x: 8, y: 2, visible: true });

    // the echo of one key: one cell, and the cursor after it
    t.clear();
    paint(screen, 8, 2, '!');
    screen.flush({ x: 9, y: 2 });
    const echo = t.sent();
    expect(echo).toContain('!');
    expect(echo).not.toContain('hello');
    await shown.writeAsync(echo);
    expect(shown.snapshotText()[2]).toBe('   hello!');
    expect(shown.cursor).toMatchObject({ x: 9, y: 2, visible: true });

    // nothing changed: no cells are sent again, and the cursor can be hidden
    t.clear();
    screen.flush(null);
    expect(t.sent()).not.toMatch(/hello|!/);
    await shown.writeAsync(t.sent());
    expect(shown.cursor.visible).toBe(false);
    // nothing is left for a later turn either
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.sent()).not.toMatch(/hello|!/);
  });
});
