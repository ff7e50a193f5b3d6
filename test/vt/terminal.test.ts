import { afterEach, describe, expect, it } from 'vitest';
import { ATTR_DEFAULT } from '../../src/vt/attr.js';
import { PaneTerminal } from '../../src/vt/terminal.js';
import { waitFor } from './helpers.js';

const terms: PaneTerminal[] = [];
function make(cols = 20, rows = 5, scrollback = 100): PaneTerminal {
  const term = new PaneTerminal({ cols, rows, scrollback });
  terms.push(term);
  return term;
}
afterEach(() => {
  for (const term of terms.splice(0)) term.dispose();
});

describe('PaneTerminal', () => {
  it('write.parses-bytes-and-strings-into-screen-text', async () => {
    const term = make();
    await term.writeAsync('hello\r\n');
    await term.writeAsync(new TextEncoder().encode('wörld'));
    expect(term.snapshotText()).toEqual(['hello', 'wörld', '', '', '']);
  });

  it('write.parses-at-once-when-nothing-is-queued', () => {
    const term = make();
    let parsed = false;
    // No await: a write with nothing queued ahead of it is parsed inside write(), as tmux's read callback does.
    term.write('now\r\n', () => (parsed = true));
    expect(parsed).toBe(true);
    expect(term.pendingBytes).toBe(0);
    expect(term.snapshotText()[0]).toBe('now');
  });

  it('write.tracks-pending-bytes-until-parsed', async () => {
    const term = make();
    // Screen clears cost a screenful each: enough of them pause the parser for a turn (limits.ts),
    // so what is written next waits in the queue and is counted until parsed.
    const costly = '\x1b[2J'.repeat(2_000);
    term.write(costly);
    expect(term.parserPauses).toBeGreaterThan(0);
    const queuedAhead = term.pendingBytes;
    expect(queuedAhead).toBeGreaterThan(0);
    let parsed = false;
    term.write('x'.repeat(1000), () => (parsed = true));
    expect(term.pendingBytes).toBe(queuedAhead + 1000);
    expect(parsed).toBe(false);
    term.write(new Uint8Array(24).fill(0x41));
    expect(term.pendingBytes).toBe(queuedAhead + 1024);
    await waitFor(() => term.pendingBytes === 0, 2000, 'backlog drained');
    expect(parsed).toBe(true);
    expect(term.snapshotText()[0]).toBe('x'.repeat(20));
  });

  it('reply.answers-device-attributes-and-cursor-position', async () => {
    const term = make();
    const replies: string[] = [];
    term.onReply((data) => replies.push(data));
    await term.writeAsync('ab\x1b[3;5H\x1b[c\x1b[6n');
    expect(replies[0]).toMatch(/^\x1b\[\?[\d;]+c$/);
    expect(replies[1]).toBe('\x1b[3;5R');
  });

  it('reply.listener-stops-after-dispose', async () => {
    const term = make();
    const replies: string[] = [];
    const subscription = term.onReply((data) => replies.push(data));
    subscription.dispose();
    await term.writeAsync('\x1b[6n');
    expect(replies).toEqual([]);
  });

  it('alternate-screen.leave-restores-main-screen', async () => {
    const term = make();
    await term.writeAsync('main 1\r\nmain 2');
    expect(term.modes.alternateScreen).toBe(false);
    await term.writeAsync('\x1b[?1049h\x1b[H\x1b[2Jfull screen app');
    expect(term.modes.alternateScreen).toBe(true);
    expect(term.snapshotText()[0]).toBe('full screen app');
    expect(term.snapshotText()).not.toContain('main 1');
    await term.writeAsync('\x1b[?1049l');
    expect(term.modes.alternateScreen).toBe(false);
    expect(term.snapshotText().slice(0, 2)).toEqual(['main 1', 'main 2']);
    expect(term.cursor).toMatchObject({ x: 6, y: 1, visible: true });
  });

  it('resize.changes-size-and-rewraps-nothing-lost', async () => {
    const term = make(10, 3);
    await term.writeAsync('0123456789\r\nabc');
    term.resize(20, 6);
    expect([term.cols, term.rows]).toEqual([20, 6]);
    const text = term.snapshotText();
    expect(text).toHaveLength(6);
    expect(text.join('\n')).toContain('abc');
    expect(term.readRow(0)).toHaveLength(20);
    await term.writeAsync('\x1b[6;20Hz');
    expect(term.snapshotText()[5]).toBe(' '.repeat(19) + 'z');
  });

  it('scrollback.viewport-moves-through-history-and-back', async () => {
    const term = make(20, 5);
    for (let i = 1; i <= 12; i++) await term.writeAsync(`line ${i}\r\n`);
    expect(term.snapshotText()).toEqual(['line 9', 'line 10', 'line 11', 'line 12', '']);
    expect(term.isScrolledBack).toBe(false);
    term.scrollBy(-3);
    expect(term.isScrolledBack).toBe(true);
    expect(term.scrollOffset).toBe(3);
    expect(term.snapshotText()[0]).toBe('line 6');
    expect(term.readRow(0).map((c) => c.ch).join('').trimEnd()).toBe('line 6');
    expect(term.cursor.visible).toBe(false);
    await term.writeAsync('more\r\n');
    expect(term.isScrolledBack).toBe(true);
    expect(term.snapshotText()[0]).toBe('line 6');
    term.scrollToBottom();
    expect(term.isScrolledBack).toBe(false);
    expect(term.snapshotText()).toEqual(['line 10', 'line 11', 'line 12', 'more', '']);
    expect(term.cursor).toEqual({ x: 0, y: 4, visible: true });
  });

  it('modes.bracketed-paste-and-application-cursor-keys', async () => {
    const term = make();
    expect(term.modes.bracketedPaste).toBe(false);
    expect(term.modes.applicationCursorKeys).toBe(false);
    await term.writeAsync('\x1b[?2004h\x1b[?1h\x1b=');
    expect(term.modes).toMatchObject({ bracketedPaste: true, applicationCursorKeys: true, applicationKeypad: true });
    // the key path's own read of DECCKM (from xterm's core) agrees with the modes object
    expect(term.applicationCursorKeys).toBe(true);
    await term.writeAsync('\x1b[?2004l\x1b[?1l');
    expect(term.modes).toMatchObject({ bracketedPaste: false, applicationCursorKeys: false });
    expect(term.applicationCursorKeys).toBe(false);
  });

  it('modes.mouse-tracking-and-sgr-encoding', async () => {
    const term = make();
    expect(term.modes).toMatchObject({ mouseTracking: 'none', mouseEncoding: 'default' });
    await term.writeAsync('\x1b[?1000h');
    expect(term.modes.mouseTracking).toBe('vt200');
    await term.writeAsync('\x1b[?1002h\x1b[?1006h');
    expect(term.modes).toMatchObject({ mouseTracking: 'drag', mouseEncoding: 'sgr' });
    await term.writeAsync('\x1b[?1003h');
    expect(term.modes.mouseTracking).toBe('any');
    await term.writeAsync('\x1b[?1003l\x1b[?1006l');
    expect(term.modes).toMatchObject({ mouseTracking: 'none', mouseEncoding: 'default' });
  });

  it('mouse.reports-are-encoded-by-the-emulator-only-when-asked', async () => {
    const term = make();
    const replies: string[] = [];
    term.onReply((data) => replies.push(data));
    expect(term.reportMouse({ col: 2, row: 1, button: 'left', action: 'press' })).toBe(false);
    await term.writeAsync('\x1b[?1000h\x1b[?1006h');
    expect(term.reportMouse({ col: 2, row: 1, button: 'left', action: 'press' })).toBe(true);
    expect(term.reportMouse({ col: 2, row: 1, button: 'left', action: 'release' })).toBe(true);
    expect(term.reportMouse({ col: 0, row: 0, button: 'wheel', action: 'up' })).toBe(true);
    expect(replies).toEqual(['\x1b[<0;3;2M', '\x1b[<0;3;2m', '\x1b[<64;1;1M']);
  });

  it('mouse.x10-encoding-comes-out-as-a-binary-reply', async () => {
    const term = make();
    const replies: [string, boolean][] = [];
    term.onReply((data, binary) => replies.push([data, binary]));
    await term.writeAsync('\x1b[?1000h');
    expect(term.modes.mouseEncoding).toBe('default');
    term.reportMouse({ col: 2, row: 1, button: 'right', action: 'press' });
    expect(replies).toEqual([['\x1b[M' + String.fromCharCode(32 + 2, 32 + 3, 32 + 2), true]]);
  });

  it('focus.reports-only-in-focus-mode', async () => {
    const term = make();
    const replies: string[] = [];
    term.onReply((data) => replies.push(data));
    expect(term.reportFocus(true)).toBe(false);
    await term.writeAsync('\x1b[?1004h');
    expect(term.modes.sendFocus).toBe(true);
    term.reportFocus(true);
    term.reportFocus(false);
    expect(replies).toEqual(['\x1b[I', '\x1b[O']);
  });

  it('cursor.position-and-visibility', async () => {
    const term = make();
    await term.writeAsync('\x1b[2;4H');
    expect(term.cursor).toEqual({ x: 3, y: 1, visible: true });
    await term.writeAsync('\x1b[?25l');
    expect(term.cursor.visible).toBe(false);
    await term.writeAsync('\x1b[?25h\x1b[1;20Hx');
    expect(term.cursor).toEqual({ x: 19, y: 0, visible: true });
  });

  it('echo-ahead.plain-text-is-placed-only-where-it-will-be-printed-as-it-is', async () => {
    // [what the pane printed before, whether 'ab' would then be printed as it is at the cursor]
    const cases: Array<[string, boolean]> = [
      ['$ ', true],
      ['\x1b[31mred\x1b[m$ ', true],
      ['\x1b[31m', false], // a colour in effect
      ['\x1b[1m', false], // bold
      ['\x1b[4:3m', false], // an extended underline style
      ['\x1b[58;5;1m', true], // an underline colour alone: nothing is underlined, the cells stay default
      ['\x1b[4h', false], // insert mode
      ['\x1b[4h\x1b[4l', true],
      ['\x1b(0', false], // DEC special graphics: letters become line drawing
      ['\x1b(0\x1b(B', true],
      ['\x1b', false], // between an escape and the rest of its sequence
      ['\x1b[', false],
      ['\x1b]0;title', false], // inside an OSC string
      ['\x1bP', false], // inside a DCS
      ['\x1b[?2026h', false], // inside a synchronized update
      ['\x1b[?2026h\x1b[?2026l', true],
      ['\x1b[1;18H', true], // 'ab' ends in column 19 of 20: the last column stays free
      ['\x1b[1;19H', false], // it would reach the last column
      ['\x1b[1;20Hx', false], // a wrap is pending
    ];
    for (const [before, plain] of cases) {
      const term = make(20, 5);
      await term.writeAsync(before);
      const at = term.plainPrintAt(2);
      expect(at !== null, JSON.stringify(before)).toBe(plain);
      if (!at) continue;
      // where it said, the text is what gets printed, in the default attribute, and the cursor follows it
      await term.writeAsync('ab');
      const row = term.readRow(at.y);
      expect(row.slice(at.x, at.x + 2).map((c) => [c.ch, c.attr]), JSON.stringify(before)).toEqual([['a', ATTR_DEFAULT], ['b', ATTR_DEFAULT]]);
      expect(term.cursor, JSON.stringify(before)).toMatchObject({ x: at.x + 2, y: at.y });
    }
    // not while bytes wait to be parsed, or while the view is scrolled back
    const busy = make(20, 5);
    busy.write(`${'x'.repeat(300_000)}\r\n`);
    expect(busy.pendingBytes).toBeGreaterThan(0);
    expect(busy.plainPrintAt(1)).toBeNull();
    await waitFor(() => busy.pendingBytes === 0);
    expect(busy.plainPrintAt(1)).not.toBeNull();
    const back = make(20, 5);
    await back.writeAsync('line\r\n'.repeat(20));
    back.scrollBy(-3);
    expect(back.plainPrintAt(1)).toBeNull();
    back.scrollToBottom();
    expect(back.plainPrintAt(1)).toEqual({ x: 0, y: 4 });
  });

  it('title.reported-from-osc', async () => {
    const term = make();
    const titles: string[] = [];
    term.onTitle((title) => titles.push(title));
    await term.writeAsync('\x1b]2;build logs\x07');
    expect(titles).toEqual(['build logs']);
  });

  it('dispose.ignores-later-writes', async () => {
    const term = make();
    term.dispose();
    term.dispose();
    let called = false;
    term.write('late', () => (called = true));
    expect(term.pendingBytes).toBe(0);
    expect(called).toBe(false);
  });
});
