import { afterEach, describe, expect, it } from 'vitest';
import type { PaneTerminal } from '../../src/vt/terminal.js';
import { replay } from './helpers.js';
import { Mirror, expectSameCells } from './mirror.js';

const cleanup: { dispose(): void }[] = [];
afterEach(() => {
  for (const item of cleanup.splice(0)) item.dispose();
});
async function vimAt(step: string): Promise<PaneTerminal> {
  const term = await replay('vim', step);
  cleanup.push(term);
  return term;
}

const FILE = [
  'teamux fixture file',
  'The quick brown fox jumps over the lazy dog.',
  'second paragraph: alpha beta gamma',
  '  indented line with tabs       and     spaces',
  'last line',
];

describe('vim (recorded, vim -u NONE -N sample.txt at 80x24)', () => {
  it('open.shows-file-tildes-and-file-message', async () => {
    const term = await vimAt('open');
    const text = term.snapshotText();
    expect(text.slice(0, 5)).toEqual(FILE);
    expect(text.slice(5, 23)).toEqual(Array(18).fill('~'));
    expect(text[23]).toMatch(/^"sample\.txt" 5L, \d+B$/);
    expect(term.modes.alternateScreen).toBe(true);
    expect(term.modes.bracketedPaste).toBe(true);
    expect(term.modes.applicationCursorKeys).toBe(true);
    expect(term.cursor).toEqual({ x: 0, y: 0, visible: true });
  });

  it('open.tilde-lines-carry-vim-colour', async () => {
    const term = await vimAt('open');
    const tilde = term.readRow(5)[0]!;
    expect(tilde.ch).toBe('~');
    expect((tilde.attr >> 9) & 0x1ff).toBe(12); // bright blue, CSI 94 m
  });

  it('insert.shows-typed-line-and-mode', async () => {
    const term = await vimAt('insert');
    const text = term.snapshotText();
    expect(text[5]).toBe('teamux was here');
    expect(text[23]).toBe('-- INSERT --');
    expect(term.readRow(23)[0]!.attr >> 18).toBe(1); // bold
    expect(term.cursor).toMatchObject({ x: 15, y: 5 });
  });

  it('quit.leaves-alternate-screen-and-restores-shell-text', async () => {
    const term = await vimAt('quit');
    expect(term.modes.alternateScreen).toBe(false);
    expect(term.modes.bracketedPaste).toBe(false);
    expect(term.snapshotText()[0]).toBe('shell line before vim');
    expect(term.snapshotText().slice(1).every((row) => row === '')).toBe(true);
  });

  it('paint.round-trips-through-blessed-each-step', async () => {
    const mirror = new Mirror(80, 24);
    cleanup.push(mirror);
    for (const step of ['open', 'insert', 'normal', 'quit']) {
      const term = await vimAt(step);
      await mirror.sync(term);
      expectSameCells(mirror.receiver, term);
    }
  });
});
