/**
 * Pure readers of git's machine output, all of it the NUL-separated (`-z`) forms so that a path with
 * a newline, a tab or an escape sequence is read as the bytes it is: `worktree list --porcelain -z`,
 * `diff --numstat -z`, `status --porcelain -z` and `merge-tree --write-tree --name-only -z`. Nothing
 * here runs git or touches the disk.
 */

/** One entry of `git worktree list --porcelain`. */
export interface ListedWorktree {
  path: string;
  head: string | null;
  /** `refs/heads/x`, or null when detached or bare. */
  branch: string | null;
  /** Its directory is gone (git will prune it). */
  prunable: boolean;
  locked: boolean;
}

/** `git worktree list --porcelain -z`: records of `key value` fields, each record ended by an empty field. */
export function parseWorktreeList(out: string): ListedWorktree[] {
  const list: ListedWorktree[] = [];
  let cur: ListedWorktree | null = null;
  for (const field of out.split('\0')) {
    if (field === '') {
      if (cur) list.push(cur);
      cur = null;
      continue;
    }
    const sp = field.indexOf(' ');
    const key = sp < 0 ? field : field.slice(0, sp);
    const value = sp < 0 ? '' : field.slice(sp + 1);
    if (key === 'worktree') cur = { path: value, head: null, branch: null, prunable: false, locked: false };
    else if (!cur) continue;
    else if (key === 'HEAD') cur.head = value;
    else if (key === 'branch') cur.branch = value;
    else if (key === 'prunable') cur.prunable = true;
    else if (key === 'locked') cur.locked = true;
  }
  if (cur) list.push(cur);
  return list;
}

/** One changed file: lines added and removed (null for a binary file). */
export interface FileChange {
  path: string;
  /** The path before a rename, when git saw one. */
  from?: string;
  added: number | null;
  removed: number | null;
}

/**
 * `git diff --numstat -z`: `A\tR\tpath\0` per file, or for a rename `A\tR\t\0from\0to\0`; `-\t-` is a
 * binary file.
 */
export function parseNumstat(out: string): FileChange[] {
  const fields = out.split('\0');
  const files: FileChange[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f === '') continue;
    const m = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(f);
    if (!m) continue;
    const added = m[1] === '-' ? null : Number(m[1]);
    const removed = m[2] === '-' ? null : Number(m[2]);
    if (m[3] === '') {
      const from = fields[++i] ?? '';
      const to = fields[++i] ?? '';
      files.push({ path: to, from, added, removed });
    } else files.push({ path: m[3]!, added, removed });
  }
  return files;
}

/** One entry of `git status --porcelain -z`: the two status letters and the path. */
export interface StatusEntry {
  index: string;
  worktree: string;
  path: string;
}

/** `git status --porcelain -z`: `XY path\0`, with a rename's or copy's old path in the next field. */
export function parseStatus(out: string): StatusEntry[] {
  const fields = out.split('\0');
  const entries: StatusEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    const e = { index: f[0]!, worktree: f[1]!, path: f.slice(3) };
    entries.push(e);
    if (e.index === 'R' || e.index === 'C') i++;
  }
  return entries;
}

/** What `git merge-tree --write-tree --name-only -z` decided. */
export type MergeTree = { clean: true; tree: string } | { clean: false; tree: string; conflicts: string[]; messages: string[] };

/**
 * `merge-tree --write-tree --name-only -z A B`: the tree's id, then (on a conflict, exit 1) each
 * conflicted path, an empty field, and informational messages as `count\0path…\0type\0text` groups.
 */
export function parseMergeTree(out: string, code: number): MergeTree | null {
  const fields = out.split('\0');
  const tree = fields[0] ?? '';
  if (!/^[0-9a-f]{40,64}$/.test(tree)) return null;
  if (code === 0) return { clean: true, tree };
  const conflicts: string[] = [];
  let i = 1;
  for (; i < fields.length && fields[i] !== ''; i++) if (!conflicts.includes(fields[i]!)) conflicts.push(fields[i]!);
  const messages: string[] = [];
  for (i++; i < fields.length; ) {
    const n = Number(fields[i]);
    if (!Number.isInteger(n) || n < 0) break;
    const text = fields[i + n + 2];
    if (text !== undefined) messages.push(text.trimEnd());
    i += n + 3;
  }
  return { clean: false, tree, conflicts, messages };
}

/** Lines added and removed over a list of changes, and how many files. */
export function totals(files: readonly FileChange[]): { added: number; removed: number; files: number } {
  let added = 0;
  let removed = 0;
  for (const f of files) {
    added += f.added ?? 0;
    removed += f.removed ?? 0;
  }
  return { added, removed, files: files.length };
}
