/**
 * How the agent's pane reads, as pure text functions: the status line (member, state, model, tokens,
 * cost, a DEMO badge), one line per tool call, a few lines of each tool result, one line per inbox
 * message. Widths are in terminal columns (wide characters are not measured; agent text is mostly
 * ASCII), and everything is cut to fit an 80-column pane.
 */
import type { Message } from '../protocol/types.js';
import { formatTokens, formatUsd } from '../protocol/pricing.js';
import type { UsageTotals } from './transcript.js';

/** What the member is doing, as the status line says it. */
export type PaneState = 'starting' | 'working' | 'idle' | 'waiting for approval' | 'stopping' | 'exited';

/** Everything the status line shows. */
export interface StatusInfo {
  member: string;
  state: PaneState;
  model: string;
  demo: boolean;
  usage: UsageTotals;
  /** Estimated dollars, null when unknown. */
  cost: number | null;
  /** A short remark: "no API key", "retrying", "interrupted"… */
  note: string | null;
}

/** Cut `text` to `width` columns, ending in '…' when cut. */
export function fit(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? chars.slice(0, width).join('') : chars.slice(0, width - 1).join('') + '…';
}

/** The status line's text, at most `width` columns. */
export function statusLine(s: StatusInfo, width: number): string {
  const tokens = `↑${formatTokens(s.usage.input + s.usage.cacheRead + s.usage.cacheWrite)} ↓${formatTokens(s.usage.output)}`;
  const cost = s.demo ? 'no cost' : s.cost === null ? '$?' : formatUsd(s.cost);
  const parts = [s.demo ? `DEMO ${s.member}` : s.member, s.state + (s.note ? ` (${s.note})` : ''), s.model, tokens, cost];
  const full = parts.join(' │ ');
  if ([...full].length <= width) return full;
  // Drop the model name first, then the tokens, before cutting.
  const shorter = [parts[0], parts[1], tokens, cost].join(' │ ');
  if ([...shorter].length <= width) return shorter;
  return fit([parts[0], parts[1], cost].join(' │ '), width);
}

/** The line announcing a tool call. */
export function toolCallLine(name: string, summary: string, width: number): string {
  return fit(`▸ ${name} ${summary}`.trimEnd(), width);
}

/** The first few lines of a tool result, indented, with a count of what is left out. */
export function resultPreview(text: string, isError: boolean, width: number, maxLines = 3): string[] {
  const lines = text.replace(/\s+$/, '').split('\n');
  const shown = lines.slice(0, maxLines).map((l, i) => fit(`${i === 0 ? (isError ? '  ✗ ' : '  ⎿ ') : '    '}${l}`, width));
  if (lines.length > maxLines) shown.push(`    … ${lines.length - maxLines} more line${lines.length - maxLines === 1 ? '' : 's'}`);
  return shown;
}

/** One line for an inbox message delivered to the model. */
export function inboxLine(m: Message, width: number): string {
  const req = m.request_id ? ` ${m.request_id}` : '';
  return fit(`✉ ${m.from} · ${m.type}${req}: ${m.text.replace(/\s+/g, ' ').trim()}`, width);
}

/** Where the cursor is on a line written by wrapText: the column, and whether a wrap was just made. */
export interface WrapState {
  col: number;
  justWrapped: boolean;
}

/**
 * Break text for a terminal `cols` wide with explicit CR LFs: a word that does not fit moves to the
 * next line (a word longer than a line is cut), and the terminal is never left in its pending-wrap
 * state between writes (saving and restoring the cursor would lose that state and overwrite the
 * last column). SGR sequences pass through without width; a newline or spaces right after a wrap
 * are dropped; tabs become spaces to the next multiple of 8.
 */
export function wrapText(text: string, state: WrapState, cols: number): { out: string; state: WrapState } {
  let { col, justWrapped } = state;
  let out = '';
  const put = (ch: string): void => {
    out += ch;
    col++;
    justWrapped = false;
    if (col >= cols) {
      out += '\r\n';
      col = 0;
      justWrapped = true;
    }
  };
  const tokens = text.match(/\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b|\r|\n|[ \t]+|[^\s\x1b]+/g) ?? [];
  for (const tok of tokens) {
    if (tok[0] === '\x1b') {
      out += tok;
    } else if (tok === '\r') {
      continue;
    } else if (tok === '\n') {
      if (!justWrapped) out += '\r\n';
      col = 0;
      justWrapped = false;
    } else if (tok[0] === ' ' || tok[0] === '\t') {
      for (const ch of tok) {
        if (justWrapped) break;
        const n = ch === '\t' ? 8 - (col % 8) : 1;
        for (let k = 0; k < n && !justWrapped; k++) put(' ');
      }
    } else {
      const chars = [...tok];
      if (col > 0 && col + chars.length > cols && chars.length <= cols) {
        out += '\r\n';
        col = 0;
      }
      for (const ch of chars) put(ch);
    }
  }
  return { out, state: { col, justWrapped } };
}

/** Split streamed text into what can be shown now and a trailing partial word to hold back. */
export function holdPartialWord(text: string): { ready: string; held: string } {
  const m = /[^\s\x1b]+$/.exec(text);
  if (!m) return { ready: text, held: '' };
  return { ready: text.slice(0, m.index), held: m[0] };
}
