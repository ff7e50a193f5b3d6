// Fuzz: 100,000 random and malformed chunks into one PaneTerminal (seeded, so a failure replays),
// half random bytes and half escape sequences built from the grammar with huge, odd and missing
// parameters. Zero exceptions, every chunk parsed, the screen readable throughout, and no chunk
// holds the event loop for longer than a generous multiple of a baseline chunk measured here.
import { describe, expect, it } from 'vitest';
import { PaneTerminal } from '../../src/vt/terminal.js';
import { prng } from '../helpers/prng.js';

const CHUNKS = 100_000;
const BATCH = 500;

const HUGE = ['1000000000', '2147483647', '2147483648', '99999999999999999999', '65535', '65536', '4294967296', '0', '', '-1'];
const FINALS = '@ABCDEFGHIJKLMPSTXZ`abcdefghlmnpqrstuvwxyz{|}~';
const TEXT = ['a', 'é', '中', '🙂', '👨‍👩‍👧', '🇫🇷', '\u0301', '\u200d', '\ufe0f', '\t', '\r', '\n', '\b', '\x07', '\x0e', '\x0f', '\x85', '\x9b', '\x90', '\x9d'];

/** Grammar-based chunks: CSI/ESC/OSC/DCS with random parts, plus text that stresses widths. */
function sequence(rand: () => number): string {
  const pick = <T,>(items: readonly T[] | string): T => items[Math.floor(rand() * items.length)] as T;
  const param = (): string => (rand() < 0.5 ? pick(HUGE) : String(Math.floor(rand() * 300)));
  const params = (): string => {
    const n = Math.floor(rand() * (rand() < 0.05 ? 40 : 5));
    return Array.from({ length: n }, () => (rand() < 0.15 ? `${param()}:${param()}:${param()}` : param())).join(rand() < 0.9 ? ';' : ':');
  };
  switch (Math.floor(rand() * 8)) {
    case 0:
    case 1:
    case 2:
      return `\x1b[${rand() < 0.2 ? pick('?>=<') : ''}${params()}${rand() < 0.15 ? pick(" !\"#$%&'*") : ''}${pick(FINALS)}`;
    case 3:
      return `\x1b]${pick(['0', '2', '4', '8', '10', '11', '12', '52', '104', '1337', HUGE[0]!])};${rand() < 0.5 ? '?' : 'x'.repeat(Math.floor(rand() * 200))}${pick(['\x07', '\x1b\\', '', '\x9c'])}`;
    case 4:
      return `\x1bP${params()}${pick('q|$+')}${'d'.repeat(Math.floor(rand() * 50))}${pick(['\x1b\\', '', '\x18'])}`;
    case 5:
      return `\x1b${pick(['#8', 'c', '7', '8', 'D', 'E', 'H', 'M', 'N', 'O', '=', '>', '(0', ')B', '%G', ' F', '\x1b'])}`;
    case 6:
      return Array.from({ length: 1 + Math.floor(rand() * 30) }, () => pick(TEXT)).join('');
    default:
      // a valid sequence cut short, or with bytes that are not allowed inside it
      return `\x1b[${params()}${pick(['\x00', '\x1b', '\x18', '\x7f', '\u0100', '\x9c', ''])}${pick(FINALS)}`;
  }
}

/** Random bytes, sometimes biased towards ESC and C1 so the parser sees many states. */
function bytes(rand: () => number): Uint8Array {
  const out = new Uint8Array(1 + Math.floor(rand() * 64));
  for (let i = 0; i < out.length; i++) {
    const r = rand();
    out[i] = r < 0.1 ? 0x1b : r < 0.15 ? 0x80 + Math.floor(rand() * 32) : Math.floor(rand() * 256);
  }
  return out;
}

/** Write chunks as one batch; returns how long each took to parse (time between its parse and the one before). */
function writeBatch(term: PaneTerminal, chunks: Array<string | Uint8Array>): Promise<number[]> {
  return new Promise((resolve) => {
    const times: number[] = [];
    let last = performance.now();
    chunks.forEach((chunk, i) => {
      term.write(chunk, () => {
        const now = performance.now();
        times.push(now - last);
        last = now;
        if (i === chunks.length - 1) resolve(times);
      });
    });
  });
}

describe('fuzz: random and malformed chunks', () => {
  it('fuzz.100k-chunks-zero-exceptions-and-bounded-time-per-chunk', async () => {
    const rand = prng(0x7ea4);
    const term = new PaneTerminal({ cols: 80, rows: 24, scrollback: 500 });
    try {
      // Baseline: a full-screen redraw (clear, 24 rows of styled text), the heaviest ordinary chunk.
      const redraw = '\x1b[H\x1b[2J' + Array.from({ length: 24 }, (_, y) => `\x1b[${y + 1};1H\x1b[3${y % 8}m${'x'.repeat(79)}\x1b[0m`).join('');
      const baseline: number[] = [];
      for (let i = 0; i < 40; i++) baseline.push(...(await writeBatch(term, [redraw])));
      baseline.sort((a, b) => a - b);
      const base = baseline[Math.floor(baseline.length / 2)]!;

      let worst = 0;
      let worstChunk: string | Uint8Array = '';
      let parsed = 0;
      for (let done = 0; done < CHUNKS; done += BATCH) {
        const chunks = Array.from({ length: BATCH }, () => (rand() < 0.5 ? bytes(rand) : sequence(rand)));
        const times = await writeBatch(term, chunks);
        parsed += times.length;
        times.forEach((t, i) => {
          if (t > worst) {
            worst = t;
            worstChunk = chunks[i]!;
          }
        });
        // the screen stays readable, and sometimes the pane is resized between batches
        for (let y = 0; y < term.rows; y++) expect(term.readRow(y)).toHaveLength(term.cols);
        if (rand() < 0.1) term.resize(1 + Math.floor(rand() * 200), 1 + Math.floor(rand() * 60));
      }
      expect(parsed).toBe(CHUNKS);
      // Before the limits, one `CSI 1000000000 b` here took 51 s. A chunk may be a few screenfuls
      // of work and the machine is shared, so the bound is generous: 200 baseline redraws + 250 ms.
      const bound = 200 * base + 250;
      console.log(`fuzz: worst chunk ${worst.toFixed(1)} ms, baseline redraw ${base.toFixed(2)} ms, bound ${bound.toFixed(0)} ms`);
      expect(worst, `worst chunk ${JSON.stringify(typeof worstChunk === 'string' ? worstChunk : [...worstChunk])} took ${worst.toFixed(1)} ms; baseline ${base.toFixed(2)} ms`).toBeLessThan(bound);
    } finally {
      term.dispose();
    }
  }, 300_000);
});
