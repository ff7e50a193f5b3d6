/**
 * The few pieces of @xterm/headless state that its public API does not expose: the mouse report
 * encoding (DECSET 1006/1016), cursor visibility (DECTCEM), the mouse-report encoder, the parser's
 * own parameter object (so limits.ts can clamp counts in place) and the combining-mark store of a
 * buffer line (so one cell cannot grow without bound), the cursor's cell and the C0 handlers (so
 * reverse-wrap.ts can move the cursor back across lines as xterm does), and the moment the normal
 * buffer drops its oldest lines (so history.ts can keep them compactly). Each is
 * read through a narrow, guarded view of `terminal._core`, so a version of xterm that renames them
 * degrades to a sane default instead of throwing; test/vt/terminal-modes.test.ts pins them.
 */

import type { IBufferLine, IDisposable, IFunctionIdentifier, Terminal } from '@xterm/headless';

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

/** xterm's Params object as the parser hands it to CSI handlers (common/parser/Params.ts). */
export interface RawParams {
  length: number;
  params: Int32Array;
  _subParams?: Int32Array;
  _subParamsLength?: number;
}

interface XtermCore {
  coreService?: { isCursorHidden?: boolean; decPrivateModes?: { applicationCursorKeys?: boolean; synchronizedOutput?: boolean }; modes?: { insertMode?: boolean } };
  _charsetService?: { charset?: unknown };
  registerCsiHandler?(id: IFunctionIdentifier, callback: (params: RawParams) => boolean | Promise<boolean>): IDisposable;
  registerEscHandler?(id: IFunctionIdentifier, callback: () => boolean | Promise<boolean>): IDisposable;
  buffer?: { lines?: { get?(index: number): object | undefined }; scrollTop?: number; scrollBottom?: number; x?: number; y?: number };
  _inputHandler?: {
    _parser?: { currentState?: number; setExecuteHandler?(flag: string, callback: () => boolean): void };
    _curAttrData?: { fg?: number; bg?: number };
  };
  buffers?: { normal?: { lines?: object } };
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

/** Whether cursor keys are in application mode (DECCKM), read from xterm's core without building its public modes object. */
export function applicationCursorKeysOf(terminal: Terminal): boolean {
  const mode = coreOf(terminal).coreService?.decPrivateModes?.applicationCursorKeys;
  return typeof mode === 'boolean' ? mode : terminal.modes.applicationCursorKeysMode;
}

/**
 * Whether printable ASCII written now would be printed as it is, in the default attribute: the parser
 * is between sequences (its ground state, 0), the current attribute is the default one (fg and bg 0;
 * any colour, flag or extended attribute sets a bit in one of them), insert mode is off and no
 * character set translates (DEC special graphics turns letters into line drawing); and the
 * application is not in the middle of a synchronized update (DECSET 2026: it wants nothing shown until
 * the update ends). False when this version of xterm does not show these.
 */
export function printsPlainly(terminal: Terminal): boolean {
  const core = coreOf(terminal);
  const input = core._inputHandler;
  const attr = input?._curAttrData;
  const service = core.coreService;
  return input?._parser?.currentState === 0 && attr?.fg === 0 && attr.bg === 0 && service?.modes?.insertMode === false && service.decPrivateModes?.synchronizedOutput === false && core._charsetService !== undefined && core._charsetService.charset === undefined;
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

/** A parser hook's answer: true (handled), false (let xterm's handler run), or a pause that settles to one. */
export type HookResult = boolean | Promise<boolean>;

/**
 * Register a CSI handler that receives xterm's own Params object (which the public API copies), so
 * it can change parameters before xterm's handler runs; return false to let xterm's handler run,
 * or a promise to pause the parser until it settles (xterm supports async handlers, though the
 * headless typings do not say so). Returns null when this version of xterm does not offer it.
 */
export function registerParamsHook(terminal: Terminal, id: IFunctionIdentifier, hook: (params: RawParams) => HookResult): IDisposable | null {
  const core = coreOf(terminal);
  if (typeof core.registerCsiHandler !== 'function') return null;
  return core.registerCsiHandler(id, (params) => {
    if (!(params?.params instanceof Int32Array) || typeof params.length !== 'number') return false;
    return hook(params);
  });
}

/** Register an ESC handler that may pause the parser (see registerParamsHook); null if unavailable. */
export function registerEscHook(terminal: Terminal, id: IFunctionIdentifier, hook: () => HookResult): IDisposable | null {
  const core = coreOf(terminal);
  if (typeof core.registerEscHandler !== 'function') return null;
  return core.registerEscHandler(id, hook);
}

/** UTF-16 units one cell keeps: the longest emoji sequences (family, flag tags) fit with room. */
export const MAX_CELL_CHARS = 32;

interface LinePrototype {
  addCodepointToCell?(index: number, codePoint: number, width: number): void;
  _combined?: Record<number, string>;
  _data?: Uint32Array;
  __teamuxCapped?: boolean;
}

// BufferLine layout (common/buffer/BufferLine.ts): 3 words per cell (content, fg, bg)
const CELL_WORDS = 3;

/** xterm's content word (common/buffer/Constants.ts): the code point's bits. */
export const CODEPOINT_MASK = 0x1fffff;
/** Set in the content word when the cell's text lives in _combined. */
export const IS_COMBINED = 0x200000;
/** The cell's width is the content word shifted right by this. */
export const WIDTH_SHIFT = 22;

/**
 * Make a buffer line drop combining marks past MAX_CELL_CHARS per cell. xterm appends every mark
 * to its cell's string, so a flood of them would grow one cell by megabytes (and every frame that
 * reads it). Patches xterm's BufferLine prototype once; a no-op if its shape is not recognised.
 */
export function capCombiningMarks(terminal: Terminal): void {
  const line = coreOf(terminal).buffer?.lines?.get?.(0);
  const proto = line ? (Object.getPrototypeOf(line) as LinePrototype) : null;
  const original = proto?.addCodepointToCell;
  if (!proto || typeof original !== 'function' || proto.__teamuxCapped) return;
  proto.__teamuxCapped = true;
  proto.addCodepointToCell = function capped(this: LinePrototype, index: number, codePoint: number, width: number): void {
    const combined = ((this._data?.[index * CELL_WORDS] ?? 0) & IS_COMBINED) !== 0 ? this._combined?.[index] : undefined;
    if (combined !== undefined && combined.length >= MAX_CELL_CHARS) return;
    original.call(this, index, codePoint, width);
  };
}

/** The scroll region (DECSTBM) as 0-based top and bottom rows; the whole screen if unknown. */
export function scrollRegion(terminal: Terminal): { top: number; bottom: number } {
  const buffer = coreOf(terminal).buffer;
  const top = typeof buffer?.scrollTop === 'number' ? buffer.scrollTop : 0;
  const bottom = typeof buffer?.scrollBottom === 'number' ? buffer.scrollBottom : terminal.rows - 1;
  return { top, bottom };
}

/** Reset the scroll region to the whole screen (what DECALN does before filling). */
export function resetScrollRegion(terminal: Terminal): void {
  const buffer = coreOf(terminal).buffer;
  if (!buffer || typeof buffer.scrollTop !== 'number' || typeof buffer.scrollBottom !== 'number') return;
  buffer.scrollTop = 0;
  buffer.scrollBottom = terminal.rows - 1;
}

/** Move the cursor to column x, row y of the screen (0-based); x may be cols (the pending-wrap column). */
export function setCursorCell(terminal: Terminal, x: number, y: number): void {
  const buffer = coreOf(terminal).buffer;
  if (!buffer || typeof buffer.x !== 'number' || typeof buffer.y !== 'number') return;
  buffer.x = Math.max(0, Math.min(terminal.cols, x));
  buffer.y = Math.max(0, Math.min(terminal.rows - 1, y));
}

/**
 * Put `handler` in front of xterm's handler for a C0 control (BS): it returns true when it acted,
 * false to let xterm's own handler run. Null when this version of xterm does not offer it; disposing
 * restores xterm's handler.
 */
export function wrapExecuteHandler(terminal: Terminal, control: string, handler: () => boolean): IDisposable | null {
  const parser = coreOf(terminal)._inputHandler?._parser as
    | { setExecuteHandler?(flag: string, callback: () => boolean): void; _executeHandlers?: Record<number, () => boolean> }
    | undefined;
  const original = parser?._executeHandlers?.[control.charCodeAt(0)];
  if (!parser || typeof parser.setExecuteHandler !== 'function' || typeof original !== 'function') return null;
  parser.setExecuteHandler(control, () => handler() || original());
  return { dispose: () => parser.setExecuteHandler?.(control, original) };
}

/** xterm's CircularList of buffer lines, as far as eviction needs it (common/CircularList.ts). */
interface LineList {
  length: number;
  maxLength: number;
  push(value: unknown): void;
  recycle(): unknown;
  splice(start: number, deleteCount: number, ...items: unknown[]): void;
  trimStart(count: number): void;
}

type Evicted = (count: number) => void;
// every terminal that wants its normal buffer's evictions, and which list (looked up once) is whose
const evictionOwners = new Set<{ lines: () => object | undefined; evicted: Evicted }>();
const evictionOf = new WeakMap<object, Evicted | null>();
let listPatched = false;

function evictedHandlerOf(list: object): Evicted | null {
  let handler = evictionOf.get(list);
  if (handler === undefined) {
    handler = null;
    for (const owner of evictionOwners) if (owner.lines() === list) handler = owner.evicted;
    evictionOf.set(list, handler);
  }
  return handler;
}

/**
 * Call `evicted(n)` just before xterm drops the n oldest lines of the normal buffer (the scrollback
 * is full, a resize or ED 3 trims it), while they can still be read at indexes 0..n-1 of
 * `term.buffer.normal`. Patches xterm's CircularList prototype once; null if its shape is not
 * recognised. A new normal buffer (RIS) is found again by the same terminal.
 */
export function onNormalLinesEvicted(terminal: Terminal, evicted: Evicted): IDisposable | null {
  const core = coreOf(terminal);
  const lines = core.buffers?.normal?.lines as Partial<LineList> | undefined;
  const proto = lines ? (Object.getPrototypeOf(lines) as Partial<LineList>) : null;
  if (!proto || typeof proto.push !== 'function' || typeof proto.recycle !== 'function' || typeof proto.splice !== 'function' || typeof proto.trimStart !== 'function') return null;
  if (!listPatched) {
    listPatched = true;
    const { push, recycle, splice, trimStart } = proto as LineList;
    const evict = (list: LineList, count: number): void => {
      if (count > 0) evictedHandlerOf(list)?.(Math.min(count, list.length));
    };
    proto.push = function (this: LineList, value: unknown): void {
      if (this.length === this.maxLength) evict(this, 1);
      push.call(this, value);
    };
    proto.recycle = function (this: LineList): unknown {
      evict(this, 1);
      return recycle.call(this);
    };
    proto.splice = function (this: LineList, start: number, deleteCount: number, ...items: unknown[]): void {
      evict(this, this.length - deleteCount + items.length - this.maxLength);
      splice.call(this, start, deleteCount, ...items);
    };
    proto.trimStart = function (this: LineList, count: number): void {
      evict(this, count);
      trimStart.call(this, count);
    };
  }
  const owner = { lines: () => coreOf(terminal).buffers?.normal?.lines, evicted };
  evictionOwners.add(owner);
  return { dispose: () => void evictionOwners.delete(owner) };
}

/** A buffer line's own cell words: 3 per cell (content, fg, bg), and the text of combined cells. */
export interface RawLine {
  data: Uint32Array;
  combined: Record<number, string>;
  length: number;
}

/**
 * The cell words behind a line of the public API (BufferLineApiView._line), or null if not
 * recognised; written into `into` when given (no object per line on a hot path).
 */
export function rawLineOf(line: IBufferLine, into?: RawLine): RawLine | null {
  const inner = (line as unknown as { _line?: { _data?: unknown; _combined?: unknown; length?: unknown } })._line;
  if (!inner || !(inner._data instanceof Uint32Array) || typeof inner._combined !== 'object' || inner._combined === null) return null;
  const length = typeof inner.length === 'number' ? inner.length : 0;
  if (inner._data.length < length * CELL_WORDS) return null;
  if (!into) return { data: inner._data, combined: inner._combined as Record<number, string>, length };
  into.data = inner._data;
  into.combined = inner._combined as Record<number, string>;
  into.length = length;
  return into;
}
