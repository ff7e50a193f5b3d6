// Hostile escape sequences cannot hold the event loop: counts are clamped to the screen (with the
// same screen as the largest meaningful count), costly streams pause the parser for the event
// loop, one cell keeps a bounded cluster of combining marks, and xterm's logging stays off stderr.
import xtermHeadless from '@xterm/headless';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SEQUENCE_LIMITS, boundValue, clampParams } from '../../src/vt/limits.js';
import { PaneTerminal } from '../../src/vt/terminal.js';
import { MAX_CELL_CHARS } from '../../src/vt/xterm-internals.js';
import { FLAG_BOLD, attrBg, attrFg, attrFlags } from '../../src/vt/attr.js';

const unpackAttr = (attr: number): { flags: number; fg: number; bg: number } => ({ flags: attrFlags(attr), fg: attrFg(attr), bg: attrBg(attr) });

const COLS = 80;
const ROWS = 24;
const HUGE = 1_000_000_000;
const terms: PaneTerminal[] = [];
function make(cols = COLS, rows = ROWS): PaneTerminal {
  const term = new PaneTerminal({ cols, rows, scrollback: 200 });
  terms.push(term);
  return term;
}
afterEach(() => {
  for (const term of terms.splice(0)) term.dispose();
  vi.restoreAllMocks();
});

/** A screen with text on every row, a scroll region and the cursor mid-screen, then `seq`. */
async function screenAfter(seq: string): Promise<{ text: string[]; cursor: { x: number; y: number }; ms: number }> {
  const term = make();
  const rows = Array.from({ length: ROWS }, (_, y) => `row ${y} `.padEnd(COLS - 1, String.fromCharCode(97 + (y % 26))));
  await term.writeAsync(rows.join('\r\n') + '\x1b[12;40Hq');
  const start = performance.now();
  await term.writeAsync(seq);
  const ms = performance.now() - start;
  return { text: term.snapshotText(), cursor: term.cursor, ms };
}

function csi(params: string, limit: (typeof SEQUENCE_LIMITS)[number]): string {
  return `\x1b[${limit.id.prefix ?? ''}${params}${limit.id.intermediates ?? ''}${limit.id.final}`;
}

describe('escape sequence limits', () => {
  const counted = SEQUENCE_LIMITS.filter((l) => l.params && l.params.length > 0);

  for (const limit of counted) {
    it(`clamp.${limit.name}-with-a-huge-count-gives-the-screen-of-the-largest-useful-count`, async () => {
      const bounds = limit.params!.map((b) => boundValue(b, COLS, ROWS));
      const atLimit = await screenAfter(csi(bounds.join(';'), limit));
      const huge = await screenAfter(csi(bounds.map(() => HUGE).join(';'), limit));
      expect(huge.text).toEqual(atLimit.text);
      expect(huge.cursor).toEqual(atLimit.cursor);
      // Unclamped, these took 1.5 s to 51 s at 80x24; clamped they cost what the limit costs.
      expect(huge.ms).toBeLessThan(20 * atLimit.ms + 500);
    });
  }

  it('clamp.covers-every-count-sequence-the-issue-names', () => {
    const names = new Set(SEQUENCE_LIMITS.map((l) => l.name));
    for (const name of ['REP', 'SU', 'SD', 'IL', 'DL', 'ICH', 'DCH', 'ECH', 'CBT', 'CHT', 'CUU', 'CUD', 'CUF', 'CUB', 'CNL', 'CPL', 'SGR', 'DECSTBM', 'CUP']) {
      expect(names.has(name), name).toBe(true);
    }
  });

  it('clamp.lowers-params-and-subparams-in-place-and-leaves-small-ones', () => {
    const sgr = SEQUENCE_LIMITS.find((l) => l.name === 'SGR')!;
    const params = { length: 3, params: Int32Array.from([38, 2, HUGE]), _subParams: Int32Array.from([HUGE, 7]), _subParamsLength: 2 };
    clampParams(params, sgr, COLS, ROWS);
    expect([...params.params]).toEqual([38, 2, 255]);
    expect([...params._subParams]).toEqual([255, 7]);
    const cup = SEQUENCE_LIMITS.find((l) => l.name === 'CUP')!;
    const pos = { length: 2, params: Int32Array.from([HUGE, 0]) };
    clampParams(pos, cup, COLS, ROWS);
    expect([...pos.params]).toEqual([ROWS, 0]);
  });

  it('clamp.huge-SGR-colours-do-not-spill-into-other-attributes', async () => {
    const term = make();
    await term.writeAsync(`\x1b[1;38;2;${HUGE};0;0mR\x1b[0;48;5;${HUGE}mB\x1b[0;38:2::${HUGE}:0:0mC`);
    const [r, b, c] = term.readRow(0);
    expect(unpackAttr(r!.attr)).toMatchObject({ flags: FLAG_BOLD, fg: 196 });
    expect(unpackAttr(b!.attr)).toMatchObject({ flags: 0, bg: 255 });
    expect(unpackAttr(c!.attr)).toMatchObject({ flags: 0, fg: 196 });
  });

  it('clamp.REP-past-a-screenful-fills-the-screen-and-stops', async () => {
    const term = make();
    const start = performance.now();
    await term.writeAsync(`\x1b[2J\x1b[HX\x1b[${HUGE}b`);
    expect(performance.now() - start).toBeLessThan(5_000);
    // a screenful of repeats after the first X: every row full but the last, where the one over wrapped
    const text = term.snapshotText();
    expect(text.slice(0, ROWS - 1).every((row) => row === 'X'.repeat(COLS))).toBe(true);
    expect(text[ROWS - 1]).toBe('X');
  });

  it('meter.a-costly-stream-pauses-the-parser-so-the-event-loop-turns', async () => {
    const term = make();
    let ticks = 0;
    let live = true;
    const tick = (): void => {
      ticks++;
      if (live) setImmediate(tick);
    };
    setImmediate(tick);
    // 20,000 screen clears and alignment fills in one write: 80 million cells of work.
    await term.writeAsync('\x1b[2J\x1b#8'.repeat(20_000));
    live = false;
    expect(term.parserPauses).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThan(100);
    expect(term.snapshotText()[0]).toBe('E'.repeat(COLS));
  }, 60_000);

  it('meter.plain-text-is-not-paused', async () => {
    const term = make();
    await term.writeAsync('plain text line\r\n'.repeat(20_000));
    expect(term.parserPauses).toBe(0);
  });

  it('cells.a-flood-of-combining-marks-keeps-one-bounded-cluster', async () => {
    const term = make();
    await term.writeAsync('e' + '\u0301'.repeat(200_000) + 'z');
    const [e, z] = term.readRow(0);
    expect(e!.ch.startsWith('e\u0301')).toBe(true);
    expect(e!.ch.length).toBeLessThanOrEqual(MAX_CELL_CHARS);
    expect(z!.ch).toBe('z');
    // a later cell in the same place starts a fresh cluster
    await term.writeAsync('\x1b[Ha\u0308');
    expect(term.readRow(0)[0]!.ch).toBe('a\u0308');
  });

  it('log.parse-errors-never-reach-the-console-or-stderr', async () => {
    const garbage = ['\x1b[\u0100m', '\x1b[1;2\u0180m', '\x1bP1\u0100q', '\x1b[?\u00ffh', '\x1b]\u0100;x\x07'];
    // The same bytes make a default xterm log "Parsing error" through console.error.
    const noisy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const plain = new xtermHeadless.Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
    for (const g of garbage) await new Promise<void>((resolve) => plain.write(g, resolve));
    plain.dispose();
    expect(noisy).toHaveBeenCalled();
    vi.restoreAllMocks();

    const calls: unknown[] = [];
    for (const method of ['error', 'warn', 'log', 'info', 'debug'] as const) vi.spyOn(console, method).mockImplementation((...args) => void calls.push(args));
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (calls.push(chunk), true));
    const term = make();
    for (const g of garbage) await term.writeAsync(g);
    expect(calls).toEqual([]);
  });
});
