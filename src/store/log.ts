/**
 * Diagnostics go to `teamux.log` in the team folder; stdout belongs to the TUI. Every line passes
 * through store/redact before it is written, so a secret never reaches the disk through a log. Past
 * LOG_SEGMENT_BYTES the log is sealed into `segments/teamux.<seq>.log` and only LOG_KEEP are kept.
 */
import { closeSync, constants as fsc, fstatSync, openSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { checkFolderSync, FILE_MODE } from './fsx.js';
import { sealIfFull, type SegmentSpec } from './segments.js';

/** The size at which teamux.log is sealed into a segment. */
export const LOG_SEGMENT_BYTES = 2 * 1024 * 1024;
/** How many sealed log segments are kept. */
export const LOG_KEEP = 3;

import { redact } from './redact.js';

/** A line-oriented diagnostic log. Writes are synchronous so the last line before a crash lands. */
export class Log {
  private readonly spec: SegmentSpec | null;
  private sealing = false;

  constructor(private readonly file: string | null, private readonly who: string, maxBytes = LOG_SEGMENT_BYTES) {
    this.spec = file ? { file, dir: path.join(path.dirname(file), 'segments'), maxBytes, keep: LOG_KEEP } : null;
  }

  info(message: string): void { this.write('info', message); }
  warn(message: string): void { this.write('warn', message); }
  error(message: string, err?: unknown): void {
    const detail = err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : err === undefined ? '' : String(err);
    this.write('error', detail ? `${message}: ${detail}` : message);
  }

  private write(level: string, message: string): void {
    if (!this.file) return;
    const line = `${new Date().toISOString()} ${level} [${this.who} ${process.pid}] ${redact(message)}\n`;
    try {
      // Never through a link: a planted teamux.log link would otherwise carry the log elsewhere.
      checkFolderSync(path.dirname(this.file));
      const fd = openSync(this.file, fsc.O_WRONLY | fsc.O_APPEND | fsc.O_CREAT | fsc.O_NOFOLLOW | fsc.O_NONBLOCK, FILE_MODE);
      let size = 0;
      try {
        writeSync(fd, line);
        size = fstatSync(fd).size;
      } finally {
        closeSync(fd);
      }
      if (size >= this.spec!.maxBytes && !this.sealing) {
        this.sealing = true;
        void sealIfFull(this.spec!).catch(() => null).finally(() => (this.sealing = false));
      }
    } catch {
      // Logging must never take the program down.
    }
  }
}
