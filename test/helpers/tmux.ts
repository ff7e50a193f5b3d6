// Driving programs inside a real tmux server on a private socket (never the user's server):
// start a session at a fixed size, type with send-keys, read the screen with capture-pane, and wait
// on what the screen shows with a deadline.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pidAlive } from '../../src/store/liveness.js';
import { waitFor } from './team.js';

/** Run tmux on a socket; resolves with stdout, rejects with stderr on failure. */
export function tmux(socket: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-L', socket, ...args], { env: { ...process.env, TMUX: '' } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`tmux ${args.join(' ')}: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

/** Kill a private tmux server and remove its socket file (tmux 3.3a leaves it behind). */
export async function killServer(socket: string): Promise<void> {
  await tmux(socket, ['kill-server']).catch(() => undefined);
  rmSync(path.join(process.env.TMUX_TMPDIR ?? tmpdir(), `tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
}

/** A process and every process below it, from /proc (children files of each thread). */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${out[i]}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        for (const c of readFileSync(`/proc/${out[i]}/task/${t}/children`, 'utf8').split(' ').filter(Boolean)) out.push(Number(c));
      } catch {
        // the thread or process is gone
      }
    }
  }
  return out;
}

/** One private tmux server with one session running a command. */
export class TmuxDriver {
  readonly socket = `teamux-e2e-${randomBytes(4).toString('hex')}`;

  static async start(command: string, cols = 160, rows = 45, env: Record<string, string> = {}): Promise<TmuxDriver> {
    const d = new TmuxDriver();
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    await tmux(d.socket, ['-f', '/dev/null', 'new-session', '-d', '-s', 'main', '-x', String(cols), '-y', String(rows), ...envArgs, command]);
    await tmux(d.socket, ['set-option', '-g', 'remain-on-exit', 'on']);
    return d;
  }

  /** Type keys (tmux key names or literal text). */
  async keys(...keys: string[]): Promise<void> {
    await tmux(this.socket, ['send-keys', '-t', 'main', ...keys]);
  }

  /** Type literal text. */
  async type(text: string): Promise<void> {
    await tmux(this.socket, ['send-keys', '-t', 'main', '-l', text]);
  }

  /** The screen as text lines; with `escapes`, with its colours and attributes as SGR sequences (capture-pane -e). */
  async screen(escapes = false): Promise<string> {
    return tmux(this.socket, ['capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', 'main']);
  }

  /** Wait until the screen matches. */
  async waitFor(pattern: RegExp | ((screen: string) => boolean), what: string, timeoutMs = 30_000): Promise<string> {
    let last = '';
    try {
      return await waitFor(async () => {
        last = await this.screen();
        return (typeof pattern === 'function' ? pattern(last) : pattern.test(last)) ? last : null;
      }, what, timeoutMs, 50);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- screen ---\n${last}`);
    }
  }

  /** Resize the session's window. */
  async resize(cols: number, rows: number): Promise<void> {
    await tmux(this.socket, ['resize-window', '-t', 'main', '-x', String(cols), '-y', String(rows)]);
  }

  /** Is the command in the session's pane still running? */
  async paneDead(): Promise<boolean> {
    return (await tmux(this.socket, ['display-message', '-p', '-t', 'main', '#{pane_dead}'])).trim() === '1';
  }

  /**
   * Kill the server, then wait until the pane's processes are gone: a teamux still shutting down
   * writes its last log lines, and the test's temp folder must not be removed under it.
   */
  async kill(): Promise<void> {
    const root = Number((await tmux(this.socket, ['display-message', '-p', '-t', 'main', '#{pane_pid}']).catch(() => '')).trim());
    const tree = root > 0 ? processTree(root) : [];
    await killServer(this.socket);
    await waitFor(() => tree.every((p) => !pidAlive(p, null)), "the pane's processes to exit", 20_000, 50).catch(() => undefined);
  }
}
