/**
 * What the outer terminal says about itself, asked once when teamux takes over the terminal: its
 * foreground, background and cursor colours (OSC 10/11/12) and its cell size in pixels (CSI 16 t, or
 * CSI 14 t divided by the size in cells). Panes answer their programs' colour and size queries with
 * these, so an editor that asks OSC 11 for the background picks the theme the human actually sees.
 * The queries end with DA1 (`CSI c`), which every terminal answers, and terminals answer in order:
 * once the DA1 reply is in, every answer that will come has come, so a terminal that ignores the
 * colour queries costs one round trip, and the timeout only bounds a terminal that answers nothing.
 * Slots the terminal does not answer fall back to the layout's theme, then to answers.ts's defaults.
 * Bytes that are not replies (keys typed meanwhile) are pushed back onto the input for the screen.
 * This file owns the process-wide cache of the result, read by every pane as it is created.
 */

import { DEFAULT_CELL_PIXELS, DEFAULT_COLORS, parseXColor, type CellPixels, type Rgb, type TerminalColors } from '../vt/answers.js';

/** Colours and cell size a pane reports to its program's queries. */
export interface PaneAppearance {
  colors: TerminalColors;
  cellPixels: CellPixels;
}

/** What the outer terminal answered; absent fields it did not answer. */
export interface OuterReplies {
  colors: Partial<TerminalColors>;
  /** CSI 16 t: one cell in pixels. */
  cell?: CellPixels;
  /** CSI 14 t: the text area in pixels. */
  window?: { width: number; height: number };
  /** The DA1 reply arrived: nothing more will come. */
  complete: boolean;
  /** Input that was not a reply (keys typed meanwhile), in order. */
  rest: string;
}

/** The queries, in the order the replies are expected; DA1 last, as the sentinel. */
export const OUTER_QUERIES = '\x1b]10;?\x1b\\\x1b]11;?\x1b\\\x1b]12;?\x1b\\\x1b[16t\x1b[14t\x1b[c';

/** How long to wait for a terminal that answers nothing, not even DA1. */
export const OUTER_QUERY_TIMEOUT_MS = 1000;

const SLOT_OF: Record<string, keyof TerminalColors> = { '10': 'foreground', '11': 'background', '12': 'cursor' };
// OSC 10/11/12 replies (BEL or ST), CSI 4/6 t replies, DA1 replies; anything else is input
// eslint-disable-next-line no-control-regex
const REPLY = /\x1b\](1[012]);([^\x07\x1b]*)(?:\x07|\x1b\\)|\x1b\[([46]);(\d+);(\d+)t|\x1b\[\?[\d;]*c/g;
// a reply cut off at the end of what has arrived so far
// eslint-disable-next-line no-control-regex
const PARTIAL = /\x1b(?:\](?:1[012]?(?:;[^\x07\x1b]*)?)?|\[(?:\??[\d;]*)?)?$/;

/** Pick the replies out of what the terminal sent; a reply cut at the end is left in `pending`. */
export function parseOuterReplies(text: string): OuterReplies & { pending: string } {
  const out: OuterReplies & { pending: string } = { colors: {}, complete: false, rest: '', pending: '' };
  let last = 0;
  for (const m of text.matchAll(REPLY)) {
    out.rest += text.slice(last, m.index);
    last = m.index + m[0].length;
    if (m[1]) {
      const color = parseXColor(m[2]!);
      if (color) out.colors[SLOT_OF[m[1]]!] = color;
    } else if (m[3]) {
      const size = { height: Number(m[4]), width: Number(m[5]) };
      if (size.width > 0 && size.height > 0) {
        if (m[3] === '6') out.cell = size;
        else out.window = size;
      }
    } else out.complete = true;
  }
  const tail = text.slice(last);
  const partial = out.complete ? null : PARTIAL.exec(tail);
  out.rest += partial ? tail.slice(0, partial.index) : tail;
  out.pending = partial ? partial[0] : '';
  return out;
}

/** Combine the replies with the layout's theme (slot by slot) and the defaults. */
export function resolveAppearance(replies: Pick<OuterReplies, 'colors' | 'cell' | 'window'>, size: { cols: number; rows: number }, theme: Partial<TerminalColors> = {}): PaneAppearance {
  const slot = (name: keyof TerminalColors): Rgb => replies.colors[name] ?? theme[name] ?? DEFAULT_COLORS[name];
  let cellPixels = replies.cell ?? DEFAULT_CELL_PIXELS;
  if (!replies.cell && replies.window && size.cols > 0 && size.rows > 0) {
    const width = Math.floor(replies.window.width / size.cols);
    const height = Math.floor(replies.window.height / size.rows);
    if (width > 0 && height > 0) cellPixels = { width, height };
  }
  return { colors: { foreground: slot('foreground'), background: slot('background'), cursor: slot('cursor') }, cellPixels };
}

/** The streams the query uses: the terminal's input and output. */
export interface OuterStreams {
  input: NodeJS.ReadableStream & { isTTY?: boolean; isRaw?: boolean; setRawMode?(mode: boolean): unknown; unshift(chunk: Buffer | string): void };
  output: { isTTY?: boolean; columns?: number; rows?: number; write(data: string): unknown };
}

/** Ask the outer terminal once; resolves with what it answered (nothing if it is not a terminal). */
export function queryOuterTerminal(streams: OuterStreams, timeoutMs = OUTER_QUERY_TIMEOUT_MS): Promise<OuterReplies> {
  const { input, output } = streams;
  const none: OuterReplies = { colors: {}, complete: false, rest: '' };
  if (!input.isTTY || !output.isTTY || typeof input.setRawMode !== 'function') return Promise.resolve(none);
  return new Promise((resolve) => {
    let received = '';
    const wasRaw = input.isRaw === true;
    const finish = (): void => {
      clearTimeout(timer);
      input.off('data', onData);
      input.pause();
      // the screen sets raw mode when it takes over; until then the terminal stays as it was
      if (!wasRaw) input.setRawMode!(false);
      const replies = parseOuterReplies(received);
      // keys typed while we waited (and a reply cut short by the timeout) belong to the screen
      const rest = replies.rest + replies.pending;
      if (rest) input.unshift(Buffer.from(rest, 'latin1'));
      resolve(replies);
    };
    const onData = (chunk: Buffer | string): void => {
      received += typeof chunk === 'string' ? chunk : chunk.toString('latin1');
      if (parseOuterReplies(received).complete) finish();
    };
    const timer = setTimeout(finish, timeoutMs);
    input.setRawMode!(true);
    input.on('data', onData);
    input.resume();
    output.write(OUTER_QUERIES);
  });
}

// the process-wide answer, set once at start
let learned: PaneAppearance | null = null;

/** The layout's theme (X11 colour strings, checked by the layout schema) as colours. */
export function themeColors(theme: { [slot in keyof TerminalColors]?: string } = {}): Partial<TerminalColors> {
  const out: Partial<TerminalColors> = {};
  for (const slot of ['foreground', 'background', 'cursor'] as const) {
    const color = theme[slot] === undefined ? null : parseXColor(theme[slot]);
    if (color) out[slot] = color;
  }
  return out;
}

/** Ask the outer terminal (once per process) and keep the result, the layout's theme filling the gaps. */
export async function learnOuterTerminal(streams: OuterStreams, theme?: { [slot in keyof TerminalColors]?: string }): Promise<PaneAppearance> {
  if (learned) return learned;
  const replies = await queryOuterTerminal(streams);
  learned = resolveAppearance(replies, { cols: streams.output.columns ?? 0, rows: streams.output.rows ?? 0 }, themeColors(theme));
  return learned;
}

/** What a new pane reports: the outer terminal's answers once learned, else nothing (the defaults). */
export function paneAppearance(): Partial<PaneAppearance> {
  return learned ?? {};
}
