/**
 * Loading a layout file: read it, parse the YAML keeping source positions, validate it with the zod
 * schema, check it against the machine, and normalize it. Every failure a user can cause comes back
 * as a `LayoutError` value at `file:line:col` with the document path (`teammates[1].name`), a short
 * message and maybe a hint; nothing here throws for a bad file or prints a stack trace.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { filesystemProblems, layoutWarnings } from './checks.js';
import { formatPath, problemsFromIssues, type Problem } from './issues.js';
import { layoutErrorMap } from './messages.js';
import { normalizeLayout, type NormalizedLayout } from './normalize.js';
import { LayoutSchema } from './schema.js';
import { locate } from './positions.js';
import { worktreeProblems, type RepoProbe } from './worktrees.js';

/** One thing wrong with a layout file. `line` and `col` are 1-based; 0 when the file itself is the problem. */
export interface LayoutError {
  file: string;
  line: number;
  col: number;
  /** Document path like `teammates[1].name`; empty for the whole file. */
  path: string;
  message: string;
  hint?: string;
}

/** A loaded, normalized layout (with warnings already formatted), or everything wrong with the file. */
export type LoadResult =
  | { ok: true; layout: NormalizedLayout; file: string; warnings: string[] }
  | { ok: false; errors: LayoutError[] };

/** How strictly to load. */
export interface LoadOptions {
  /** Check directories, programs on PATH and demo scripts (default true). */
  checkPath?: boolean;
  /** Asks the repository about `worktrees:` (root in a repository, base a commit); absent: not checked. */
  repo?: RepoProbe;
  /** Where PATH and HOME come from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

const MAX_BYTES = 1024 * 1024;
const MAX_SHOWN_ERRORS = 20;

function fileError(file: string, message: string, hint?: string): LoadResult {
  return { ok: false, errors: [{ file, line: 0, col: 0, path: '', message, ...(hint ? { hint } : {}) }] };
}

function readFailure(file: string, err: unknown): LoadResult {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return fileError(file, 'cannot read layout file: no such file');
  if (code === 'EACCES' || code === 'EPERM') return fileError(file, 'cannot read layout file: permission denied');
  if (code === 'EISDIR') return fileError(file, 'cannot read layout file: it is a directory');
  return fileError(file, `cannot read layout file: ${(err as Error).message}`);
}

/** Reads, validates and normalizes the layout file at `file`. */
export function loadLayout(file: string, opts: LoadOptions = {}): LoadResult {
  let source: string;
  try {
    const st = fs.statSync(file);
    if (st.isDirectory()) return fileError(file, 'cannot read layout file: it is a directory');
    if (st.size > MAX_BYTES) return fileError(file, `layout file is too large (${st.size} bytes; limit ${MAX_BYTES})`);
    source = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return readFailure(file, err);
  }
  return parseLayout(source, file, opts);
}

/** Validates and normalizes layout YAML `source`; `file` names it in errors and anchors relative paths. */
export function parseLayout(source: string, file: string, opts: LoadOptions = {}): LoadResult {
  const env = opts.env ?? process.env;
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: true });
  const at = (p: Problem): LayoutError => {
    const pos = locate(doc, lineCounter, p.path, p.at);
    return { file, line: pos.line, col: pos.col, path: formatPath(p.path), message: p.message, ...(p.hint ? { hint: p.hint } : {}) };
  };
  if (doc.errors.length > 0) {
    const errors = doc.errors.map((e) => {
      const pos = lineCounter.linePos(e.pos[0]);
      return { file, line: pos.line, col: pos.col, path: '', message: yamlMessage(e.code, e.message) };
    });
    return { ok: false, errors };
  }
  if (doc.contents === null) return fileError(file, 'layout file is empty', 'a layout needs at least name and lead');
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return fileError(file, `cannot expand YAML aliases: ${(err as Error).message}`);
  }
  const parsed = LayoutSchema.safeParse(data, { error: layoutErrorMap });
  if (!parsed.success) return { ok: false, errors: sortErrors(problemsFromIssues(parsed.error.issues, data, LayoutSchema).map(at)) };
  const layout = normalizeLayout(parsed.data, { baseDir: path.dirname(path.resolve(file)), home: env['HOME'] ?? os.homedir() });
  if (opts.checkPath !== false) {
    const problems = filesystemProblems(parsed.data, layout, env['PATH'] ?? '');
    if (problems.length === 0 && opts.repo) problems.push(...worktreeProblems(layout.worktrees, layout.root, opts.repo));
    if (problems.length > 0) return { ok: false, errors: sortErrors(problems.map(at)) };
  }
  const warnings = [
    ...doc.warnings.map((w) => {
      const pos = lineCounter.linePos(w.pos[0]);
      return formatOne({ file, line: pos.line, col: pos.col, path: '', message: w.message });
    }),
    ...layoutWarnings(parsed.data).map((w) => formatOne(at(w))),
  ];
  return { ok: true, layout, file: path.resolve(file), warnings };
}

function yamlMessage(code: string, message: string): string {
  if (code === 'DUPLICATE_KEY') return 'duplicate key (map keys must be unique)';
  const text = message.replace(/\s+at line \d+, column \d+[\s\S]*$/, '').trim();
  return `YAML syntax error: ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}

function sortErrors(errors: LayoutError[]): LayoutError[] {
  return errors.sort((a, b) => a.line - b.line || a.col - b.col);
}

function formatOne(e: LayoutError): string {
  const where = e.line > 0 ? `${e.file}:${e.line}:${e.col}` : `${e.file}:`;
  const head = e.path ? `${where} ${e.path}: ${e.message}` : `${where} ${e.message}`;
  return e.hint ? `${head}\n  hint: ${e.hint}` : head;
}

/** `file:line:col path: message` lines, each followed by an indented `hint:` line when there is one. */
export function formatErrors(errors: readonly LayoutError[]): string {
  const shown = errors.slice(0, MAX_SHOWN_ERRORS).map(formatOne);
  const rest = errors.length - shown.length;
  if (rest > 0) shown.push(`... and ${rest} more error${rest === 1 ? '' : 's'}`);
  return shown.join('\n');
}

const count = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line about a team, e.g. `team "demo": lead + 2 teammates, 4 seed tasks, layout main-vertical, backend pty`. */
export function summarizeLayout(layout: NormalizedLayout): string {
  return (
    `team "${layout.name}": lead + ${count(layout.teammates.length, 'teammate')}, ` +
    `${count(layout.tasks.length, 'seed task')}, layout ${layout.layout.name}, backend ${layout.backend}`
  );
}
