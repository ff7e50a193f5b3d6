// `teamux start` in a real pty, as a terminal runs it: its output collected, the outer-terminal query
// (DA1) answered so start-up does not wait for its timeout, and a way to end it with SIGTERM.
import pty from 'node-pty';
import { waitFor } from './team.js';

/** A screen started by startScreen: everything it wrote so far, and stop() (SIGTERM, then its exit). */
export interface ScreenInPty {
  screen(): string;
  stop(): Promise<void>;
}

/**
 * Run `node [NODE_ARGS] BIN start LAYOUT` in a 120x30 pty (TERM xterm-256color unless `term` says
 * otherwise); `cleanups` gets a SIGKILL for a screen still running at the end.
 */
export function startScreen(bin: string, layout: string, opts: { cwd: string; env: Record<string, string>; cleanups: Array<() => unknown>; nodeArgs?: string[]; term?: string }): ScreenInPty {
  const term = pty.spawn(process.execPath, [...(opts.nodeArgs ?? []), bin, 'start', layout], { cols: 120, rows: 30, cwd: opts.cwd, env: { ...opts.env, TERM: opts.term ?? 'xterm-256color', TEAMUX_TEAM_DIR: '' } });
  let screen = '';
  let exited: number | null = null;
  term.onData((d) => {
    screen += d;
    if (d.includes('\x1b[c')) term.write('\x1b[?62;22c');
  });
  term.onExit(({ exitCode }) => (exited = exitCode));
  opts.cleanups.push(() => {
    if (exited === null) term.kill('SIGKILL');
  });
  return {
    screen: () => screen,
    stop: async () => {
      term.kill('SIGTERM');
      await waitFor(() => exited !== null, 'teamux to end on SIGTERM', 15_000);
    },
  };
}
