// The deadline on the bridge's tmux commands (src/agents/claude/tmux-deadline.ts) tells a command that passed
// its deadline from one tmux answered: "no answer" must never read as a failed command (which the
// bridge takes for a gone session) or as a success. That holds for a command sent late in a long turn
// of the event loop, and for a client that the runner killed at its own timeout, though tmux's client
// exits 0 on SIGTERM (ExecTmuxRunner said code 0, success, before). A shell script stands in for tmux.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { timedOut, withDeadline } from '../../../src/agents/claude/tmux-deadline.js';
import { ExecTmuxRunner, type TmuxResult, type TmuxRunner } from '../../../src/host/tmux/runner.js';
import { Log } from '../../../src/store/log.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function scratch(): { dir: string; log: Log; logText: () => string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'teamux-deadline-'));
  dirs.push(dir);
  const file = path.join(dir, 'teamux.log');
  return { dir, log: new Log(file, 'test'), logText: () => readFileSync(file, 'utf8') };
}

/** A runner whose commands never answer (a stopped tmux server). */
const silent: TmuxRunner = {
  run: () => new Promise<TmuxResult>(() => undefined),
  control: () => {
    throw new Error('not used');
  },
  signal: () => false,
};

/** Keep this turn of the event loop busy for `ms` (the loop's cached clock stays where it was). */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spinning, as a long synchronous task would
  }
}

describe('tmux command deadline', () => {
  it('tmux-deadline.a-deadline-armed-late-in-a-long-turn-still-reads-as-no-answer', async () => {
    const { log, logText } = scratch();
    const runner = withDeadline(silent, log, 400);
    // A timer that starts the turn, so the loop's clock is read at its start, then 150 ms of work.
    await new Promise((resolve) => setTimeout(resolve, 5));
    busy(150);
    const r = await runner.run(['has-session', '-t', '=test']);
    expect(timedOut(r), `got ${JSON.stringify(r)}`).toBe(true);
    expect(r.code).toBe(-1);
    expect(r.stderr).toBe('tmux did not answer within 0.4 s');
    expect(logText()).toMatch(/tmux command timed out after [\d.]+ s \(deadline 0.4 s.*: tmux has-session -t =test/);
  });

  it('tmux-deadline.an-answer-before-the-deadline-is-the-answer', async () => {
    const { log } = scratch();
    const answering: TmuxRunner = { ...silent, run: async () => ({ stdout: 'x\n', stderr: '', code: 1 }) };
    const r = await withDeadline(answering, log, 400).run(['has-session', '-t', '=gone']);
    expect(timedOut(r)).toBe(false);
    expect(r).toEqual({ stdout: 'x\n', stderr: '', code: 1 });
  });

  it('tmux-deadline.a-client-killed-at-the-runners-timeout-is-no-answer-though-it-exits-0', async () => {
    const { dir, log, logText } = scratch();
    // A stand-in for tmux's client: waits for an answer that never comes, and exits 0 on SIGTERM.
    const fake = path.join(dir, 'tmux');
    writeFileSync(fake, "#!/bin/sh\ntrap 'exit 0' TERM\nwhile :; do sleep 0.05; done\n");
    chmodSync(fake, 0o755);
    // The runner's own timeout comes before the deadline here: its kill must not look like an answer.
    const r = await withDeadline(new ExecTmuxRunner({ tmux: fake, timeoutMs: 300 }), log, 2_000).run(['has-session', '-t', '=test']);
    expect(timedOut(r), `got ${JSON.stringify(r)}`).toBe(true);
    expect(logText()).toMatch(/timed out .*: tmux has-session -t =test/);
    // Without the deadline, the runner says the same.
    const bare = await new ExecTmuxRunner({ tmux: fake, timeoutMs: 300 }).run(['list-panes']);
    expect(timedOut(bare), `got ${JSON.stringify(bare)}`).toBe(true);
    expect(bare.code).toBe(-1);
  });
});
