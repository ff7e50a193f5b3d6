import { afterEach, describe, expect, it } from 'vitest';
import type { PaneTerminal } from '../../src/vt/terminal.js';
import { replay } from './helpers.js';
import { Mirror, expectSameCells } from './mirror.js';

const cleanup: { dispose(): void }[] = [];
afterEach(() => {
  for (const item of cleanup.splice(0)) item.dispose();
});
async function lessAt(step: string): Promise<PaneTerminal> {
  const term = await replay('less', step);
  cleanup.push(term);
  return term;
}
const line = (n: number): string => `line ${String(n).padStart(3, '0')} of the less fixture: lorem ipsum dolor sit amet`;

describe('less (recorded, less long.txt at 80x24)', () => {
  it('open.shows-first-page-and-filename-prompt', async () => {
    const term = await lessAt('open');
    const text = term.snapshotText();
    expect(text.slice(0, 23)).toEqual(Array.from({ length: 23 }, (_, i) => line(i + 1)));
    expect(text[23]).toBe('long.txt');
    expect(term.readRow(23)[0]!.attr >> 18).toBe(8); // inverse prompt
    expect(term.modes.alternateScreen).toBe(true);
  });

  it('page.space-shows-next-page', async () => {
    const term = await lessAt('page');
    const text = term.snapshotText();
    expect(text[0]).toBe(line(24));
    expect(text[22]).toBe(line(46));
    expect(text[23]).toBe(':');
  });

  it('end.G-shows-last-page-and-END', async () => {
    const term = await lessAt('end');
    const text = term.snapshotText();
    expect(text[22]).toBe(line(100));
    expect(text[23]).toBe('(END)');
  });

  it('quit.restores-main-screen', async () => {
    const term = await lessAt('quit');
    expect(term.modes.alternateScreen).toBe(false);
    expect(term.snapshotText().every((row) => row === '')).toBe(true);
  });

  it('paint.round-trips-through-blessed-incrementally', async () => {
    const mirror = new Mirror(80, 24);
    cleanup.push(mirror);
    for (const step of ['open', 'page', 'end']) {
      const term = await lessAt(step);
      await mirror.sync(term);
      expectSameCells(mirror.receiver, term);
    }
  });
});
