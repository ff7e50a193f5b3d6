/**
 * Answers to the queries a program sends its terminal that xterm's headless core leaves unanswered:
 * the report-only window operations (XTWINOPS `CSI 14/16/18/19 t`: sizes in pixels and characters)
 * and the dynamic colour queries (`OSC 10/11/12 ; ?`: foreground, background, cursor colour). This
 * file owns the colours and cell size a pane reports: the ones it was given (the outer terminal's,
 * or a layout's theme), a colour the program itself set since, else stated defaults. Window
 * operations that would change the outer window are never answered or acted on. Every answer goes
 * through the reply callback of the pane that asked, and each charges the work meter, so a flood of
 * queries pauses the parser like any costly sequence. DECRQCRA (`CSI Pid;Pp;Pt;Pl;Pb;Pr * y`)
 * answers the checksum of a rectangle of the pane's own screen, as a VT420 does: the negated 16-bit
 * sum of the characters in it, a blank counting as a space. DECALN resets the scroll margins
 * before xterm fills the screen, as xterm and the VT510 do. The conformance level a program sets
 * with DECSCL is kept: below VT300 (level 3) DECRQM is not answered, as on a VT220. The cursor
 * position report (CPR, DECXCPR) says the last column while a wrap is pending and counts rows from
 * the top margin under origin mode, as xterm does.
 */

import type { IDisposable, Terminal } from '@xterm/headless';
import type { WorkMeter } from './limits.js';
import { registerEscHook, registerParamsHook, resetScrollRegion, scrollRegion, type RawParams } from './xterm-internals.js';

/** An sRGB colour, 0..255 per channel. */
export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** The colours a pane reports for OSC 10, 11 and 12. */
export interface TerminalColors {
  foreground: Rgb;
  background: Rgb;
  cursor: Rgb;
}

/** A cell's size in pixels, for CSI 14 t and CSI 16 t. */
export interface CellPixels {
  width: number;
  height: number;
}

/** Reported when nothing better is known: light grey on black, a VGA-like 8x16 cell. */
export const DEFAULT_COLORS: TerminalColors = {
  foreground: { r: 0xe5, g: 0xe5, b: 0xe5 },
  background: { r: 0, g: 0, b: 0 },
  cursor: { r: 0xe5, g: 0xe5, b: 0xe5 },
};
export const DEFAULT_CELL_PIXELS: CellPixels = { width: 8, height: 16 };

const SLOTS = ['foreground', 'background', 'cursor'] as const;

/** `rgb:rrrr/gggg/bbbb`, the form xterm answers colour queries in. */
export function xColor(c: Rgb): string {
  const hex = (v: number): string => (v & 0xff).toString(16).padStart(2, '0').repeat(2);
  return `rgb:${hex(c.r)}/${hex(c.g)}/${hex(c.b)}`;
}

/**
 * Parse an X11 colour as xterm does: `#rgb` … `#rrrrggggbbbb` give the high bits of each channel
 * (#fff is f0f0/f0f0/f0f0), `rgb:r/g/b` (1-4 hex digits each) is scaled; null if neither.
 */
export function parseXColor(spec: string): Rgb | null {
  const s = spec.trim();
  const scale = (h: string): number => Math.round((parseInt(h, 16) / (16 ** h.length - 1)) * 255);
  const high = (h: string): number => (parseInt(h, 16) << (16 - 4 * h.length)) >> 8;
  const hash = /^#([0-9a-f]+)$/i.exec(s);
  if (hash && [3, 6, 9, 12].includes(hash[1]!.length)) {
    const n = hash[1]!.length / 3;
    const parts = [0, 1, 2].map((i) => hash[1]!.slice(i * n, (i + 1) * n));
    return { r: high(parts[0]!), g: high(parts[1]!), b: high(parts[2]!) };
  }
  const rgb = /^rgb:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})$/i.exec(s);
  if (rgb) return { r: scale(rgb[1]!), g: scale(rgb[2]!), b: scale(rgb[3]!) };
  return null;
}

/** What a pane answers with; the owner may update it (the outer terminal's colours, a resize of its cells). */
export class TerminalAnswers {
  // given by the owner
  private given: TerminalColors;
  cellPixels: CellPixels;
  // set by the program (OSC 10/11/12 with a colour), cleared by OSC 110/111/112
  private readonly set: Partial<TerminalColors> = {};
  // the conformance level set by DECSCL (CSI 6x ; y " p), 5 until then and after RIS
  private level = 5;

  constructor(colors: TerminalColors = DEFAULT_COLORS, cellPixels: CellPixels = DEFAULT_CELL_PIXELS) {
    this.given = colors;
    this.cellPixels = cellPixels;
  }

  /** Replace the colours reported when the program has not set its own. */
  setColors(colors: TerminalColors): void {
    this.given = colors;
  }

  /** The colour reported for a slot now. */
  color(slot: keyof TerminalColors): Rgb {
    return this.set[slot] ?? this.given[slot];
  }

  /**
   * Answer on term: `reply` sends bytes to the pane's process. Returns the handlers to dispose.
   * xterm only passes `CSI t` to handlers for the operations its windowOptions allow, so the
   * terminal must allow exactly the report operations (see REPORT_WINDOW_OPTIONS).
   */
  install(term: Terminal, meter: WorkMeter, reply: (data: string) => void): IDisposable[] {
    const out: IDisposable[] = [];
    const windowOps = registerParamsHook(term, { final: 't' }, (params) => {
      const op = params.length > 0 ? params.params[0]! : 0;
      const { width, height } = this.cellPixels;
      if (op === 18) reply(`\x1b[8;${term.rows};${term.cols}t`);
      else if (op === 19) reply(`\x1b[9;${term.rows};${term.cols}t`);
      else if (op === 14) reply(`\x1b[4;${term.rows * height};${term.cols * width}t`);
      else if (op === 16) reply(`\x1b[6;${height};${width}t`);
      else return true;
      // handled here (true), after a pause if the meter asks for one
      const pause = meter.charge(term.cols);
      return pause === false ? true : pause.then(() => true);
    });
    if (windowOps) out.push(windowOps);
    const checksum = registerParamsHook(term, { intermediates: '*', final: 'y' }, (params) => {
      const { id, area, sum } = rectChecksum(term, params);
      reply(`\x1bP${id}!~${sum.toString(16).toUpperCase().padStart(4, '0')}\x1b\\`);
      const pause = meter.charge(area);
      return pause === false ? true : pause.then(() => true);
    });
    if (checksum) out.push(checksum);
    // CPR and DECXCPR: xterm's headless core reports the pending-wrap column (cols + 1) and ignores
    // DECOM; a VT100 reports the last column, and rows from the top margin under origin mode
    for (const prefix of ['', '?']) {
      const cpr = registerParamsHook(term, { prefix, final: 'n' }, (params) => {
        if (params.length < 1 || params.params[0] !== 6) return false;
        const { row, col } = cursorReport(term);
        reply(`\x1b[${prefix}${row};${col}R`);
        return true;
      });
      if (cpr) out.push(cpr);
    }
    const conformance = registerParamsHook(term, { intermediates: '"', final: 'p' }, (params) => {
      const value = params.length > 0 ? params.params[0]! : 0;
      if (value >= 61 && value <= 65) this.level = value - 60;
      return false;
    });
    const requestMode = [{ intermediates: '$', final: 'p' }, { prefix: '?', intermediates: '$', final: 'p' }].map((id) =>
      registerParamsHook(term, id, () => this.level < 3));
    const reset = registerEscHook(term, { final: 'c' }, () => {
      this.level = 5;
      return false;
    });
    for (const hook of [conformance, ...requestMode, reset]) if (hook) out.push(hook);
    const align = registerEscHook(term, { intermediates: '#', final: '8' }, () => {
      resetScrollRegion(term);
      return false;
    });
    if (align) out.push(align);
    SLOTS.forEach((_, first) => {
      out.push(term.parser.registerOscHandler(10 + first, (data) => {
        // `OSC 10 ; ? ; ?` asks for 10 then 11: each slot moves to the next colour
        data.split(';').forEach((value, i) => {
          const slot = SLOTS[first + i];
          if (!slot) return;
          if (value === '?') reply(`\x1b]${10 + first + i};${xColor(this.color(slot))}\x1b\\`);
          else {
            const parsed = parseXColor(value);
            if (parsed) this.set[slot] = parsed;
          }
        });
        return true;
      }));
      out.push(term.parser.registerOscHandler(110 + first, () => {
        delete this.set[SLOTS[first]!];
        return true;
      }));
    });
    return out;
  }
}

/** The cursor as CPR reports it: 1-based, the last column while a wrap is pending, rows from the top margin under DECOM. */
export function cursorReport(term: Terminal): { row: number; col: number } {
  const buffer = term.buffer.active;
  const top = term.modes.originMode ? scrollRegion(term).top : 0;
  return { row: buffer.cursorY - top + 1, col: Math.min(buffer.cursorX, term.cols - 1) + 1 };
}

/** DECRQCRA: the request id, the cells summed, and the checksum of the requested rectangle. */
export function rectChecksum(term: Terminal, params: RawParams): { id: number; area: number; sum: number } {
  const p = (i: number, fallback: number): number => (i < params.length && params.params[i]! > 0 ? params.params[i]! : fallback);
  const origin = term.modes.originMode;
  const region = origin ? scrollRegion(term) : { top: 0, bottom: term.rows - 1 };
  // 1-based, relative to the scroll region under DECOM; clamped to it
  const top = Math.min(region.bottom, region.top + p(2, 1) - 1);
  const bottom = Math.min(region.bottom, region.top + p(4, region.bottom - region.top + 1) - 1);
  const left = Math.min(term.cols - 1, p(3, 1) - 1);
  const right = Math.min(term.cols - 1, p(5, term.cols) - 1);
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell();
  let total = 0;
  let area = 0;
  for (let y = top; y <= bottom; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    for (let x = left; x <= right; x++) {
      area++;
      const loaded = line?.getCell(x, cell);
      const chars = loaded?.getChars() ?? '';
      if (!chars) {
        // a blank counts as a space; the right half of a wide char counts nothing
        if (loaded?.getWidth() !== 0) total += 0x20;
        continue;
      }
      for (const ch of chars) total += ch.codePointAt(0)!;
    }
  }
  return { id: params.length > 0 ? params.params[0]! : 0, area, sum: -total & 0xffff };
}

/** The xterm windowOptions that let report-only operations reach the handlers; nothing that changes a window. */
export const REPORT_WINDOW_OPTIONS = {
  getWinSizePixels: true,
  getCellSizePixels: true,
  getWinSizeChars: true,
  getScreenSizeChars: true,
} as const;
