/**
 * PaneTerminal: the emulator state of one pane. It owns an @xterm/headless Terminal fed with the
 * bytes of the pane's process, the count of bytes written but not yet parsed (for flow control),
 * and the listeners that carry the emulator's replies (DA, DSR/CPR, mouse and focus reports) back
 * to the process. It exposes what the ui needs to draw (rows of packed cells, the cursor) and
 * what the input side needs to encode keys (modes). It knows nothing of blessed or node-pty.
 *
 * Whatever a pane prints must not hold the event loop: counts in escape sequences are clamped to
 * the screen and costly sequences are metered, the parser pausing for a turn of the event loop
 * once enough work is done (limits.ts); one cell keeps a bounded cluster of combining marks; and
 * output is handed to xterm in bounded slices, between which xterm yields once a turn has used its
 * ~12 ms. xterm's own logging is off (it would write to stderr, which is the human's screen).
 */

import { watchRefreshRows } from './dirty-rows.js';
import xtermHeadless from '@xterm/headless';
import type { IBufferCell, IBufferLine, IDisposable, Terminal as XtermTerminal } from '@xterm/headless';
import { ATTR_DEFAULT } from './attr.js';
import { attrOfCell, CellReader, type Cell, type CellVisitor } from './cells.js';
import { compactLine, compactWords, expandLine, type CompactLine } from './history.js';
import { HistoryStore } from './history-store.js';
import { REPORT_WINDOW_OPTIONS, TerminalAnswers, type CellPixels, type TerminalColors } from './answers.js';
import { installSequenceLimits, WorkMeter } from './limits.js';
import { parseBudget } from './parse-budget.js';
import { installReverseWrap } from './reverse-wrap.js';
import { teamuxUnicode, UNICODE_VERSION } from './width.js';
import {
  applicationCursorKeysOf,
  capCombiningMarks,
  registerEscHook,
  registerParamsHook,
  isCursorHidden,
  printsPlainly,
  markUserInput,
  mouseEncodingOf,
  onNormalLinesEvicted,
  rawLineOf,
  triggerMouseEvent,
  type RawLine,
  type MouseEncoding,
  type MouseReport,
} from './xterm-internals.js';

const TRAILING_SPACES = / +$/;
// a content word no cell has (width 3): a row whose words are this was never visited
const UNSEEN = 0xffffffff;
const EMPTY_LINE: CompactLine = { text: '', layout: null, runs: null, wrapped: false };

// @xterm/headless ships CommonJS only; under Node ESM its exports arrive on the default import.
const { Terminal } = xtermHeadless;

export type { Cell } from './cells.js';
export type { MouseEncoding, MouseReport } from './xterm-internals.js';

/** Something that holds resources and must be released by its owner. */
export interface Disposable {
  dispose(): void;
}

/** Which mouse events the application asked to be told about (DECSET 9/1000/1002/1003). */
export type MouseTrackingMode = 'none' | 'x10' | 'vt200' | 'drag' | 'any';

/** The terminal modes the owner needs to encode input for this pane. */
export interface PaneModes {
  mouseTracking: MouseTrackingMode;
  mouseEncoding: MouseEncoding;
  bracketedPaste: boolean;
  applicationCursorKeys: boolean;
  applicationKeypad: boolean;
  /** The application wants `CSI I` / `CSI O` on focus changes (DECSET 1004). */
  sendFocus: boolean;
  alternateScreen: boolean;
}

/** The cursor within the visible viewport; visible is false when hidden or scrolled out of view. */
export interface PaneCursor {
  x: number;
  y: number;
  visible: boolean;
}

/**
 * Output is handed to xterm in slices of at most this many bytes (UTF-16 units for strings): the
 * sequences that cost a screenful are metered (limits.ts), and what is left costs at most about a
 * line of cells per byte (LF scrolling, EL), so a slice is a bounded piece of work.
 */
export const SLICE_BYTES = 16 * 1024;

/**
 * Scrollback lines xterm itself keeps, at full width (they reflow on a resize); older history is
 * kept compactly (history.ts), up to the pane's scrollback in all.
 */
export const XTERM_SCROLLBACK = 200;

/** Options for a new PaneTerminal. */
export interface PaneTerminalOptions {
  cols: number;
  rows: number;
  /** Lines of history kept above the screen; default 5000. */
  scrollback?: number;
  /** Colours reported to OSC 10/11/12 queries (the outer terminal's or a theme); default answers.ts's. */
  colors?: TerminalColors;
  /** Cell size reported to CSI 14 t / 16 t; default 8x16. */
  cellPixels?: CellPixels;
}

/** A reply the emulator wants sent to the process; binary replies are one byte per char (X10 mouse). */
export type ReplyListener = (data: string, binary: boolean) => void;

/** The per-pane terminal model: bytes in, cells and modes out. */
export class PaneTerminal implements Disposable {
  // emulator, for the pane's whole life, and its buffers (the API object, looked up once)
  private readonly term: XtermTerminal;
  private readonly buffers: XtermTerminal['buffer'];
  private readonly reader: CellReader;
  // listeners registered with the emulator, released on dispose
  private readonly subscriptions: IDisposable[] = [];
  private readonly replyListeners = new Set<ReplyListener>();
  // costly escape sequences charge this; it pauses the parser for a turn of the event loop
  private readonly meter = new WorkMeter();
  /** What the pane answers to size and colour queries; the owner may update colours and cell size. */
  readonly answers: TerminalAnswers;
  // history older than xterm's scrollback, and the viewport over both: how many lines it is above
  // the live screen, and where history stood when that was last brought up to date
  private readonly history: HistoryStore;
  private discardEvicted = false;
  private offset = 0;
  private historyMark = 0;
  private readonly evictScratch: Cell[] = [];
  private readonly evictCell: IBufferCell;
  private evictLine: IBufferLine | undefined;
  private readonly evictAttrAt = (x: number): number => {
    const cell = this.evictLine?.getCell(x, this.evictCell);
    return cell ? attrOfCell(cell) : ATTR_DEFAULT;
  };
  private readonly evictRaw: RawLine = { data: new Uint32Array(0), combined: {}, length: 0 };
  private readonly rowScratch: Cell[] = [];
  // the cell words of each visible row as last visited by visitChangedCells (3 a cell, row-major)
  private seen = new Uint32Array(0);
  private seenCols = 0;
  // flow control: bytes handed to write() whose parse callback has not fired yet
  private pending = 0;
  private disposed = false;

  constructor(options: PaneTerminalOptions) {
    const scrollback = options.scrollback ?? 5000;
    this.term = new Terminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: Math.min(scrollback, XTERM_SCROLLBACK),
      allowProposedApi: true,
      logLevel: 'off',
      windowOptions: { ...REPORT_WINDOW_OPTIONS },
    });
    this.buffers = this.term.buffer;
    this.answers = new TerminalAnswers(options.colors, options.cellPixels);
    // cell widths come from the one width function the chrome also measures with (width.ts)
    this.term.unicode.register(teamuxUnicode);
    this.term.unicode.activeVersion = UNICODE_VERSION;
    for (const limit of installSequenceLimits(this.term, this.meter)) this.subscriptions.push(limit);
    capCombiningMarks(this.term);
    for (const handler of installReverseWrap(this.term, (data) => this.emitReply(data, false))) this.subscriptions.push(handler);
    for (const handler of this.answers.install(this.term, this.meter, (data) => this.emitReply(data, false))) this.subscriptions.push(handler);
    this.reader = new CellReader(this.buffers.active.getNullCell());
    this.evictCell = this.buffers.active.getNullCell();
    this.history = new HistoryStore(Math.max(0, scrollback - XTERM_SCROLLBACK));
    const evictions = onNormalLinesEvicted(this.term, (count) => this.keepEvicted(count));
    // without the hook xterm keeps the whole scrollback itself, at full width
    if (evictions) this.subscriptions.push(evictions);
    else this.term.options.scrollback = scrollback;
    // ED 3 clears the scrollback: the compact history too, and what xterm trims is not kept
    const clear = registerParamsHook(this.term, { final: 'J' }, (params) => {
      if (params.length < 1 || params.params[0] !== 3) return false;
      this.history.clear();
      this.discardEvicted = true;
      queueMicrotask(() => (this.discardEvicted = false));
      return false;
    });
    if (clear) this.subscriptions.push(clear);
    // RIS: xterm starts a new buffer without scrollback; history goes with it, as it always did
    const reset = registerEscHook(this.term, { final: 'c' }, () => {
      this.history.clear();
      return false;
    });
    if (reset) this.subscriptions.push(reset);
    this.track(this.term.onData((data) => this.emitReply(data, false)));
    this.track(this.term.onBinary((data) => this.emitReply(data, true)));
  }

  /** Feed process output; onParsed fires once the emulator has parsed these bytes. */
  write(data: string | Uint8Array, onParsed?: () => void): void {
    if (this.disposed) return;
    const size = typeof data === 'string' ? data.length : data.byteLength;
    const slice = SLICE_BYTES;
    this.pending += size;
    // xterm keeps UTF-8 and surrogate-pair state across writes, so any cut point is safe.
    for (let start = 0; start < size; start += slice) {
      const end = Math.min(size, start + slice);
      const part = typeof data === 'string' ? data.slice(start, end) : data.subarray(start, end);
      const last = end === size;
      const parsed = (): void => {
        this.pending -= end - start;
        if (last) onParsed?.();
      };
      // Nothing queued ahead of this slice: parse now, within the budget (parse-budget.ts), else on xterm's own timer.
      if (this.pending === size - start && parseBudget.allows()) {
        parseBudget.spend(() => {
          markUserInput(this.term);
          this.term.write(part, parsed);
        });
      } else this.term.write(part, parsed);
    }
    if (size === 0) this.term.write(data, () => onParsed?.());
  }

  /** Feed process output and resolve once it is parsed. */
  writeAsync(data: string | Uint8Array): Promise<void> {
    if (this.disposed) return Promise.resolve();
    return new Promise((resolve) => this.write(data, resolve));
  }

  /** How many times the parser paused for the event loop under costly sequences. */
  get parserPauses(): number {
    return this.meter.pauses;
  }

  /** Bytes written but not parsed yet (UTF-16 units for string writes). */
  get pendingBytes(): number {
    return this.pending;
  }

  /** Listen for replies the emulator generates (DA, DSR/CPR, mouse and focus reports). */
  onReply(listener: ReplyListener): Disposable {
    this.replyListeners.add(listener);
    return { dispose: () => void this.replyListeners.delete(listener) };
  }

  /** Listen for title changes (OSC 0/2). */
  onTitle(listener: (title: string) => void): Disposable {
    return this.track(this.term.onTitleChange(listener));
  }

  /** Listen for the bell (BEL). */
  onBell(listener: () => void): Disposable {
    return this.track(this.term.onBell(listener));
  }

  /** Columns of the emulated screen. */
  get cols(): number {
    return this.term.cols;
  }

  /** Rows of the emulated screen. */
  get rows(): number {
    return this.term.rows;
  }

  /** Resize the screen; the owner resizes the pty to match. */
  resize(cols: number, rows: number): void {
    if (cols === this.term.cols && rows === this.term.rows) return;
    this.term.resize(Math.max(1, cols), Math.max(1, rows));
  }

  /** Move the viewport through history: negative is up (older), positive down. */
  scrollBy(lines: number): void {
    this.followHistory();
    this.offset = Math.max(0, Math.min(this.historyLength, this.offset - lines));
  }

  /** Return the viewport to the live screen. */
  scrollToBottom(): void {
    this.offset = 0;
  }

  /** Whether the viewport shows history rather than the live screen. */
  get isScrolledBack(): boolean {
    return this.scrollOffset > 0;
  }

  /** How many lines the viewport is above the live screen (0 when at the bottom). */
  get scrollOffset(): number {
    this.followHistory();
    return this.offset;
  }

  /** Lines of history above the live screen: the compact ones, then xterm's (none on the alternate screen). */
  get historyLength(): number {
    const buffer = this.buffers.active;
    return buffer.type === 'alternate' ? 0 : this.history.length + buffer.baseY;
  }

  /** The modes set by the application. */
  get modes(): PaneModes {
    const modes = this.term.modes;
    return {
      mouseTracking: modes.mouseTrackingMode,
      mouseEncoding: mouseEncodingOf(this.term),
      bracketedPaste: modes.bracketedPasteMode,
      applicationCursorKeys: modes.applicationCursorKeysMode,
      applicationKeypad: modes.applicationKeypadMode,
      sendFocus: modes.sendFocusMode,
      alternateScreen: this.buffers.active.type === 'alternate',
    };
  }

  /** Whether cursor keys are sent in application mode (DECCKM), without building every mode as `modes` does. */
  get applicationCursorKeys(): boolean {
    return applicationCursorKeysOf(this.term);
  }

  /** The cursor in viewport coordinates. */
  get cursor(): PaneCursor {
    const buffer = this.buffers.active;
    const y = buffer.cursorY + this.scrollOffset;
    const x = Math.min(buffer.cursorX, this.term.cols - 1);
    const visible = !isCursorHidden(this.term) && y >= 0 && y < this.term.rows;
    return { x, y, visible };
  }

  /**
   * Where `length` printable ASCII characters written now would go, in viewport coordinates, when the
   * emulator would print them as they are (printsPlainly: between sequences, the default attribute, no
   * insert mode or character set, no synchronized update under way), with nothing unparsed before them,
   * the live screen in view and room before the last column (no wrap); null otherwise. A screen may show
   * such an echo before it is parsed.
   */
  plainPrintAt(length: number): { x: number; y: number } | null {
    if (this.pending > 0 || this.isScrolledBack) return null;
    const buffer = this.buffers.active;
    const x = buffer.cursorX;
    if (x + length >= this.term.cols || !printsPlainly(this.term)) return null;
    return { x, y: buffer.cursorY };
  }

  /** The user typed into this pane: parse the echo that follows without deferring it. */
  noteUserInput(): void {
    markUserInput(this.term);
  }

  /** Encode a mouse event under the application's mouse mode; false if it is not reported. */
  reportMouse(report: MouseReport): boolean {
    if (this.term.modes.mouseTrackingMode === 'none') return false;
    return triggerMouseEvent(this.term, report);
  }

  /** Send a focus report if the application asked for them (DECSET 1004). */
  reportFocus(focused: boolean): boolean {
    if (!this.term.modes.sendFocusMode) return false;
    this.emitReply(focused ? '\x1b[I' : '\x1b[O', false);
    return true;
  }

  /** The cells of visible row y (0-based, viewport-relative); always `cols` cells. */
  readRow(y: number): Cell[] {
    const cells: Cell[] = [];
    this.readRowInto(y, cells);
    return cells;
  }

  /** Fill `out` with the cells of visible row y, reusing its Cell objects; returns `cols`. */
  readRowInto(y: number, out: Cell[]): number {
    const row = this.viewportRow(y);
    if (row.compact) return expandLine(row.compact, this.term.cols, out);
    return this.reader.read(row.line, this.term.cols, out);
  }

  /** Visit the cells of visible row y without allocating; the cell is reused between calls. */
  forEachCell(y: number, visit: CellVisitor): void {
    const row = this.viewportRow(y);
    if (!row.compact) {
      this.reader.visit(row.line, this.term.cols, visit);
      return;
    }
    const cells = this.rowScratch;
    expandLine(row.compact, this.term.cols, cells);
    for (let x = 0; x < cells.length; x++) visit(x, cells[x]!);
  }

  /**
   * Visit the cells of visible row y that changed since this row was last visited here, or all of
   * them when `all` (then the caller repaints the row whole); the Cell is reused between calls. A
   * row read from compact history, or whose words cannot be read, is visited whole. The drawing of a
   * pane that scrolled costs a comparison of numbers per cell and a visit only where text or style
   * differs from what that screen row showed.
   */
  visitChangedCells(y: number, all: boolean, visit: CellVisitor): void {
    const cols = this.term.cols;
    const size = this.term.rows * cols * 3;
    if (this.seen.length !== size || this.seenCols !== cols) {
      // a new size: nothing is known to be on screen
      this.seen = new Uint32Array(size).fill(UNSEEN);
      this.seenCols = cols;
    }
    if (y < 0 || y >= this.term.rows) return;
    const at = y * cols * 3;
    const row = this.viewportRow(y);
    if (row.line && this.reader.visitChanged(row.line, cols, this.seen, at, all, visit)) return;
    this.seen.fill(UNSEEN, at, at + cols * 3);
    this.forEachCell(y, visit);
  }

  /** The plain text of the visible rows, right-trimmed (written spaces too, not only empty cells). */
  snapshotText(): string[] {
    const rows: string[] = [];
    for (let y = 0; y < this.term.rows; y++) {
      const row = this.viewportRow(y);
      let text: string;
      if (row.compact) {
        expandLine(row.compact, this.term.cols, this.rowScratch);
        text = this.rowScratch.map((cell) => cell.ch).join('');
      } else text = row.line?.translateToString(true) ?? '';
      rows.push(text.replace(TRAILING_SPACES, ''));
    }
    return rows;
  }

  /** Visible row y: a compact history line, or a line of xterm's buffer. */
  private viewportRow(y: number): { compact: CompactLine | undefined; line: ReturnType<XtermTerminal['buffer']['active']['getLine']> } {
    const buffer = this.buffers.active;
    if (buffer.type === 'alternate') return { compact: undefined, line: buffer.getLine(buffer.viewportY + y) };
    // rows of history and screen, oldest first: the compact lines, then xterm's buffer
    const index = this.historyLength - this.scrollOffset + y;
    if (index < this.history.length) return { compact: this.history.get(index) ?? EMPTY_LINE, line: undefined };
    return { compact: undefined, line: buffer.getLine(index - this.history.length) };
  }

  /** Keep the viewport on the same lines while output pushes new ones into history. */
  private followHistory(): void {
    const mark = this.history.added + this.buffers.normal.baseY;
    if (this.offset > 0) this.offset = Math.max(0, Math.min(this.historyLength, this.offset + mark - this.historyMark));
    this.historyMark = mark;
  }

  /** xterm is about to drop its `count` oldest scrollback lines: keep them compactly. */
  private keepEvicted(count: number): void {
    if (this.discardEvicted || this.history.capacity === 0) return;
    const buffer = this.buffers.normal;
    for (let i = Math.max(0, count - this.history.capacity); i < count; i++) {
      const line = buffer.getLine(i);
      if (!line) continue;
      // from xterm's cell words when it lets us (a few times faster; a plain line straight into
      // the store, with no garbage), else cell by cell
      const raw = rawLineOf(line, this.evictRaw);
      this.evictLine = line;
      if (raw && this.history.pushWords(raw.data, raw.length, line.isWrapped, this.evictAttrAt)) continue;
      const compact = raw
        ? compactWords(raw.data, raw.combined, raw.length, line.isWrapped, this.evictAttrAt)
        : compactLine((this.reader.read(line, line.length, this.evictScratch), this.evictScratch), line.length, line.isWrapped);
      this.history.push(compact);
    }
    this.evictLine = undefined;
  }

  /** Release the emulator and every listener. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
    this.replyListeners.clear();
    this.term.dispose();
  }

  /** Listen for the visible rows each parse changed (start..end, inclusive); null when xterm does not say. */
  onRowsChanged(listener: (start: number, end: number) => void): Disposable | null {
    const sub = watchRefreshRows(this.term, listener);
    return sub ? this.track(sub) : null;
  }

  /** Register an emulator subscription with this pane; disposing it also forgets it. */
  private track(subscription: IDisposable): Disposable {
    this.subscriptions.push(subscription);
    return {
      dispose: () => {
        const index = this.subscriptions.indexOf(subscription);
        if (index >= 0) this.subscriptions.splice(index, 1);
        subscription.dispose();
      },
    };
  }

  private emitReply(data: string, binary: boolean): void {
    for (const listener of this.replyListeners) listener(data, binary);
  }
}
