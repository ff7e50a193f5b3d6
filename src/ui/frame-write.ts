/**
 * How a frame reaches the terminal. On a TTY, Node's stdout is a net.Socket over a libuv handle set
 * to blocking writes, so a write through the stream is already synchronous, but it goes through the
 * Writable machinery first (state, a write request, an after-write tick): on a key's echo that costs
 * as much as the write itself. FrameWriter writes the frame's bytes to the stream's descriptor with
 * one write(2) instead, when the stream is a TTY with nothing queued, so the order with everything
 * else written to the stream (modes, titles, bells) is kept. What the descriptor does not take at once
 * (EAGAIN on a descriptor someone set non-blocking) and any error go to the stream, which queues the
 * rest or reports the error as it always did. It owns no data: only the descriptor, when it has one.
 */
import { writeSync } from 'node:fs';

/** The parts of a terminal's output stream that writing a frame looks at. */
export interface FrameOutput {
  write(chunk: string | Uint8Array): unknown;
  readonly writableLength?: number;
  readonly writable?: boolean;
  readonly isTTY?: boolean;
  readonly fd?: unknown;
}

/** Writes frames to a terminal: straight to its descriptor when that keeps their order, else through the stream. */
export class FrameWriter {
  private readonly fd: number | null;

  /** `writeFd` is write(2) on the descriptor (a seam for tests; it may throw EAGAIN or return less than asked). */
  constructor(private readonly output: FrameOutput, private readonly writeFd: (fd: number, bytes: Uint8Array) => number = (fd, bytes) => writeSync(fd, bytes)) {
    this.fd = output.isTTY === true && typeof output.fd === 'number' && output.fd >= 0 ? output.fd : null;
  }

  /** Whether frames go to the descriptor (a TTY stream that has one). */
  get direct(): boolean {
    return this.fd !== null;
  }

  /** Send `text` to the terminal now; nothing is written when the stream is no longer writable. */
  write(text: string): void {
    if (!text || this.output.writable === false) return;
    if (this.fd === null || (this.output.writableLength ?? 0) > 0) {
      this.output.write(text);
      return;
    }
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    try {
      written = this.writeFd(this.fd, bytes);
    } catch {
      // EAGAIN: the stream queues it all; another error (the terminal went away): the stream meets it too and reports it
      written = 0;
    }
    if (written < bytes.length) this.output.write(bytes.subarray(written));
  }
}

/** Where the terminal's cursor is after the last frame (x -1: not known), and whether it is hidden. */
export interface ShownCursor {
  x: number;
  y: number;
  hidden: boolean;
}

/** The terminal's sequences to hide and to show the cursor (terminfo's civis and cnorm). */
export interface CursorCodes {
  hide: string;
  show: string;
}

/** Cells that are one cursor move and printable ASCII after it (SGR-free: the default attribute). */
const BARE_CELLS = /^\x1b\[(\d+);(\d+)H([\x20-\x7e]+)$/;
const BARE_MAX = 48;

/**
 * A frame's bytes: what blessed queued, the changed cells (with the cursor hidden while they are
 * written, if it was shown), then the cursor placed and shown, or hidden. The cursor is moved only
 * when it is not known to be there already, so a frame that changed nothing and keeps the cursor
 * where it was sends nothing. `shown` is updated to what the terminal shows after these bytes.
 */
export function frameBytes(queued: string, cells: string, cursor: { x: number; y: number } | null, shown: ShownCursor, codes: CursorCodes): string {
  // An echo where the cursor is: printable ASCII written at the shown cursor, which ends just after
  // it, is sent as the characters alone (as tmux sends it), without hiding, placing and showing the cursor.
  if (!queued && cursor && !shown.hidden && cells.length <= BARE_MAX) {
    const m = BARE_CELLS.exec(cells);
    if (m && Number(m[1]) - 1 === shown.y && Number(m[2]) - 1 === shown.x && cursor.y === shown.y && cursor.x === shown.x + m[3]!.length) {
      shown.x = cursor.x;
      return m[3]!;
    }
  }
  let out = queued;
  // blessed's own writes and the cells move the terminal's cursor
  if (queued || cells) shown.x = -1;
  if (cells) {
    if (!shown.hidden) out += codes.hide;
    shown.hidden = true;
    out += cells;
  }
  if (cursor) {
    if (cursor.x !== shown.x || cursor.y !== shown.y) out += `\x1b[${cursor.y + 1};${cursor.x + 1}H`;
    shown.x = cursor.x;
    shown.y = cursor.y;
    if (shown.hidden) out += codes.show;
    shown.hidden = false;
  } else if (!shown.hidden) {
    out += codes.hide;
    shown.hidden = true;
  }
  return out;
}
