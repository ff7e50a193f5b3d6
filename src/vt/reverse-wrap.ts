/**
 * Reverse wraparound: BS and CUB moving the cursor back across lines, as xterm does since patch 383.
 * With autowrap (DECAWM) on, private mode 45 lets the cursor move back from the first column into
 * the line it wrapped from, through any number of soft-wrapped lines, stopping at the first column
 * of the line where the text began (editing a long command line); private mode 1045, xterm's
 * original reverse wraparound, moves back through every line of the screen, from the top margin's
 * first column to the bottom margin's last. This file owns the state of mode 1045 (xterm's headless
 * core does not know it; it keeps 45 itself) and the cursor arithmetic. xterm's headless core
 * implements only BS under 45, and unwraps the line as it goes; CUB it never wraps. DECRQM reports
 * 1045 like any mode. Both moves are
 * O(rows) whatever the count, so they need no metering.
 */

import type { IDisposable, Terminal } from '@xterm/headless';
import { registerEscHook, registerParamsHook, scrollRegion, setCursorCell, wrapExecuteHandler, type RawParams } from './xterm-internals.js';

/** xterm's private mode for reverse wraparound across every line (45 is within wrapped lines). */
export const EXTENDED_REVERSE_WRAP = 1045;

/** The cursor and screen a backward move starts from; x may be cols (a wrap is pending). */
export interface BackwardStart {
  x: number;
  y: number;
  cols: number;
  rows: number;
  /** The scroll region's top and bottom rows, 0-based. */
  top: number;
  bottom: number;
  /** Whether screen row y continues the row above it (a soft wrap). */
  wrapped(y: number): boolean;
}

/** Where `n` cells back from `start` lands: within wrapped lines ('inline'), or across the screen ('extended'). */
export function reverseWrapTarget(start: BackwardStart, n: number, mode: 'inline' | 'extended'): { x: number; y: number } {
  const { cols, rows } = start;
  // from the pending-wrap column one step back is the last column, so x - n counts the steps right
  let x = Math.min(start.x, cols) - Math.max(1, n);
  let y = start.y;
  if (x >= 0) return { x, y };
  if (mode === 'inline') {
    while (x < 0 && y > 0 && start.wrapped(y)) {
      y--;
      x += cols;
    }
    return { x: Math.max(0, x), y };
  }
  // xterm: from the top margin's first column to the bottom margin's last; otherwise the screen
  // is one ring of cells
  if (start.x === 0 && start.y === start.top) return { x: cols - 1, y: start.bottom };
  const ring = cols * rows;
  const offset = (((y * cols + x) % ring) + ring) % ring;
  return { x: offset % cols, y: Math.floor(offset / cols) };
}

/** Install reverse wraparound for BS and CUB on term (`reply` answers DECRQM 1045); returns the handlers to dispose. */
export function installReverseWrap(term: Terminal, reply: (data: string) => void): IDisposable[] {
  let extended = false;
  const mode = (): 'inline' | 'extended' | null => {
    if (!term.modes.wraparoundMode) return null;
    if (extended) return 'extended';
    return term.modes.reverseWraparoundMode ? 'inline' : null;
  };
  const start = (): BackwardStart => {
    const buffer = term.buffer.active;
    const { top, bottom } = scrollRegion(term);
    return {
      x: buffer.cursorX,
      y: buffer.cursorY,
      cols: term.cols,
      rows: term.rows,
      top,
      bottom,
      wrapped: (y) => buffer.getLine(buffer.baseY + y)?.isWrapped === true,
    };
  };
  const moveBack = (n: number): boolean => {
    const active = mode();
    if (!active) return false;
    const target = reverseWrapTarget(start(), n, active);
    setCursorCell(term, target.x, target.y);
    return true;
  };
  const setMode = (value: boolean) => (params: RawParams): boolean => {
    for (let i = 0; i < params.length; i++) if (params.params[i] === EXTENDED_REVERSE_WRAP) extended = value;
    return false;
  };
  const reset = (): boolean => {
    extended = false;
    return false;
  };
  const hooks = [
    registerParamsHook(term, { final: 'D' }, (params) => moveBack(params.length > 0 ? params.params[0]! : 1)),
    wrapExecuteHandler(term, '\b', () => {
      if (mode()) return moveBack(1);
      // 45 without autowrap: a plain backspace (xterm's headless core would still wrap)
      if (!term.modes.reverseWraparoundMode) return false;
      const buffer = term.buffer.active;
      setCursorCell(term, Math.max(0, Math.min(buffer.cursorX, term.cols - 1) - 1), buffer.cursorY);
      return true;
    }),
    registerParamsHook(term, { prefix: '?', final: 'h' }, setMode(true)),
    registerParamsHook(term, { prefix: '?', final: 'l' }, setMode(false)),
    registerParamsHook(term, { intermediates: '!', final: 'p' }, reset),
    registerEscHook(term, { final: 'c' }, reset),
    registerParamsHook(term, { prefix: '?', intermediates: '$', final: 'p' }, (params) => {
      if (params.length < 1 || params.params[0] !== EXTENDED_REVERSE_WRAP) return false;
      reply(`\x1b[?${EXTENDED_REVERSE_WRAP};${extended ? 1 : 2}$y`);
      return true;
    }),
  ];
  return hooks.filter((hook): hook is IDisposable => hook !== null);
}
