/**
 * The agent's own terminal output, in plain ANSI. On a terminal of at least 6 rows the screen is
 * split with a scroll region (DECSTBM): streamed text, tool calls and notices scroll in rows
 * 1..R-2, the status line sits on row R-1 and the line being typed on row R. The content cursor is
 * saved (DECSC) after every content write and restored (DECRC) before the next, so redrawing the
 * two bottom lines never disturbs the text. Long lines are word-wrapped by the pane itself
 * (wrapText), so no write ends in the terminal's pending-wrap state, which DECRC would lose.
 * After a resize the terminal has reflowed the old rows (the full-width status line wraps, rows move
 * up or down), so the pane clears its screen and draws the content rows again from the text it keeps
 * (the newest CONTENT_KEPT characters), wrapped at the new width: nothing of the old status or input
 * line is left behind for later lines to overwrite in part.
 * Without a terminal (a pipe, a test) the same calls print plain lines, and a status line whenever
 * the state changes.
 */
import type { Disposable } from '../host/types.js';
import type { Message } from '../protocol/types.js';
import { holdPartialWord, inboxLine, resultPreview, statusLine, toolCallLine, wrapText, type StatusInfo, type WrapState } from './view.js';

/** Where the pane writes, and how big it is. */
export interface PaneSink {
  write(text: string): void;
  readonly tty: boolean;
  columns(): number;
  rows(): number;
}

const ESC = '\x1b';
const SAVE = `${ESC}7`;
const RESTORE = `${ESC}8`;
const RESET = `${ESC}[0m`;
const STYLE = { dim: `${ESC}[2m`, red: `${ESC}[31m`, yellow: `${ESC}[33m`, cyan: `${ESC}[36m`, magenta: `${ESC}[35m`, reverse: `${ESC}[7m`, bold: `${ESC}[1m` } as const;
export type Style = keyof typeof STYLE;
/** Characters of content the pane keeps to draw its rows again after a resize (a screenful and more). */
const CONTENT_KEPT = 32 * 1024;

/** A sink writing to a stream (process.stdout in the CLI). */
export function streamSink(stream: NodeJS.WriteStream): PaneSink {
  return {
    write: (text) => {
      if (!stream.destroyed && stream.writable) stream.write(text);
    },
    tty: Boolean(stream.isTTY),
    columns: () => stream.columns || 80,
    rows: () => stream.rows || 24,
  };
}

/** The pane renderer. */
export class Pane implements Disposable {
  // fixed at construction
  private readonly sink: PaneSink;
  private readonly split: () => boolean;
  // what is on screen
  private atLineStart = true;
  private statusInfo: StatusInfo | null = null;
  private lastPlainStatus = '';
  private typed = '';
  private started = false;
  private wrap: WrapState = { col: 0, justWrapped: false };
  /** The end of streamed text that may be the start of a word, shown once the word is complete. */
  private held = '';
  /** The content written to the scroll region, unwrapped (the newest CONTENT_KEPT characters or more). */
  private kept = '';

  constructor(sink: PaneSink) {
    this.sink = sink;
    this.split = () => sink.tty && sink.rows() >= 6;
  }

  /** Set up the screen (the scroll region on a terminal). */
  start(): void {
    this.started = true;
    if (!this.split()) return;
    const rows = this.sink.rows();
    const fresh = this.wrap.col > 0 ? '\r\n' : '';
    this.wrap = { col: 0, justWrapped: false };
    this.sink.write(`${ESC}[1;${rows - 2}r${ESC}[${rows - 2};1H${fresh}${SAVE}`);
    this.drawBottom();
  }

  /** Re-apply the layout after the terminal was resized: clear it and draw the kept content again. */
  resize(): void {
    if (!this.started || !this.split()) return;
    const rows = this.sink.rows();
    const wrapped = wrapText(this.kept, { col: 0, justWrapped: false }, this.sink.columns());
    const lines = wrapped.out.split('\r\n').slice(-(rows - 2));
    this.wrap = wrapped.state;
    // The last line is where the content cursor continues; the block ends on the region's last row.
    const top = rows - 2 - (lines.length - 1);
    this.sink.write(`${ESC}[r${ESC}[0m${ESC}[2J${ESC}[1;${rows - 2}r${ESC}[${top};1H${lines.join('\r\n')}${RESET}${SAVE}`);
    this.drawBottom();
    this.parkCursor();
  }

  /** Streamed assistant text (on a terminal, a word is shown once complete so it can wrap whole). */
  text(delta: string): void {
    if (delta === '') return;
    if (this.split()) {
      const { ready, held } = holdPartialWord(this.held + delta);
      this.held = held;
      if (ready) this.content(ready);
    } else {
      this.content(delta);
    }
    this.atLineStart = delta.endsWith('\n');
  }

  /** End streamed text with a line break if it did not end with one. */
  endText(): void {
    if (this.held) {
      this.content(this.held);
      this.held = '';
    }
    if (!this.atLineStart) this.content('\n');
    this.atLineStart = true;
  }

  /** One whole line (a notice, an echo of typed input). */
  line(text: string, style?: Style): void {
    this.endText();
    this.content(`${this.styled(text, style)}\n`);
  }

  /** A tool call and, later, its result. */
  tool(name: string, summary: string): void {
    this.endText();
    const line = toolCallLine(name, summary, this.sink.columns());
    this.content(`${this.styled(line.slice(0, 2 + name.length), 'cyan')}${line.slice(2 + name.length)}\n`);
  }

  /** The first lines of a tool result. */
  toolResult(text: string, isError: boolean): void {
    for (const l of resultPreview(text, isError, this.sink.columns())) this.content(`${this.styled(l, isError ? 'red' : 'dim')}\n`);
  }

  /** An inbox message delivered to the model. */
  inbox(m: Message): void {
    this.line(inboxLine(m, this.sink.columns()), 'yellow');
  }

  /** Update the status line. */
  status(info: StatusInfo): void {
    this.statusInfo = info;
    if (this.split()) {
      this.drawBottom();
      return;
    }
    const text = statusLine(info, this.sink.columns() - 6);
    const key = `${info.state}|${info.note ?? ''}`;
    if (key === this.lastPlainStatus) return;
    this.lastPlainStatus = key;
    this.line(`── ${text} ──`, 'dim');
  }

  /** Show the line being typed. */
  input(typed: string): void {
    this.typed = typed;
    if (this.split()) this.drawBottom();
  }

  /** Reset the scroll region and leave the cursor below everything. */
  dispose(): void {
    if (!this.started) return;
    this.started = false;
    if (this.split()) {
      const rows = this.sink.rows();
      this.sink.write(`${ESC}[r${ESC}[${rows - 1};1H${ESC}[2K${ESC}[${rows};1H${ESC}[2K${ESC}[${rows - 1};1H`);
    } else {
      this.endText();
    }
  }

  private styled(text: string, style: Style | undefined): string {
    return style && this.sink.tty ? `${STYLE[style]}${text}${RESET}` : text;
  }

  private content(text: string): void {
    if (!this.split()) {
      this.sink.write(text);
      return;
    }
    this.keep(text);
    const wrapped = wrapText(text, this.wrap, this.sink.columns());
    this.wrap = wrapped.state;
    this.sink.write(`${RESTORE}${wrapped.out}${SAVE}`);
    this.parkCursor();
  }

  /** Remember content for a redraw; when too much is kept, drop whole lines from its start. */
  private keep(text: string): void {
    this.kept += text;
    if (this.kept.length <= 2 * CONTENT_KEPT) return;
    const cut = this.kept.indexOf('\n', this.kept.length - CONTENT_KEPT);
    this.kept = cut < 0 ? this.kept.slice(-CONTENT_KEPT) : this.kept.slice(cut + 1);
  }

  private drawBottom(): void {
    const rows = this.sink.rows();
    const cols = this.sink.columns();
    let out = '';
    if (this.statusInfo) {
      const text = statusLine(this.statusInfo, cols - 2);
      const badge = this.statusInfo.demo ? STYLE.magenta : '';
      out += `${ESC}[${rows - 1};1H${ESC}[2K${STYLE.reverse}${badge} ${text.padEnd(cols - 1)}${RESET}`;
    }
    out += `${ESC}[${rows};1H${ESC}[2K${this.inputText(cols)}`;
    this.sink.write(out);
  }

  private inputText(cols: number): string {
    const room = cols - 3;
    const chars = [...this.typed];
    const shown = chars.length > room ? '…' + chars.slice(chars.length - room + 1).join('') : this.typed;
    return `${STYLE.bold}›${RESET} ${shown}`;
  }

  private parkCursor(): void {
    const rows = this.sink.rows();
    const col = Math.min(this.sink.columns(), 3 + Math.min([...this.typed].length, this.sink.columns() - 3));
    this.sink.write(`${ESC}[${rows};${col}H`);
  }
}
