// A pane's output is read to its end even when the process ended while teamux was not reading it:
// held by read pacing or paused by flow control across the exit, the rest still arrives, and the
// exit is told after it. Real processes in real ptys through the node-pty host (started with
// posix_spawn, and with forkpty).
import { afterEach, describe, expect, it } from 'vitest';
import { PtyHost } from '../../src/host/pty.js';
import { EXIT_DRAIN_MS, EXIT_HOLD_MAX_MS } from '../../src/host/pty-spawn.js';
import type { PaneExit, PaneProcess } from '../../src/host/types.js';
import { waitFor } from '../helpers/team.js';

let host: PtyHost | null = null;
afterEach(async () => {
  await host?.dispose({ kill: true });
  host = null;
});

/** Start `script` in a pane; collect what it prints and when it exits. */
async function start(script: string): Promise<{ pane: PaneProcess; out: () => string; exit: () => { at: number; exit: PaneExit } | null }> {
  host = new PtyHost();
  const pane = await host.spawn({ id: 'p', command: 'sh', args: ['-c', script], cols: 80, rows: 24, cwd: process.cwd(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  let out = '';
  let exit: { at: number; exit: PaneExit } | null = null;
  pane.onData((d) => (out += typeof d === 'string' ? d : Buffer.from(d).toString('utf8')));
  pane.onExit((e) => (exit = { at: performance.now(), exit: e }));
  return { pane, out: () => out, exit: () => exit };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// 16 KiB after START: more than a pty hands out in one read, less than it holds
const SCRIPT = 'echo START; sleep 0.3; seq 1 3000; echo THE-END; exit 4';

describe('a pane that ends while it is not read', () => {
  it('pty-exit.paused-by-flow-control-across-its-exit-the-pane-still-gets-all-its-output', async () => {
    const p = await start(SCRIPT);
    await waitFor(() => p.out().includes('START'), 'START', 30_000);
    p.pane.pause();
    // The process prints and ends meanwhile; nothing is read, and its exit waits for its output.
    await sleep(1_000);
    expect(p.exit()).toBeNull();
    const resumed = performance.now();
    p.pane.resume();
    await waitFor(() => p.exit(), 'the exit', 30_000);
    expect(p.out()).toContain('THE-END');
    expect(p.out().split('\n').filter((l) => /^\d+\r?$/.test(l))).toHaveLength(3000);
    expect(p.exit()!.exit).toEqual({ exitCode: 4, signal: null });
    expect(p.exit()!.at).toBeGreaterThanOrEqual(resumed);
  }, 60_000);

  it('pty-exit.held-by-read-pacing-across-its-exit-the-pane-still-gets-all-its-output', async () => {
    const p = await start(SCRIPT);
    await waitFor(() => p.out().includes('START'), 'START', 30_000);
    // Every read is held for 300 ms, as if each frame came late.
    p.pane.onData(() => {
      p.pane.holdReads?.();
      setTimeout(() => p.pane.releaseReads?.(), 300);
    });
    p.pane.holdReads?.();
    setTimeout(() => p.pane.releaseReads?.(), 1_000);
    await waitFor(() => p.exit(), 'the exit', 30_000);
    expect(p.out()).toContain('THE-END');
    expect(p.exit()!.exit).toEqual({ exitCode: 4, signal: null });
  }, 60_000);

  it('pty-exit.a-pane-never-read-again-is-told-ended-after-the-hold-limit', async () => {
    const p = await start('echo START; sleep 0.3; exit 2');
    await waitFor(() => p.out().includes('START'), 'START', 30_000);
    const held = performance.now();
    p.pane.pause();
    await waitFor(() => p.exit(), 'the exit', 30_000);
    expect(p.exit()!.exit).toEqual({ exitCode: 2, signal: null });
    expect(p.exit()!.at - held).toBeGreaterThanOrEqual(EXIT_HOLD_MAX_MS - 50);
  }, 60_000);

  it('pty-exit.a-process-left-in-the-background-does-not-keep-the-exit-from-being-told', async () => {
    // A job left running in the background (the session leader's end hangs the terminal up for it).
    const p = await start('sleep 30 & echo BG=$!; exit 3');
    await waitFor(() => /BG=\d+/.test(p.out()), 'the background pid', 30_000);
    const started = performance.now();
    await waitFor(() => p.exit(), 'the exit', 30_000);
    expect(p.exit()!.exit).toEqual({ exitCode: 3, signal: null });
    // told after EXIT_DRAIN_MS, and node-pty's own 200 ms
    expect(p.exit()!.at - started).toBeLessThan(EXIT_DRAIN_MS + 200 + 5_000);
    process.kill(Number(/BG=(\d+)/.exec(p.out())![1]), 'SIGKILL');
  }, 60_000);
});
