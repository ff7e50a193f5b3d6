/**
 * The tmux backend's only door to the operating system. `TmuxRunner` runs one-shot `tmux` commands,
 * starts the long-lived control-mode client, and delivers signals to member processes. The real
 * implementation uses child_process; `FakeTmuxRunner` (fake-runner.ts) records the exact argv and
 * control lines instead, so tests can assert the command lines teamux sends (as claude-squad does).
 * This file owns the environment handed to tmux clients (minus TMUX/TMUX_PANE, so teamux works when
 * started from inside another tmux) and the child processes it spawns until they exit.
 */

import { execFile, spawn } from 'node:child_process';
import type { Disposable } from '../types.js';
import { Listeners } from './listeners.js';

/** The outcome of a one-shot tmux command. code is -1 when tmux could not be started at all. */
export interface TmuxResult {
  stdout: string;
  stderr: string;
  code: number;
  /** Set when tmux did not answer in time and its client was killed (code -1): no answer, not a failure. */
  timedOut?: true;
}

/** A running `tmux -C` client: lines in on stdin, protocol bytes out on stdout. */
export interface ControlProcess {
  readonly pid: number | undefined;
  /** Writes raw text to the client's stdin (ignored once stdin is closed). */
  write(text: string): void;
  /** Closes stdin; tmux then detaches the client and it exits. */
  end(): void;
  kill(signal?: NodeJS.Signals): void;
  onData(listener: (chunk: Uint8Array) => void): Disposable;
  onStderr(listener: (text: string) => void): Disposable;
  /** Fires once, after stdout has been fully delivered. */
  onExit(listener: (code: number | null, signal: string | null) => void): Disposable;
}

/** Everything the tmux backend asks of the OS. */
export interface TmuxRunner {
  /** Runs `tmux <args>` to completion. Never rejects: failures are a non-zero code and stderr. */
  run(args: readonly string[]): Promise<TmuxResult>;
  /** Starts `tmux <args>` with piped stdio (used for `-C attach-session`). */
  control(args: readonly string[]): ControlProcess;
  /** Sends a signal to a process; false when it does not exist (or is not ours). */
  signal(pid: number, signal: NodeJS.Signals): boolean;
}

/** Copies an environment without the variables that make tmux think it is nested. */
export function tmuxClientEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  delete out.TMUX;
  delete out.TMUX_PANE;
  return out;
}

/** Options for the real runner. */
export interface ExecTmuxRunnerOptions {
  /** tmux binary; default `tmux` from PATH. */
  tmux?: string;
  /** Environment for tmux clients (and for the server when a client starts it). Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Working directory for tmux client processes. Default process.cwd(). */
  cwd?: string;
  /** Deadline for one-shot commands. Default 15 s. */
  timeoutMs?: number;
}

/** TmuxRunner backed by child_process. */
export class ExecTmuxRunner implements TmuxRunner {
  private readonly tmux: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly cwd: string | undefined;
  private readonly timeoutMs: number;

  constructor(options: ExecTmuxRunnerOptions = {}) {
    this.tmux = options.tmux ?? 'tmux';
    this.env = tmuxClientEnv(options.env ?? process.env);
    this.cwd = options.cwd;
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  run(args: readonly string[]): Promise<TmuxResult> {
    return new Promise((resolve) => {
      const child = execFile(
        this.tmux,
        [...args],
        { env: this.env, cwd: this.cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: this.timeoutMs },
        (error, stdout, stderr) => {
          // Killed at the timeout: tmux's client exits 0 on SIGTERM, which must not read as an answer.
          if (child.killed) return resolve({ stdout: stdout ?? '', stderr: `tmux did not answer within ${this.timeoutMs / 1000} s`, code: -1, timedOut: true });
          if (!error) return resolve({ stdout, stderr, code: 0 });
          const code = typeof error.code === 'number' ? error.code : -1;
          resolve({ stdout: stdout ?? '', stderr: stderr || error.message, code });
        },
      );
    });
  }

  control(args: readonly string[]): ControlProcess {
    return new ChildControlProcess(this.tmux, args, this.env, this.cwd);
  }

  signal(pid: number, signal: NodeJS.Signals): boolean {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/** A `tmux -C` child process with piped stdio. */
class ChildControlProcess implements ControlProcess {
  private readonly child;
  private readonly data = new Listeners<Uint8Array>();
  private readonly stderr = new Listeners<string>();
  private readonly exits = new Listeners<{ code: number | null; signal: string | null }>();
  private exited: { code: number | null; signal: string | null } | undefined;

  constructor(tmux: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string | undefined) {
    this.child = spawn(tmux, [...args], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => this.data.emit(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => this.stderr.emit(chunk.toString('utf8')));
    // Writing after tmux has gone away raises EPIPE on stdin; the exit path reports it instead.
    this.child.stdin.on('error', () => {});
    this.child.on('error', (error) => {
      this.stderr.emit(error.message);
      this.finish(-1, null);
    });
    this.child.on('close', (code, signal) => this.finish(code, signal));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  write(text: string): void {
    if (this.exited || !this.child.stdin.writable) return;
    this.child.stdin.write(text);
  }

  end(): void {
    if (this.child.stdin.writable) this.child.stdin.end();
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (!this.exited) this.child.kill(signal);
  }

  onData(listener: (chunk: Uint8Array) => void): Disposable {
    return this.data.add(listener);
  }

  onStderr(listener: (text: string) => void): Disposable {
    return this.stderr.add(listener);
  }

  onExit(listener: (code: number | null, signal: string | null) => void): Disposable {
    if (this.exited) {
      const { code, signal } = this.exited;
      queueMicrotask(() => listener(code, signal));
      return { dispose: () => {} };
    }
    return this.exits.add(({ code, signal }) => listener(code, signal));
  }

  private finish(code: number | null, signal: string | null): void {
    if (this.exited) return;
    this.exited = { code, signal };
    this.exits.emit(this.exited);
    this.data.clear();
    this.stderr.clear();
    this.exits.clear();
  }
}
