/**
 * The one file that knows blessed: TerminalScreen is the Surface on a real terminal. It owns the
 * blessed screen (whose cell grid the painters write into and whose patched draw sends only what
 * changed), the terminal's modes (TerminalGuard), and the input side: bytes decoded as UTF-8, split
 * into tokens, a lone ESC turned into a key after a short quiet time measured on the given clock.
 * blessed reads no input itself (it gets an idle stream); keys come only through onInput.
 */
import type { Widgets } from 'blessed';
// The Screen widget alone: blessed's main module loads every widget (see blessed-screen.d.ts).
import BlessedScreen from 'blessed/lib/widgets/screen.js';
import BlessedTput from 'blessed/lib/tput.js';
import { PassThrough } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { InputTokenizer, type InputToken } from '../keys/input.js';
import type { Clock, ClockTimer } from '../host/clock.js';
import { patchBlessedScreen, type BlessedScreenInternals } from './blessed-attrs.js';
import { drawnCells } from './blessed-draw.js';
import { ShownRow } from './shown-cells.js';
import { markChanged, type CellGrid, type GridLine, type Surface, type SurfaceCursor, type Unsubscribe } from './surface.js';
import { TerminalGuard } from './terminal-guard.js';
import { isPlainAscii } from '../vt/width.js';
import { frameBytes, FrameWriter, type CursorCodes } from './frame-write.js';

/** How long a lone ESC waits for the rest of a sequence before it counts as the Escape key. */
export const ESC_TIMEOUT_MS = 25;

interface Program {
  /** What blessed holds for its write on the next turn of the event loop. */
  _buf: string;
  /** blessed's write of what it holds, which it schedules for the next turn. */
  _flush: () => void;
  /** Whether the terminal's cursor is hidden (blessed's own show and hide keep it too). */
  cursorHidden: boolean;
  x: number;
  y: number;
  tput: { brokenACS: boolean; civis(): string; cnorm(): string };
}

/** Patch blessed's Screen so the attrs panes carry reach the terminal (ui/blessed-attrs.ts; idempotent). */
export function installBlessedAttrs(): void {
  // The same object as the full package's blessed.screen (one module, one cache entry).
  patchBlessedScreen(BlessedScreen.prototype as unknown as Record<string, unknown>);
}

/** The cell grid of a blessed screen (for painters and tests that draw into an off-screen blessed screen). */
export function gridOf(screen: Widgets.Screen): CellGrid {
  installBlessedAttrs();
  const internals = screen as unknown as BlessedScreenInternals;
  return {
    get lines(): GridLine[] {
      return internals.lines;
    },
    get blank(): number {
      return internals.dattr;
    },
  };
}

/** A Surface drawn with blessed on the given terminal streams. */
export class TerminalScreen implements Surface {
  // the blessed screen and its grid
  private readonly screen: Widgets.Screen;
  private readonly grid: CellGrid;
  private readonly program: Program;
  // blessed's screen as blessed-draw.ts draws its changed cells
  private readonly internals: BlessedScreenInternals;
  // where the terminal's cursor was left, and the terminal's codes to hide and show it
  private readonly shownCursor = { x: -1, y: -1, hidden: false };
  private readonly cursorCodes: CursorCodes;
  // the terminal's modes, and how frames are written to it
  private readonly guard: TerminalGuard;
  private readonly writer: FrameWriter;
  // input
  private readonly tokenizer = new InputTokenizer();
  private readonly decoder = new StringDecoder('utf8');
  private escTimer: ClockTimer | null = null;
  private readonly inputListeners = new Set<(t: InputToken) => void>();
  private readonly resizeListeners = new Set<(cols: number, rows: number) => void>();
  private readonly endListeners = new Set<() => void>();
  private plainKeys: ((key: string) => boolean) | null = null;
  private readonly onData = (chunk: Buffer): void => {
    const text = this.decoder.write(chunk);
    // One printable key with nothing in progress (typing) may go straight to its pane: the echo waits
    // for that write, and the tokenizer and the reducer would only pass it through.
    if (text.length === 1 && this.plainKeys !== null && this.tokenizer.idle) {
      const c = text.charCodeAt(0);
      if (c >= 0x20 && c <= 0x7e && this.plainKeys(text)) return;
    }
    this.emit(this.tokenizer.feed(text));
    this.clock.clearTimeout(this.escTimer);
    this.escTimer = this.tokenizer.hasPending ? this.clock.setTimeout(() => {
      this.escTimer = null;
      this.emit(this.tokenizer.flush());
    }, ESC_TIMEOUT_MS) : null;
  };
  private readonly onEndOfInput = (): void => {
    for (const l of [...this.endListeners]) l();
  };

  constructor(private readonly input: NodeJS.ReadStream, private readonly output: NodeJS.WriteStream, title: string, private readonly clock: Clock) {
    installBlessedAttrs();
    compileTerminfoLazily();
    this.screen = outOfTmuxSight(() => BlessedScreen({
      input: new PassThrough() as unknown as NodeJS.WriteStream,
      output,
      terminal: 'xterm-256color',
      fullUnicode: true,
      forceUnicode: true,
      smartCSR: false,
      warnings: false,
      dockBorders: false,
      autoPadding: false,
      title,
    }));
    this.grid = gridOf(this.screen);
    this.program = (this.screen as unknown as { program: Program }).program;
    this.internals = this.screen as unknown as BlessedScreenInternals;
    // Draw box characters as UTF-8, never through the VT100 alternate character set: a pane's text
    // and the separators then read the same in every terminal and in tmux's capture-pane.
    this.program.tput.brokenACS = true;
    // What blessed writes on its own (the clear and redraw of a resize) goes out on the next turn and
    // moves the terminal's cursor: where it is is then unknown until a frame places it.
    const flushQueued = this.program._flush;
    this.program._flush = () => {
      if (this.program._buf) this.shownCursor.x = -1;
      flushQueued();
    };
    this.cursorCodes = { hide: this.program.tput.civis(), show: this.program.tput.cnorm() };
    this.guard = new TerminalGuard(input, output);
    this.writer = new FrameWriter(output);
    this.guard.enter();
    input.resume();
    input.on('data', this.onData);
    input.on('end', this.onEndOfInput);
    this.screen.on('resize', () => {
      for (const l of [...this.resizeListeners]) l(this.cols, this.rows);
    });
  }

  get lines(): GridLine[] {
    return this.grid.lines;
  }

  get blank(): number {
    return this.grid.blank;
  }

  get cols(): number {
    return this.screen.width as number;
  }

  get rows(): number {
    return this.screen.height as number;
  }

  flush(cursor: SurfaceCursor): void {
    // Only the grid's changed cells are drawn: blessed's render() would first walk a widget tree
    // teamux does not have and emit events nothing here listens to. What blessed queued for its write
    // on the next turn goes first, and the frame (a key's echo among them) goes to the terminal now,
    // in one write, with the cursor placed only where it moved (frame-write.ts).
    const queued = this.program._buf;
    this.program._buf = '';
    const cells = drawnCells(this.internals, 0, this.grid.lines.length - 1);
    const shown = this.shownCursor;
    shown.hidden = this.program.cursorHidden;
    this.writer.write(frameBytes(queued, cells, cursor, shown, this.cursorCodes));
    this.program.cursorHidden = shown.hidden;
    if (cursor) {
      this.program.x = cursor.x;
      this.program.y = cursor.y;
    }
  }

  /**
   * An echo written ahead of its frame (see Surface.echoAt). It is written only where the bytes alone
   * are known to put exactly these cells on the terminal: the terminal's cursor shown at (x, y), nothing
   * of blessed's queued, the default attribute in effect (every frame ends with it), the text ending
   * before the last column (no wrap), and no cell it covers or ends beside holding half of a wide
   * character. The cells are then recorded as shown and marked changed, and the cursor as moved: the
   * frame that follows sends nothing for them when the painted grid agrees, and redraws them when not.
   */
  echoAt(x: number, y: number, text: string): boolean {
    const shown = this.shownCursor;
    if (shown.hidden || shown.x !== x || shown.y !== y || this.program._buf !== '') return false;
    const end = x + text.length;
    const row = this.internals.olines[y];
    const line = this.grid.lines[y];
    if (text.length === 0 || !isPlainAscii(text) || !(row instanceof ShownRow) || !line || line.length !== row.length || end >= row.length) return false;
    // a wide character's right half is '' (unknown cells too): one inside the span, at x (its left half
    // before x) or at the end (its left half the span's last cell) would be cut by the write
    for (let i = x; i <= end; i++) if (row.texts[i] === '') return false;
    this.writer.write(text);
    const attr = this.internals.dattr;
    for (let i = 0; i < text.length; i++) {
      row.attrs[x + i] = attr;
      row.texts[x + i] = text[i]!;
    }
    markChanged(line, x, end - 1);
    shown.x = end;
    this.program.x = end;
    return true;
  }

  bell(): void {
    this.output.write('\x07');
  }

  title(text: string): void {
    this.output.write(`\x1b]2;${text}\x07`);
  }

  onInput(listener: (token: InputToken) => void): Unsubscribe {
    return subscribe(this.inputListeners, listener);
  }

  takePlainKeys(take: (key: string) => boolean): Unsubscribe {
    this.plainKeys = take;
    return { dispose: () => void (this.plainKeys === take && (this.plainKeys = null)) };
  }

  onResize(listener: (cols: number, rows: number) => void): Unsubscribe {
    return subscribe(this.resizeListeners, listener);
  }

  onEnd(listener: () => void): Unsubscribe {
    return subscribe(this.endListeners, listener);
  }

  restore(): void {
    this.guard.restore();
  }

  destroy(): void {
    this.clock.clearTimeout(this.escTimer);
    this.escTimer = null;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEndOfInput);
    this.inputListeners.clear();
    this.resizeListeners.clear();
    this.endListeners.clear();
    this.screen.destroy();
  }

  private emit(tokens: InputToken[]): void {
    for (const t of tokens) for (const l of [...this.inputListeners]) l(t);
  }
}

/** Marks blessed's Tput as patched (once per process). */
const LAZY_TERMINFO = Symbol.for('teamux.lazyTerminfo');

/**
 * Compile terminfo capabilities when they are first used instead of all ~960 when a screen is made:
 * blessed turns each capability string into a function with `new Function`, a large part of the
 * screen's start-up, and the screen uses a dozen. The functions are the same, made later.
 */
export function compileTerminfoLazily(): void {
  const proto = BlessedTput.prototype;
  if (proto[LAZY_TERMINFO as unknown as string]) return;
  Object.defineProperty(proto, LAZY_TERMINFO, { value: true });
  readBundledTerminfo(proto);
  const compileNow = proto._compile;
  proto._compile = function lazyCompile(this: { options: { stringify?: boolean } }, info: unknown, key: string, str: unknown) {
    // Strings are all that is compiled; two keys read a file and `stringify` wants values, not functions.
    if (typeof str !== 'string' || !str || key === 'init_file' || key === 'reset_file' || this.options.stringify) return compileNow.call(this, info, key, str);
    let compiled: ((...args: unknown[]) => unknown) | null = null;
    const tput = this;
    return function compiledOnUse(this: unknown, ...args: unknown[]): unknown {
      compiled ??= compileNow.call(tput, info, key, str) as (...args: unknown[]) => unknown;
      return compiled.apply(this, args);
    };
  };
}

/**
 * The screen always draws for xterm-256color (TerminalScreen's `terminal`), so its description is
 * read from the copy blessed ships, not looked up in the system's terminfo folders: ncurses 6.1 and
 * later write that entry in the extended (32-bit) format, which blessed's reader cannot parse. It
 * read and rejected the system's file on every start (an AssertionError built and caught), then read
 * its own. Now it reads its own at once, and the screen's capabilities are the same on every system.
 * Any other terminal name, or termcap, is set up as blessed does.
 */
function readBundledTerminfo(proto: typeof BlessedTput.prototype): void {
  const setup = proto.setup;
  proto.setup = function setupFromBundledXterm(this: BlessedTputSetup): unknown {
    if (this.termcap || this.terminal !== 'xterm-256color') return setup.call(this);
    try {
      this.error = null;
      return this._useInternalInfo(this.terminal);
    } catch {
      return setup.call(this);
    }
  };
}

/** What readBundledTerminfo uses of a Tput. */
interface BlessedTputSetup {
  termcap: unknown;
  terminal: string;
  error: Error | null;
  _useInternalInfo(name: string): unknown;
}

/**
 * Run `make` with $TMUX unset. blessed's Program, made inside tmux, runs `tmux -V` as a synchronous
 * child process (milliseconds with the event loop stopped, far more on a loaded machine), only to wrap
 * in tmux's passthrough the writes teamux never makes through blessed (cursor shape and colour, the
 * clipboard, all-motion mouse): the terminal's modes are TerminalGuard's. The variable is put back at once.
 */
function outOfTmuxSight<T>(make: () => T): T {
  const tmux = process.env.TMUX;
  if (tmux === undefined) return make();
  delete process.env.TMUX;
  try {
    return make();
  } finally {
    process.env.TMUX = tmux;
  }
}

function subscribe<T>(set: Set<T>, listener: T): Unsubscribe {
  set.add(listener);
  return { dispose: () => void set.delete(listener) };
}
