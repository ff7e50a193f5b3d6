/**
 * teamux's only door to git. `GitRunner` runs one `git` command to completion with an argv (never a
 * shell, so branch and file names with spaces, newlines or escapes are only ever arguments) and
 * returns its exit code and output; nothing here parses what git prints (parse.ts does). The real
 * runner gives git a fixed, quiet environment: no prompts, the C locale, no pager, and none of the
 * GIT_DIR-style variables a git hook would pass down (they would point every command at one repository).
 */
import { spawn, spawnSync } from 'node:child_process';

/** The outcome of one git command; code is -1 when git could not be started. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** What a command runs with. */
export interface GitCall {
  cwd: string;
  /** Written to git's stdin. */
  input?: string;
  /** Extra environment (commit identity, for one). */
  env?: Record<string, string>;
}

/** Everything teamux asks of git. */
export interface GitRunner {
  /** Runs `git <args>`; never rejects: failures are a non-zero code and stderr. */
  run(args: readonly string[], call: GitCall): Promise<GitResult>;
  /** The same, blocking (the layout check runs synchronously). */
  runSync(args: readonly string[], call: GitCall): GitResult;
}

/** Variables that would point git at a repository other than the one its cwd is in. */
const REPOSITORY_VARS = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_COMMON_DIR', 'GIT_PREFIX'];

/** The environment git runs with: the caller's, minus repository overrides, with prompts and pagers off. */
export function gitEnv(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const k of REPOSITORY_VARS) delete env[k];
  return { ...env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0', ...extra };
}

/** The real runner, on the `git` found on PATH. */
export function execGit(baseEnv: NodeJS.ProcessEnv = process.env, git = 'git'): GitRunner {
  return {
    run(args, call) {
      return new Promise((resolve) => {
        const child = spawn(git, args, { cwd: call.cwd, env: gitEnv(baseEnv, call.env), stdio: ['pipe', 'pipe', 'pipe'] });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on('data', (d: Buffer) => out.push(d));
        child.stderr.on('data', (d: Buffer) => err.push(d));
        child.on('error', (e) => resolve({ code: -1, stdout: '', stderr: e.message }));
        child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
        child.stdin.on('error', () => {});
        child.stdin.end(call.input ?? '');
      });
    },
    runSync(args, call) {
      const r = spawnSync(git, args, { cwd: call.cwd, env: gitEnv(baseEnv, call.env), input: call.input ?? '', maxBuffer: 256 * 1024 * 1024 });
      if (r.error) return { code: -1, stdout: '', stderr: r.error.message };
      return { code: r.status ?? -1, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
    },
  };
}
