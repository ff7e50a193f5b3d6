/**
 * Limits on what escape sequences may cost. xterm loops once per unit of a count parameter, so
 * `CSI 1000000000 b` (REP) or `CSI 1000000000 S` (SU) would hold the event loop for minutes. This
 * file owns the table of CSI sequences whose parameters are counts or positions, and the largest
 * value each can usefully take on a screen of the current size: a count past it has the same effect
 * on the screen as the limit itself (REP past a screenful only changes what scrolls into history).
 * The clamp runs inside xterm's parser, before xterm's own handler sees the parameters.
 *
 * Even clamped, a few bytes can touch a screenful of cells (REP, ED, DECALN, IL), so a stream of
 * them is metered: each such sequence is charged the cells it touches, and once YIELD_CELLS have
 * been charged the parser pauses (an async handler) until the event loop has had a turn. Keys,
 * signals and the sidebar are served in between however hostile the stream.
 */

import type { IDisposable, IFunctionIdentifier, Terminal } from '@xterm/headless';
import { registerEscHook, registerParamsHook, type HookResult, type RawParams } from './xterm-internals.js';

/**
 * Input queued for a process that is not reading it, past which the emulator's replies (DA, CPR,
 * size and colour reports) are dropped: a program that floods queries and never reads the answers
 * must not make teamux hold them without limit. Keys and pastes are never dropped.
 */
export const REPLY_QUEUE_LIMIT = 64 * 1024;

/** Cells of metered work after which the parser yields to the event loop (roughly 10 ms). */
export const YIELD_CELLS = 50_000;

/** What bounds a parameter: the screen's columns, its rows, its cells, or one byte (SGR values). */
export type Bound = 'cols' | 'rows' | 'cells' | 'byte';

/** One sequence with count or position parameters; `params[i]` bounds parameter i. */
export interface SequenceLimit {
  name: string;
  id: IFunctionIdentifier;
  /** The cells one occurrence touches, given its first (clamped) parameter; absent: not metered. */
  cost?: (first: number, cols: number, rows: number) => number;
  /** Bounds of the leading parameters, in order. */
  params?: Bound[];
  /** A bound for every parameter and sub-parameter (SGR). */
  all?: Bound;
}

const LINE = (_n: number, cols: number): number => cols;
const LINES = (n: number, cols: number, rows: number): number => Math.max(1, Math.min(n, rows)) * cols;
const SCREEN = (_n: number, cols: number, rows: number): number => cols * rows;
const REP = (n: number): number => Math.max(1, n);

/** Every CSI sequence xterm implements whose parameters are counts, positions or small values. */
export const SEQUENCE_LIMITS: readonly SequenceLimit[] = [
  { name: 'ICH', id: { final: '@' }, params: ['cols'], cost: LINE },
  { name: 'SL', id: { intermediates: ' ', final: '@' }, params: ['cols'], cost: SCREEN },
  { name: 'CUU', id: { final: 'A' }, params: ['rows'] },
  { name: 'SR', id: { intermediates: ' ', final: 'A' }, params: ['cols'], cost: SCREEN },
  { name: 'CUD', id: { final: 'B' }, params: ['rows'] },
  { name: 'CUF', id: { final: 'C' }, params: ['cols'] },
  { name: 'CUB', id: { final: 'D' }, params: ['cols'] },
  { name: 'CNL', id: { final: 'E' }, params: ['rows'] },
  { name: 'CPL', id: { final: 'F' }, params: ['rows'] },
  { name: 'CHA', id: { final: 'G' }, params: ['cols'] },
  { name: 'CUP', id: { final: 'H' }, params: ['rows', 'cols'] },
  { name: 'CHT', id: { final: 'I' }, params: ['cols'] },
  { name: 'IL', id: { final: 'L' }, params: ['rows'], cost: LINES },
  { name: 'DL', id: { final: 'M' }, params: ['rows'], cost: LINES },
  { name: 'DCH', id: { final: 'P' }, params: ['cols'], cost: LINE },
  { name: 'SU', id: { final: 'S' }, params: ['rows'], cost: LINES },
  { name: 'SD', id: { final: 'T' }, params: ['rows'], cost: LINES },
  { name: 'ECH', id: { final: 'X' }, params: ['cols'], cost: LINE },
  { name: 'CBT', id: { final: 'Z' }, params: ['cols'] },
  { name: 'HPA', id: { final: '`' }, params: ['cols'] },
  { name: 'HPR', id: { final: 'a' }, params: ['cols'] },
  { name: 'REP', id: { final: 'b' }, params: ['cells'], cost: REP },
  { name: 'VPA', id: { final: 'd' }, params: ['rows'] },
  { name: 'VPR', id: { final: 'e' }, params: ['rows'] },
  { name: 'HVP', id: { final: 'f' }, params: ['rows', 'cols'] },
  { name: 'SGR', id: { final: 'm' }, all: 'byte' },
  { name: 'DECSTBM', id: { final: 'r' }, params: ['rows', 'rows'] },
  { name: 'DECIC', id: { intermediates: "'", final: '}' }, params: ['cols'], cost: SCREEN },
  { name: 'DECDC', id: { intermediates: "'", final: '~' }, params: ['cols'], cost: SCREEN },
  // no counts, but up to a screenful of work in a few bytes: metered only
  { name: 'ED', id: { final: 'J' }, cost: SCREEN },
  { name: 'DECSED', id: { prefix: '?', final: 'J' }, cost: SCREEN },
  { name: 'EL', id: { final: 'K' }, cost: LINE },
  { name: 'DECSEL', id: { prefix: '?', final: 'K' }, cost: LINE },
  { name: 'DECSET', id: { prefix: '?', final: 'h' }, cost: SCREEN },
  { name: 'DECRST', id: { prefix: '?', final: 'l' }, cost: SCREEN },
  { name: 'DECSTR', id: { intermediates: '!', final: 'p' }, cost: SCREEN },
];

/** ESC sequences that touch a screenful: DECALN fills it, RIS resets it. */
export const METERED_ESC: readonly { name: string; id: IFunctionIdentifier }[] = [
  { name: 'DECALN', id: { intermediates: '#', final: '8' } },
  { name: 'RIS', id: { final: 'c' } },
];

/** The largest useful value under a bound on a cols x rows screen. */
export function boundValue(bound: Bound, cols: number, rows: number): number {
  switch (bound) {
    case 'cols':
      return cols;
    case 'rows':
      return rows;
    case 'cells':
      return cols * rows;
    case 'byte':
      return 255;
  }
}

/** Lower every parameter of `params` that exceeds its bound to the bound, in place. */
export function clampParams(params: RawParams, limit: SequenceLimit, cols: number, rows: number): void {
  if (limit.all) {
    const max = boundValue(limit.all, cols, rows);
    clampArray(params.params, params.length, max);
    if (params._subParams) clampArray(params._subParams, params._subParamsLength ?? 0, max);
    return;
  }
  const bounds = limit.params ?? [];
  const n = Math.min(bounds.length, params.length);
  for (let i = 0; i < n; i++) {
    const max = boundValue(bounds[i]!, cols, rows);
    if (params.params[i]! > max) params.params[i] = max;
  }
}

function clampArray(values: Int32Array, length: number, max: number): void {
  for (let i = 0; i < length; i++) if (values[i]! > max) values[i] = max;
}

/** Whether any parameter exceeds its bound (for the fallback that drops such sequences). */
export function exceedsLimit(params: (number | number[])[], limit: SequenceLimit, cols: number, rows: number): boolean {
  for (let i = 0; i < params.length; i++) {
    const bound = limit.all ?? limit.params?.[i];
    if (!bound) continue;
    const max = boundValue(bound, cols, rows);
    const value = params[i]!;
    if (Array.isArray(value) ? value.some((v) => v > max) : value > max) return true;
  }
  return false;
}

/** Counts metered work and says when the parser should pause for a turn of the event loop. */
export class WorkMeter {
  // cells charged since the last pause
  private work = 0;
  /** Pauses taken so far (for tests and benchmarks). */
  pauses = 0;

  constructor(private readonly budget = YIELD_CELLS) {}

  /** Charge cells of work; false to carry on, or a promise of false that settles after a pause. */
  charge(cells: number): false | Promise<boolean> {
    this.work += cells;
    if (this.work < this.budget) return false;
    this.work = 0;
    this.pauses++;
    return new Promise((resolve) => setImmediate(() => resolve(false)));
  }
}

/**
 * Install the limits on a terminal: each listed sequence's parameters are clamped to the current
 * screen size before xterm's handler runs, and costly sequences are metered. Where xterm's
 * parameter object cannot be reached, a sequence with a parameter past its bound is dropped
 * instead (still bounded, less faithful).
 */
export function installSequenceLimits(term: Terminal, meter: WorkMeter): IDisposable[] {
  const csi = SEQUENCE_LIMITS.map((limit) => {
    const hook = registerParamsHook(term, limit.id, (params): HookResult => {
      clampParams(params, limit, term.cols, term.rows);
      if (!limit.cost) return false;
      return meter.charge(limit.cost(params.length > 0 ? params.params[0]! : 0, term.cols, term.rows));
    });
    return hook ?? term.parser.registerCsiHandler(limit.id, (params) => exceedsLimit(params, limit, term.cols, term.rows));
  });
  const esc = METERED_ESC.map(({ id }) => registerEscHook(term, id, () => meter.charge(term.cols * term.rows)));
  return [...csi, ...esc.filter((hook): hook is IDisposable => hook !== null)];
}
