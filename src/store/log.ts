/**
 * Diagnostics go to `teamux.log` in the team folder; stdout belongs to the TUI. Every line passes
 * through store/redact before it is written, so a secret never reaches the disk through a log.
 */
import { closeSync, constants as fsc, openSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { checkFolderSync, FILE_MODE } from './fsx.js';

import { redact } from './redact.js';

/** A line-oriented diagnostic log. Writes are synchronous so the last line before a crash lands. */
export class Log {
  constructor(private readonly file: string | null, private readonly who: string) {}

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
      try {
        writeSync(fd, line);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Logging must never take the program down.
    }
  }
}
