/**
 * Helpers for tests that run a real tmux: private server names, a condition wait with a deadline,
 * tmux commands against that private server only, and a byte collector for PaneProcess output.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { PaneProcess } from '../../../src/host/types.js';

/** A fresh private server name: every test server lives on its own -L socket. */
export function privateSocket(): string {
  return `teamux-test-${randomBytes(6).toString('hex')}`;
}

/** Runs tmux against the private server; throws on a non-zero exit. */
export function tmuxSync(socket: string, args: string[]): string {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return execFileSync('tmux', ['-u', '-L', socket, '-f', '/dev/null', ...args], {
    encoding: 'utf8',
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Kills the private server if it still runs, and removes its socket file (tmux 3.3a leaves it). */
export function killServer(socket: string): void {
  try {
    tmuxSync(socket, ['kill-server']);
  } catch {
    // no server: nothing to do
  }
  if (!socket.startsWith('teamux-test-')) return;
  const dir = join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`);
  rmSync(join(dir, socket), { force: true });
}

/** Polls `check` until it returns a truthy value or the deadline passes. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

/** Accumulates a pane's output bytes. */
export function collect(pane: PaneProcess): { bytes: () => Buffer; text: () => string } {
  const chunks: Buffer[] = [];
  pane.onData((data) => chunks.push(typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data)));
  const bytes = (): Buffer => Buffer.concat(chunks);
  return { bytes, text: () => bytes().toString('utf8') };
}

/** Whether a process exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
