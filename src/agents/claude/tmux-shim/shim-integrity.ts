/**
 * Whether the `tmux` stand-in that calls is still the one teamux wrote. Claude Code runs whatever
 * `tmux` is first on the lead's PATH, so a rewritten stand-in's calls would arrive from the lead's own
 * Claude Code and pass the caller check (issue 26, attack 3). The file's digest is taken when the
 * socket starts serving (the screen wrote it just before); from then on any change to its folder seen
 * by a watch, or a digest that differs when a change command arrives, marks the stand-in tampered for
 * good: every later change is refused until the team is started again. A stand-in that put the
 * original back after running would still have been seen by the watch. In the sandbox the folder is
 * read-only to members, and none of this can happen (host/sandbox.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';

/** The stand-in's file, watched; `problem()` says why its calls are refused, or null. */
export class ShimIntegrity {
  private readonly expected: string | null;
  private tampered: string | null = null;
  private readonly watcher: FSWatcher | null = null;

  constructor(private readonly file: string, private readonly onTamper: (why: string) => void) {
    this.expected = digestOf(file);
    try {
      this.watcher = watch(path.dirname(file), () => this.check('its folder changed'));
      this.watcher.on('error', () => undefined);
    } catch {
      this.watcher = null;
    }
  }

  /** Null while the stand-in is the one teamux wrote; otherwise why its calls are refused. */
  problem(): string | null {
    this.check('a change command arrived');
    return this.tampered;
  }

  private check(when: string): void {
    if (this.tampered || this.expected === null) return;
    const now = digestOf(this.file);
    if (now === this.expected) return;
    this.tampered = `${this.file} is not the stand-in teamux wrote (${now === null ? 'it is gone' : 'it was rewritten'}; seen when ${when} at ${new Date().toISOString()}): every pane change through it is refused until the team is started again`;
    this.onTamper(this.tampered);
  }

  dispose(): void {
    this.watcher?.close();
  }
}

function digestOf(file: string): string | null {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return null;
  }
}
