import { describe, expect, it } from 'vitest';
import { parseSnapshot, renderSnapshot, snapshotSequence } from '../../../src/host/tmux/screen.js';

const flags = (overrides: Record<number, string> = {}): string => {
  const f = ['0', '0', '1', '0', '0', '0', '3', '0', '0', '0', '2', '0', '0', '0', '0', '0', '', ''];
  for (const [i, v] of Object.entries(overrides)) f[Number(i)] = v;
  return f.join(',');
};

describe('pane snapshots', () => {
  it('captures history only when asked to', () => {
    expect(snapshotSequence('%2', 0)[1]).toEqual(['capture-pane', '-p', '-e', '-t', '%2']);
    expect(snapshotSequence('%2', 50)[1]).toEqual(['capture-pane', '-p', '-e', '-t', '%2', '-S', '-50']);
  });

  it('replays history and screen with CRLF and puts the cursor back', () => {
    const snapshot = parseSnapshot([[flags({ 0: '4', 1: '1' })], ['old', '\x1b[31mred', 'ok', ''], [''], ['']]);
    expect(renderSnapshot(snapshot)).toBe('\x1b[0m\x1b[H\x1b[2Jold\r\n\x1b[31mred\r\nok\r\n\x1b[0m\x1b[2;5H');
  });

  it('rebuilds the normal screen behind an alternate screen, then the alternate one', () => {
    const snapshot = parseSnapshot([
      [flags({ 0: '1', 1: '2', 3: '1', 4: '3', 5: '1' })],
      ['hist', 'alt1', 'alt2', 'alt3'],
      ['norm1', 'norm2', ''],
      [''],
    ]);
    expect(renderSnapshot(snapshot)).toBe(
      '\x1b[0m\x1b[H\x1b[2Jhist\r\nnorm1\r\nnorm2\r\n\x1b[0m\x1b[2;4H\x1b[?1049h\x1b[H\x1b[2J' +
        'alt1\r\nalt2\r\nalt3\x1b[0m\x1b[3;2H',
    );
  });

  it('restores hidden cursor, scroll region, keypad and mouse modes, and a pending escape', () => {
    const snapshot = parseSnapshot([
      [flags({ 2: '0', 7: '1', 8: '1', 9: '1', 10: '1', 12: '1', 14: '1' })],
      ['a', 'b', 'c'],
      [''],
      ['\\033['],
    ]);
    expect(renderSnapshot(snapshot)).toBe(
      '\x1b[0m\x1b[H\x1b[2Ja\r\nb\r\nc\x1b[0m\x1b[2;2r\x1b[1;1H\x1b[?25l\x1b[?1h\x1b=\x1b[?1002h\x1b[?1006h\x1b[',
    );
  });

  it('reads the dead fields', () => {
    expect(parseSnapshot([[flags({ 15: '1', 16: '7' })], [], [], []]).dead).toEqual(['1', '7', '']);
  });
});
