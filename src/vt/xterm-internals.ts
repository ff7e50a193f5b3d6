/**
 * The few pieces of @xterm/headless state that its public API does not expose: the mouse report
 * encoding (DECSET 1006/1016), cursor visibility (DECTCEM) and the mouse-report encoder. Each is
 * read through a narrow, guarded view of `terminal._core`, so a version of xterm that renames them
 * degrades to a sane default instead of throwing; test/vt/terminal-modes.test.ts pins them.
 */

import type { Terminal } from '@xterm/headless';

/** How mouse reports are encoded: X10 bytes, SGR (`CSI < b;x;y M`), or SGR with pixel positions. */
export type MouseEncoding = 'default' | 'sgr' | 'sgr-pixels';

/** A mouse event for the emulator to encode; col/row are 0-based cells within the pane. */
export interface MouseReport {
  col: number;
  row: number;
  /** left, middle, right, none (motion without button), wheel */
  button: 'left' | 'middle' | 'right' | 'none' | 'wheel';
  /** press/release; wheel uses 'up'/'down'; motion is 'move' */
  action: 'press' | 'release' | 'move' | 'up' | 'down';
  shift?: boolean;
  alt?: boolean;
  ctrl?: boolean;
}

interface CoreMouseEvent {
  col: number;
  row: number;
  x: number;
  y: number;
  button: number;
  action: number;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}

interface XtermCore {
  coreService?: { isCursorHidden?: boolean };
  _writeBuffer?: { handleUserInput?(): void };
  coreMouseService?: {
    activeEncoding?: string;
    triggerMouseEvent?(event: CoreMouseEvent): boolean;
  };
}

function coreOf(terminal: Terminal): XtermCore {
  return ((terminal as unknown as { _core?: XtermCore })._core) ?? {};
}

/** The active mouse report encoding. */
export function mouseEncodingOf(terminal: Terminal): MouseEncoding {
  switch (coreOf(terminal).coreMouseService?.activeEncoding) {
    case 'SGR':
      return 'sgr';
    case 'SGR_PIXELS':
      return 'sgr-pixels';
    default:
      return 'default';
  }
}

/** Whether the application hid the cursor (DECTCEM `CSI ? 25 l`). */
export function isCursorHidden(terminal: Terminal): boolean {
  return coreOf(terminal).coreService?.isCursorHidden === true;
}

const BUTTONS = { left: 0, middle: 1, right: 2, none: 3, wheel: 4 } as const;
const ACTIONS = { release: 0, up: 0, press: 1, down: 1, move: 32 } as const;

/**
 * Let xterm encode a mouse event under the active tracking mode and encoding; the report comes
 * out of the terminal's onData/onBinary. Returns false when the mode does not report this event.
 */
export function triggerMouseEvent(terminal: Terminal, report: MouseReport): boolean {
  const service = coreOf(terminal).coreMouseService;
  if (!service?.triggerMouseEvent) return false;
  return service.triggerMouseEvent({
    col: report.col,
    row: report.row,
    x: 0,
    y: 0,
    button: BUTTONS[report.button],
    action: ACTIONS[report.action],
    ctrl: report.ctrl === true,
    alt: report.alt === true,
    shift: report.shift === true,
  });
}

/**
 * Tell the emulator that the user just typed, so the echo is parsed at once: otherwise xterm's write
 * buffer defers parsing with a zero-delay timer (what its own input path does via onUserInput).
 */
export function markUserInput(terminal: Terminal): void {
  coreOf(terminal)._writeBuffer?.handleUserInput?.();
}
