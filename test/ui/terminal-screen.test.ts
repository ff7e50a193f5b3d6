// The blessed Surface on a terminal stream: a frame's flush sends the changed cells and the cursor
// to the terminal in the same turn of the event loop (a key's echo must not wait for blessed's
// buffered write on the next turn), and a real emulator fed with what was sent shows the painted
// cells with the cursor where the frame put it; a frame with nothing changed resends no cells.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
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

/** A screen whose first frame (the whole, blank grid) and blessed's start-up writes have gone out, and an emulator fed with them. */
async function blankScreen(cols: number, rows: number): Promise<{ screen: TerminalScreen; t: ReturnType<typeof tty>; shown: PaneTerminal }> {
  const t = tty(cols, rows);
  const screen = new TerminalScreen(t.input, t.output, 'test', systemClock);
  const shown = new PaneTerminal({ cols, rows, scrollback: 0 });
  cleanup.push(() => screen.destroy(), () => screen.restore(), () => shown.dispose());
  screen.flush(null);
  await new Promise((resolve) => setImmediate(resolve));
  await shown.writeAsync(t.sent());
  t.clear();
  return { screen, t, shown };
}

/** A blank screen with a prompt drawn on row `at.y` and the cursor shown at `at`. */
async function started(cols: number, rows: number, at: { x: number; y: number }): Promise<{ screen: TerminalScreen; t: ReturnType<typeof tty>; shown: PaneTerminal }> {
  const s = await blankScreen(cols, rows);
  paint(s.screen, 0, at.y, 'prompt$');
  s.screen.flush(at);
  await s.shown.writeAsync(s.t.sent());
  s.t.clear();
  return s;
}

describe('TerminalScreen', () => {
  it('screen.flush-sends-the-frame-in-the-same-turn-and-only-what-changed', async () => {
    const { screen, t, shown } = await blankScreen(40, 10);

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

  it('screen.an-echo-ahead-is-the-bare-characters-and-the-frame-that-agrees-sends-nothing', async () => {
    const { screen, t, shown } = await started(40, 10, { x: 8, y: 2 });
    expect(screen.echoAt(8, 2, 'ls')).toBe(true);
    expect(t.sent(), 'written at once, as the characters alone').toBe('ls');
    await shown.writeAsync(t.sent());
    expect(shown.snapshotText()[2]).toBe('prompt$ ls');
    // the frame after the parse paints the same cells and puts the cursor where the echo left it
    t.clear();
    paint(screen, 8, 2, 'ls');
    screen.flush({ x: 10, y: 2 });
    expect(t.sent(), 'nothing to send').toBe('');
    // and a frame that disagrees (the pane printed something else there) redraws those cells
    paint(screen, 8, 2, 'l');
    const line = screen.lines[2]!;
    line[9]![1] = 'X';
    markChanged(line, 9, 9);
    screen.flush({ x: 10, y: 2 });
    await shown.writeAsync(t.sent());
    expect(shown.snapshotText()[2]).toBe('prompt$ lX');
    expect(shown.cursor).toMatchObject({ x: 10, y: 2, visible: true });
  });

  it('screen.an-echo-is-not-written-ahead-where-its-cells-are-not-known', async () => {
    const { screen, t, shown } = await started(40, 10, { x: 8, y: 2 });
    expect(screen.echoAt(9, 2, 'a'), 'the cursor is elsewhere').toBe(false);
    expect(screen.echoAt(8, 3, 'a'), 'another row').toBe(false);
    expect(screen.echoAt(8, 2, '\x1b[2J'), 'not printable ASCII').toBe(false);
    expect(screen.echoAt(8, 2, 'é'), 'not ASCII').toBe(false);
    expect(screen.echoAt(8, 2, 'x'.repeat(32)), 'it would reach the last column').toBe(false);
    expect(screen.echoAt(8, 2, ''), 'nothing to write').toBe(false);
    // a wide character just after the span: writing over its left half would cut it
    paint(screen, 10, 2, '漢');
    screen.lines[2]![11]![1] = '';
    screen.flush({ x: 8, y: 2 });
    t.clear();
    expect(screen.echoAt(8, 2, 'abc'), "a wide character's left half at the span's last cell").toBe(false);
    expect(screen.echoAt(8, 2, 'ab'), "the wide character's left half just after the span").toBe(true);
    t.clear();
    // the cursor hidden (an overlay, or the application hid it)
    screen.flush(null);
    t.clear();
    expect(screen.echoAt(10, 2, 'a')).toBe(false);
    expect(t.sent()).toBe('');
    // the cursor shown again; blessed has something queued for its next write
    screen.flush({ x: 10, y: 2 });
    (screen as unknown as { program: { _buf: string } }).program._buf = '\x1b[?25h';
    t.clear();
    expect(screen.echoAt(10, 2, 'a')).toBe(false);
    expect(t.sent()).toBe('');
    await shown.writeAsync('');
  });

  it('screen.no-echo-is-written-ahead-after-blessed-wrote-on-its-own', async () => {
    const { screen, t } = await started(40, 10, { x: 8, y: 2 });
    // a resize: blessed clears and redraws on its own, on the next turn, which homes the terminal's cursor
    Object.assign(t.output, { columns: 50, rows: 12 });
    t.output.emit('resize');
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.sent(), 'blessed wrote').not.toBe('');
    t.clear();
    expect(screen.echoAt(8, 2, 'a'), 'the cursor is no longer known to be there').toBe(false);
    expect(t.sent()).toBe('');
    // the next frame places it, and echoes are written ahead again
    screen.flush({ x: 8, y: 2 });
    t.clear();
    expect(screen.echoAt(8, 2, 'a')).toBe(true);
    expect(t.sent()).toBe('a');
  });

  it('screen.a-printable-key-typed-alone-is-offered-before-tokenizing', async () => {
    const { screen, t } = await started(40, 10, { x: 8, y: 2 });
    const taken: string[] = [];
    const tokens: string[] = [];
    let take = true;
    screen.onInput((tok) => tokens.push(tok.kind === 'key' ? tok.raw : tok.kind));
    const sub = screen.takePlainKeys((key) => {
      taken.push(key);
      return take;
    });
    const send = async (bytes: string | Buffer): Promise<void> => {
      t.input.write(bytes);
      await new Promise((resolve) => setImmediate(resolve));
    };
    await send('a');
    await send(' ');
    expect(taken).toEqual(['a', ' ']);
    expect(tokens).toEqual([]);
    // refused: the key takes the tokenizer's route
    take = false;
    await send('b');
    expect(taken).toEqual(['a', ' ', 'b']);
    expect(tokens).toEqual(['b']);
    take = true;
    // not offered: two keys at once, control keys, non-ASCII, a key inside a sequence or after half a UTF-8 character
    await send('cd');
    await send('\r');
    await send('é');
    await send('\x1b');
    await send('[A');
    await send(Buffer.from([0xc3]));
    await send(Buffer.from([0xa9]));
    await send('\x1b[200~');
    await send('x');
    await send('\x1b[201~');
    expect(taken).toEqual(['a', ' ', 'b']);
    expect(tokens).toEqual(['b', 'c', 'd', '\r', 'é', '\x1b[A', 'é', 'paste']);
    // once no longer wanted, nothing is offered
    sub.dispose();
    await send('z');
    expect(taken).toEqual(['a', ' ', 'b']);
    expect(tokens.at(-1)).toBe('z');
  });

  it('screen.made-inside-tmux-runs-no-tmux-child', () => {
    // blessed asks `tmux -V` (a synchronous child process) when $TMUX is set; a stand-in tmux first on
    // PATH records whether it was run
    const dir = mkdtempSync(path.join(tmpdir(), 'teamux-screen-tmux-'));
    const ran = path.join(dir, 'ran');
    writeFileSync(path.join(dir, 'tmux'), `#!/bin/sh\necho "$@" >> '${ran}'\necho 'tmux 3.3a'\n`, { mode: 0o755 });
    const saved = { TMUX: process.env.TMUX, PATH: process.env.PATH };
    process.env.TMUX = '/tmp/tmux-0/default,1,0';
    process.env.PATH = `${dir}:${process.env.PATH}`;
    try {
      const t = tty(40, 10);
      const screen = new TerminalScreen(t.input, t.output, 'test', systemClock);
      cleanup.push(() => screen.destroy(), () => screen.restore());
      expect(existsSync(ran), 'no tmux child was run').toBe(false);
      expect(process.env.TMUX, 'the variable is back').toBe('/tmp/tmux-0/default,1,0');
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
