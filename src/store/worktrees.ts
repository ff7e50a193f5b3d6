/**
 * `worktrees.json` in the team folder: the run's record of its members' worktrees (protocol/
 * worktrees.ts), read by the CLI and the screen, changed under the file's lock so a merge from the
 * CLI and the screen's own bookkeeping do not lose each other's writes. A missing file is a team
 * without worktrees; a file that does not read is said, never guessed at.
 */
import * as path from 'node:path';
import { WorktreeBook } from '../protocol/worktrees.js';
import { parseJson, readText, writeJson } from './fsx.js';
import { withLock } from './lock.js';

/** The book, none (no worktrees), or why it does not read. */
export type BookRead = { ok: true; book: WorktreeBook | null } | { ok: false; message: string };

/** The team folder's worktree record. */
export class WorktreeRecord {
  readonly file: string;
  constructor(teamDir: string) {
    this.file = path.join(teamDir, 'worktrees.json');
  }

  /** Read the book. */
  async read(): Promise<BookRead> {
    const text = await readText(this.file, 'record');
    if (text === undefined) return { ok: true, book: null };
    const json = parseJson(this.file, text);
    if (!json.ok) return { ok: false, message: `${json.problem.path}: ${json.problem.message}` };
    const parsed = WorktreeBook.safeParse(json.value);
    if (!parsed.success) return { ok: false, message: `${this.file}: not a worktree record (${parsed.error.issues[0]?.message ?? 'bad shape'})` };
    return { ok: true, book: parsed.data };
  }

  /** Change the book under its lock; `change` gets the current book (or null) and returns the new one. */
  async update(change: (book: WorktreeBook | null) => WorktreeBook): Promise<WorktreeBook> {
    return withLock(this.file, async () => {
      const cur = await this.read();
      const next = change(cur.ok ? cur.book : null);
      await writeJson(this.file, next);
      return next;
    });
  }
}
