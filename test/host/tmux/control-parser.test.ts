import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ControlParser, decodeOctal, type ControlEvent } from '../../../src/host/tmux/control-parser.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/tmux');
const transcript = (name: string): Buffer => readFileSync(join(fixtures, `${name}.txt`));
const commands = (name: string): string[] =>
  readFileSync(join(fixtures, `${name}.commands.txt`), 'utf8').split('\n').slice(0, -1);

function parseAll(chunks: Uint8Array[]): ControlEvent[] {
  const parser = new ControlParser();
  return [...chunks.flatMap((chunk) => parser.feed(chunk)), ...parser.end()];
}

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
const blocks = (events: ControlEvent[]) => events.filter((e) => e.type === 'block');
const withoutBlocks = (events: ControlEvent[]) => events.filter((e) => e.type !== 'block');

describe('control parser on recorded tmux 3.3a transcripts', () => {
  it('session: one reply block per command, in the order the commands were sent', () => {
    const events = parseAll([transcript('session')]);
    const replies = blocks(events).filter((b) => b.flags === 1);
    expect(replies).toHaveLength(commands('session').length);
    expect(replies.map((b) => [b.ok, b.lines])).toEqual([
      [true, ['%1 @1']],
      [true, ['rec idle']],
      [true, ['0:idle', '1:out']],
      [false, ['parse error: unknown command: bogus-command']],
      [false, ["can't find window: nosuchwindow"]],
      // tmux writes %pause/%continue while the command runs, so they sit inside its block.
      [true, ['%pause %1']],
      [true, ['%continue %1']],
      [true, []],
      [true, []],
    ]);
    expect(new Set(replies.map((b) => b.number)).size).toBe(replies.length);
  });

  it('session: the attach reply is the one block flagged 0, and comes first', () => {
    const events = parseAll([transcript('session')]);
    expect(events[0]).toMatchObject({ type: 'block', ok: true, flags: 0, lines: [] });
    expect(blocks(events).filter((b) => b.flags === 0)).toHaveLength(1);
  });

  it('session: %output is decoded to the exact bytes the pane wrote', () => {
    const output = parseAll([transcript('session')]).filter((e) => e.type === 'output');
    expect(output).toHaveLength(1);
    expect(output[0]).toMatchObject({ paneId: '%1' });
    const data = Buffer.from((output[0] as { data: Uint8Array }).data);
    expect(data).toEqual(bytes('héllo \x1b[31mred\x1b[0m back\\slash\ttab 漢字\x07\r\n'));
  });

  it('session: notifications come out in wire order and end with %exit', () => {
    const types = withoutBlocks(parseAll([transcript('session')])).map((e) => e.type);
    expect(types).toEqual(['session-changed', 'window-add', 'output', 'unlinked-window-close', 'sessions-changed', 'exit']);
  });

  it('exit-status: subscription reports carry the dead pane and its status', () => {
    const events = withoutBlocks(parseAll([transcript('exit-status')]));
    expect(events).toContainEqual({
      type: 'subscription-changed',
      name: 'dead',
      sessionId: '$0',
      windowId: '@1',
      windowIndex: '1',
      paneId: '%1',
      value: '1 3 ',
    });
    expect(events).toContainEqual({
      type: 'layout-change',
      windowId: '@1',
      layout: '9f9e,50x10,0,0,1',
      visibleLayout: '9f9e,50x10,0,0,1',
      windowFlags: '',
    });
    expect(events.at(-1)).toEqual({ type: 'exit', reason: undefined });
    const list = blocks(parseAll([transcript('exit-status')])).at(-1);
    expect(list?.lines).toEqual(['%0 0 ', '%1 1 3']);
  });

  it('attach-no-server: the attach fails with an %error block flagged 0, then %exit', () => {
    expect(parseAll([transcript('attach-no-server')])).toEqual([
      { type: 'block', ok: false, time: expect.any(Number), number: expect.any(Number), flags: 0, lines: ['no sessions'] },
      { type: 'exit', reason: undefined },
    ]);
  });

  it('produces the same events however the transcript is split', () => {
    for (const name of ['session', 'exit-status']) {
      const whole = transcript(name);
      const expected = parseAll([whole]);
      for (let cut = 1; cut < whole.length; cut++) {
        expect(parseAll([whole.subarray(0, cut), whole.subarray(cut)])).toEqual(expected);
      }
      const byteByByte = Array.from(whole, (_, i) => whole.subarray(i, i + 1));
      expect(parseAll(byteByByte)).toEqual(expected);
    }
  });
});

describe('control parser edge cases', () => {
  const outputOf = (events: ControlEvent[]) =>
    Buffer.concat(events.filter((e) => e.type === 'output').map((e) => (e as { data: Uint8Array }).data));

  it('decodes an escape split across chunks', () => {
    expect(outputOf(parseAll([bytes('%output %0 a\\0'), bytes('33[1mb\n')]))).toEqual(bytes('a\x1b[1mb'));
  });

  it('keeps multi-byte UTF-8 sent as octal escapes and split across chunks', () => {
    const events = parseAll([bytes('%output %7 \\303'), bytes('\\251\\342\\224'), bytes('\\200!\n')]);
    expect(outputOf(events).toString('utf8')).toBe('é─!');
  });

  it('keeps raw multi-byte UTF-8 split inside a character', () => {
    const line = bytes('%output %2 漢字\n');
    expect(outputOf(parseAll([line.subarray(0, 13), line.subarray(13)])).toString('utf8')).toBe('漢字');
  });

  it('decodes \\134 to one backslash and leaves malformed escapes alone', () => {
    expect(Buffer.from(decodeOctal(bytes('a\\134b\\9x\\12')))).toEqual(bytes('a\\b\\9x\\12'));
  });

  it('accepts CRLF as well as LF line endings', () => {
    const events = parseAll([bytes('%begin 1 2 1\r\nline\r\n%end 1 2 1\r\n%output %0 x\\015\r\n')]);
    expect(events).toEqual([
      { type: 'block', ok: true, time: 1, number: 2, flags: 1, lines: ['line'] },
      { type: 'output', paneId: '%0', data: new Uint8Array([0x78, 0x0d]) },
    ]);
  });

  it('only closes a block on the guard that opened it', () => {
    const events = parseAll([bytes('%begin 5 9 1\n%end 4 8 1\n%error 5 9 0\ntext\n%end 5 9 1\n')]);
    expect(events).toEqual([
      { type: 'block', ok: true, time: 5, number: 9, flags: 1, lines: ['%end 4 8 1', '%error 5 9 0', 'text'] },
    ]);
  });

  it('reports garbage and unknown notifications instead of throwing', () => {
    const events = parseAll([
      bytes('hello there\n%future-thing a b\n%output nopane\n%window-add\n%begin x y z\n\n%sessions-changed\n'),
    ]);
    expect(events).toEqual([
      { type: 'garbage', line: 'hello there' },
      { type: 'notification', name: 'future-thing', args: 'a b' },
      { type: 'garbage', line: '%output nopane' },
      { type: 'garbage', line: '%window-add' },
      { type: 'notification', name: 'begin', args: 'x y z' },
      { type: 'garbage', line: '' },
      { type: 'sessions-changed' },
    ]);
  });

  it('parses the remaining notifications', () => {
    const events = parseAll([
      bytes(
        [
          '%extended-output %3 42 : hi\\015',
          '%window-renamed @2 my window',
          '%session-changed $1 team a',
          '%client-session-changed /dev/pts/3 $1 team',
          '%session-window-changed $1 @2',
          '%window-pane-changed @2 %5',
          '%pane-mode-changed %5',
          '%window-close @2',
          '%unlinked-window-add @9',
          '%client-detached client-7',
          '%exit too far behind',
          '',
        ].join('\n'),
      ),
    ]);
    expect(events).toEqual([
      { type: 'extended-output', paneId: '%3', age: 42, data: new Uint8Array([0x68, 0x69, 0x0d]) },
      { type: 'window-renamed', windowId: '@2', name: 'my window' },
      { type: 'session-changed', sessionId: '$1', name: 'team a' },
      { type: 'client-session-changed', client: '/dev/pts/3', sessionId: '$1', name: 'team' },
      { type: 'session-window-changed', sessionId: '$1', windowId: '@2' },
      { type: 'window-pane-changed', windowId: '@2', paneId: '%5' },
      { type: 'pane-mode-changed', paneId: '%5' },
      { type: 'window-close', windowId: '@2' },
      { type: 'unlinked-window-add', windowId: '@9' },
      { type: 'client-detached', client: 'client-7' },
      { type: 'exit', reason: 'too far behind' },
    ]);
  });

  it('reports a truncated last line and an unterminated block at end of stream', () => {
    const parser = new ControlParser();
    expect(parser.feed(bytes('%begin 1 1 1\npartial'))).toEqual([]);
    expect(parser.end()).toEqual([
      { type: 'garbage', line: 'partial' },
      { type: 'garbage', line: '%begin 1 1 1 (unterminated)' },
    ]);
  });

  it('does not keep a reference to the caller’s chunk', () => {
    const parser = new ControlParser();
    const chunk = bytes('%output %1 ab');
    parser.feed(chunk);
    chunk.fill(0x7a);
    expect(outputOf(parser.feed(bytes('c\n')))).toEqual(bytes('abc'));
  });

  it('buffers a huge unterminated line in time linear in its length', () => {
    // A pane that prints megabytes without a newline arrives as one %output line in many chunks.
    // Reference in the same run: the same bytes and chunks, but every chunk a complete line. A
    // parser that re-joins (or re-scans) the buffered part on every chunk is quadratic and blows the
    // bound by orders of magnitude (61 s for 115 MiB was measured before the fix).
    const CHUNK = 1024;
    const CHUNKS = 8192; // 8 MiB in all
    const body = new Uint8Array(CHUNK).fill(0x61);
    const line = (): number => {
      const parser = new ControlParser();
      const t0 = performance.now();
      parser.feed(bytes('%output %1 '));
      for (let i = 0; i < CHUNKS; i++) parser.feed(body);
      const events = parser.feed(bytes('\n'));
      const ms = performance.now() - t0;
      expect(events).toHaveLength(1);
      expect(outputOf(events).length).toBe(CHUNK * CHUNKS);
      return ms;
    };
    const reference = (): number => {
      const parser = new ControlParser();
      const terminated = new Uint8Array(CHUNK);
      terminated.set(bytes('%output %1 '));
      terminated.fill(0x61, 11, CHUNK - 1);
      terminated[CHUNK - 1] = 0x0a;
      const t0 = performance.now();
      let n = 0;
      for (let i = 0; i < CHUNKS; i++) n += parser.feed(terminated).length;
      const ms = performance.now() - t0;
      expect(n).toBe(CHUNKS);
      return ms;
    };
    const median = (f: () => number): number => [f(), f(), f()].sort((a, b) => a - b)[1]!;
    const ref = median(reference);
    const long = median(line);
    console.log(`control parser: 8 MiB unterminated line in 1 KiB chunks ${long.toFixed(1)} ms, same bytes as 8192 lines ${ref.toFixed(1)} ms, ratio ${(long / ref).toFixed(2)}`);
    expect(long).toBeLessThan(ref * 10);
  });
});
