/**
 * A member pane's screen as tmux holds it, turned into bytes an emulator can replay before the live
 * `%output` stream continues. One atomic command sequence reads the cursor and mode flags, the
 * history plus visible screen (`capture-pane -e`), the saved normal screen when an alternate screen
 * is up (`capture-pane -a`), and any half-received escape sequence (`capture-pane -P -C`). tmux runs
 * the sequence in one go, so the snapshot is consistent with the stream: every %output byte that
 * precedes the sequence's last reply block is already in it. Pure functions only.
 */

import { decodeOctal } from './control-parser.js';

/** Flags read with display-message, in this order. */
const FLAG_FORMATS = [
  'cursor_x', 'cursor_y', 'cursor_flag', 'alternate_on', 'alternate_saved_x', 'alternate_saved_y',
  'pane_height', 'keypad_cursor_flag', 'keypad_flag', 'scroll_region_upper', 'scroll_region_lower',
  'mouse_standard_flag', 'mouse_button_flag', 'mouse_any_flag', 'mouse_sgr_flag',
  'pane_dead', 'pane_dead_status', 'pane_dead_signal',
] as const;

/** What tmux knows about a pane's screen at one instant. */
export interface PaneSnapshot {
  cursorX: number;
  cursorY: number;
  cursorVisible: boolean;
  alternate: boolean;
  /** Normal-screen cursor saved when the alternate screen was entered. */
  savedX: number;
  savedY: number;
  rows: number;
  keypadCursor: boolean;
  keypad: boolean;
  scrollTop: number;
  scrollBottom: number;
  mouse: { standard: boolean; button: boolean; any: boolean; sgr: boolean };
  /** pane_dead, pane_dead_status, pane_dead_signal as tmux printed them. */
  dead: [string, string, string];
  /** History lines followed by the visible screen, with SGR escapes. */
  lines: string[];
  /** The normal screen hidden behind the alternate one (empty when not in alternate mode). */
  savedLines: string[];
  /** Start of an escape sequence tmux has received but not yet completed. */
  pending: Uint8Array;
}

/** The sequence that snapshots a pane; `history` is how many scrollback lines to include. */
export function snapshotSequence(paneId: string, history: number): string[][] {
  const capture = ['capture-pane', '-p', '-e', '-t', paneId];
  return [
    ['display-message', '-p', '-t', paneId, FLAG_FORMATS.map((f) => `#{${f}}`).join(',')],
    history > 0 ? [...capture, '-S', String(-history)] : capture,
    ['capture-pane', '-p', '-e', '-a', '-q', '-t', paneId],
    ['capture-pane', '-p', '-P', '-C', '-t', paneId],
  ];
}

/** Reads the replies of snapshotSequence. */
export function parseSnapshot(blocks: readonly (readonly string[])[]): PaneSnapshot {
  const f = (blocks[0]?.[0] ?? '').split(',');
  const num = (i: number): number => Number(f[i] ?? '') || 0;
  const flag = (i: number): boolean => f[i] === '1';
  const alternate = flag(3);
  return {
    cursorX: num(0),
    cursorY: num(1),
    cursorVisible: f[2] !== '0',
    alternate,
    savedX: num(4),
    savedY: num(5),
    rows: num(6),
    keypadCursor: flag(7),
    keypad: flag(8),
    scrollTop: num(9),
    scrollBottom: num(10),
    mouse: { standard: flag(11), button: flag(12), any: flag(13), sgr: flag(14) },
    dead: [f[15] ?? '', f[16] ?? '', f[17] ?? ''],
    lines: [...(blocks[1] ?? [])],
    savedLines: alternate ? [...(blocks[2] ?? [])] : [],
    pending: decodeOctal(Buffer.from((blocks[3] ?? []).join(''), 'utf8')),
  };
}

const CSI = '\x1b[';

/**
 * Bytes that rebuild the snapshot in a fresh emulator: reset and clear, history and screen joined by
 * CRLF (history scrolls into the emulator's scrollback), then the alternate screen if one is up, the
 * scroll region, cursor position and visibility, keypad and mouse modes, and the pending escape.
 */
export function renderSnapshot(s: PaneSnapshot): string {
  let out = `${CSI}0m${CSI}H${CSI}2J`;
  if (s.alternate) {
    const split = Math.max(0, s.lines.length - s.rows);
    out += [...s.lines.slice(0, split), ...s.savedLines].join('\r\n');
    out += `${CSI}0m${CSI}${s.savedY + 1};${s.savedX + 1}H${CSI}?1049h${CSI}H${CSI}2J`;
    out += s.lines.slice(split).join('\r\n');
  } else {
    out += s.lines.join('\r\n');
  }
  out += `${CSI}0m`;
  if (s.rows > 0 && (s.scrollTop !== 0 || s.scrollBottom !== s.rows - 1)) {
    out += `${CSI}${s.scrollTop + 1};${s.scrollBottom + 1}r`;
  }
  out += `${CSI}${s.cursorY + 1};${s.cursorX + 1}H`;
  if (!s.cursorVisible) out += `${CSI}?25l`;
  if (s.keypadCursor) out += `${CSI}?1h`;
  if (s.keypad) out += '\x1b=';
  if (s.mouse.standard) out += `${CSI}?1000h`;
  if (s.mouse.button) out += `${CSI}?1002h`;
  if (s.mouse.any) out += `${CSI}?1003h`;
  if (s.mouse.sgr) out += `${CSI}?1006h`;
  return out + new TextDecoder().decode(s.pending);
}
