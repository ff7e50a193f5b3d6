// Defect 6, black box: a real multiplexer in a real pty hits an uncaught exception. The terminal must
// come back usable (cooked mode, echo, cursor shown, main screen, mouse off), the user must be told
// what happened, the member process must be gone, and the log must have the stack.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { RESTORE_MODES } from '../../src/ui/terminal-guard.js';
import { makeTeam, REPO, waitFor } from '../helpers/team.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('a crash restores the terminal', () => {
  it('mux.uncaught-exception-restores-terminal-and-stops-members', async () => {
    const t = await makeTeam([]);
    cleanups.push(t.cleanup);
    const worker = path.join(REPO, 'test', 'workers', 'crashing-mux.mjs');
    // After the multiplexer process ends, stty reports the terminal modes it left behind.
    const term = pty.spawn('bash', ['--norc', '--noprofile', '-c', `"${process.execPath}" "${worker}" "${t.dir}"; echo "EXIT=$?"; stty -a; echo STTY-DONE`], { cols: 100, rows: 30, cwd: REPO, env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string> });
    let out = '';
    term.onData((d) => (out += d));
    cleanups.push(() => term.kill());
    await waitFor(() => out.includes('STTY-DONE'), 'the multiplexer to crash and stty to report', 45_000);
    expect(out).toMatch(/EXIT=70/);
    const afterCrash = out.slice(out.indexOf(RESTORE_MODES));
    expect(out).toContain(RESTORE_MODES);
    expect(afterCrash).toMatch(/teamux: internal error: a bug in a timer/);
    // Cooked mode with echo: the shell prompt works again.
    const stty = out.slice(out.lastIndexOf('EXIT='));
    expect(stty).toMatch(/(^|\s)icanon(\s|$)/m);
    expect(stty).toMatch(/(^|\s)echo(\s|$)/m);
    expect(stty).not.toMatch(/-icanon/);
    const log = readFileSync(path.join(t.dir, 'teamux.log'), 'utf8');
    expect(log).toMatch(/uncaught exception: a bug in a timer\nError: a bug in a timer\n\s+at /);
    // The member (sleep 60) went with the multiplexer.
    const lead = await t.store.member('lead');
    const pid = lead.ok ? lead.value.pid ?? 0 : 0;
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => { try { process.kill(pid, 0); return false; } catch { return true; } }, 'the member process to be gone');
  });
});
