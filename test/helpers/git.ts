// Test helpers for real git repositories: make one, commit in it, read it back. No fakes: these run git.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** Run git in `cwd` and return its stdout (throws on failure, as a test wants). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
}

/** Write files (path → content) under `dir`, making folders. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), text);
  }
}

/** A repository at `dir` on branch main with `files` committed, and .teamux ignored. */
export function makeRepo(dir: string, files: Record<string, string> = { 'README.md': 'hello\n' }): void {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, { '.gitignore': '.teamux/\n', ...files });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'start');
}

/** Commit everything in `dir`. */
export function commitAll(dir: string, message: string): void {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
}
