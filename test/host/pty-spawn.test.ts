// Panes start with posix_spawn (native/pty-spawn.c) instead of node-pty's forkpty, and a pane's process
// cannot tell the difference: real child processes start the same probe both ways and compare what the
// pane's process saw (session, controlling terminal, termios, size, folder, descriptors, PATH, ^C,
// exit status). What posix_spawn does not do alike falls back to forkpty, with forkpty's behaviour.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../helpers/team.js';

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

const PROBE = path.join(REPO, 'test', 'workers', 'pane-probe.mjs');

interface Probe {
  method: string;
  out: string;
  exit: { exitCode: number | null; signal: string | null };
}

function probe(dir: string, how: 'posix_spawn' | 'forkpty', program?: string): Promise<Probe> {
  const env: NodeJS.ProcessEnv = { ...process.env, TEAMUX_SPAWN: how === 'forkpty' ? 'forkpty' : '' };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [PROBE, path.join(dir, 'bin'), path.join(dir, 'work'), ...(program ? [program] : [])], { env, timeout: 60_000 }, (err, out, stderr) => {
      if (err) reject(new Error(`pane probe (${how}): ${err.message} ${stderr}`));
      else resolve(JSON.parse(out) as Probe);
    });
  });
}

function setup(): string {
  const t = tempDir();
  cleanup.push(t.cleanup);
  mkdirSync(path.join(t.dir, 'bin'));
  mkdirSync(path.join(t.dir, 'work'));
  // A program only the member's PATH has.
  writeFileSync(path.join(t.dir, 'bin', 'probe-tool'), '#!/bin/sh\nexit 0\n');
  chmodSync(path.join(t.dir, 'bin', 'probe-tool'), 0o755);
  return t.dir;
}

describe('pane spawn', () => {
  it('pty-spawn.a-pane-started-with-posix-spawn-sees-what-a-forkpty-pane-sees', async () => {
    const dir = setup();
    const spawned = await probe(dir, 'posix_spawn');
    const forked = await probe(dir, 'forkpty');
    // The native part is built by `npm install`: the fast path is the one under test.
    expect(spawned.method).toBe('posix_spawn');
    expect(forked.method).toMatch(/^forkpty/);
    expect(spawned.out).toContain('session-leader=yes ctty=yes foreground=yes');
    expect(spawned.out).toContain('size=37 91');
    expect(spawned.out).toContain(`cwd=${path.join(dir, 'work')}`);
    expect(spawned.out).toContain('fds=0 1 2 ');
    expect(spawned.out).toContain(`found=${path.join(dir, 'bin', 'probe-tool')}`);
    expect(spawned.out).toContain('tty-open=yes');
    expect(spawned.out).toContain('got-sigint');
    // No signal blocked or ignored (Node ignores SIGPIPE itself; a pane's process must not inherit that).
    expect(spawned.out).toContain('signals=SigBlk: 0000000000000000 SigIgn: 0000000000000000');
    expect(spawned.exit).toEqual({ exitCode: 7, signal: null });
    // And all of it exactly as forkpty's pane has it (the terminal settings included).
    expect(spawned.out).toMatch(/stty=[0-9a-f:]+/);
    expect(spawned.out).toBe(forked.out);
    expect(spawned.exit).toEqual(forked.exit);
  }, 120_000);

  it('pty-spawn.a-program-the-path-does-not-have-fails-in-its-pane-as-with-forkpty', async () => {
    const dir = setup();
    const spawned = await probe(dir, 'posix_spawn', 'no-such-program-here');
    const forked = await probe(dir, 'forkpty', 'no-such-program-here');
    expect(spawned.out).toContain('execvp(3) failed.: No such file or directory');
    expect(spawned).toEqual({ ...forked, method: 'posix_spawn' });
  }, 120_000);
});
