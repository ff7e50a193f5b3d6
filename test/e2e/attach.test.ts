// End-to-end: `teamux attach` from a second terminal, as tmux users expect. Without -d it refuses
// with a hint that is not the command just typed; `attach -d` takes over, and the first TUI is told
// why and exits cleanly while the members keep running. `teamux ls` says what the pane titles say.
import { randomBytes } from 'node:crypto';
import { cpSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pidAlive } from '../../src/store/liveness.js';
import { TeamStore } from '../../src/store/team.js';
import { BIN, REPO, cliProcess, tempDir, waitFor } from '../helpers/team.js';
import { killServer, TmuxDriver } from '../helpers/tmux.js';

const teamSocket = `teamux-team-${randomBytes(4).toString('hex')}`;
const drivers: TmuxDriver[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  await killServer(teamSocket);
  for (const c of cleanups.splice(0)) c();
});

async function terminal(command: string, env: Record<string, string>): Promise<TmuxDriver> {
  const d = await TmuxDriver.start(`${command}; echo TEAMUX-EXIT=$?; sleep 600`, 160, 45, env);
  drivers.push(d);
  return d;
}

describe('attach from a second terminal (e2e)', () => {
  it('attach.refuses-with-a-different-hint-then-attach-d-takes-over-and-the-first-tui-says-why', async () => {
    const tmp = tempDir('teamux-e2e-');
    cleanups.push(tmp.cleanup);
    cpSync(path.join(REPO, 'examples', 'scripted', 'worker.sh'), path.join(tmp.dir, 'worker.sh'));
    const layout = path.join(tmp.dir, 'team.yaml');
    writeFileSync(layout, [
      'name: twoterms', 'backend: tmux',
      'lead: { name: lead, role: lead, command: [bash, --norc, --noprofile] }',
      'teammates:',
      '  - { name: alice, role: worker, command: [bash, worker.sh], plan_required: true, speaks_protocol: true }',
      '  - { name: sh, role: shell, command: [bash, --norc, --noprofile] }', '',
    ].join('\n'));
    const env = { TEAMUX_TMUX_SOCKET: teamSocket };
    const first = await terminal(`${process.execPath} ${BIN} start ${layout}`, env);
    await first.waitFor((s) => s.includes('[alice] waiting for approval') && s.includes(' 3 sh · '), 'the team under tmux', 30_000);

    // The roster state is one function: ls says what alice's pane title says.
    await first.waitFor(/ 2 alice · .*waiting for approval/, 'alice\'s title', 15_000);
    const ls = await waitFor(async () => {
      const r = await cliProcess(['ls'], env);
      return r.out.includes('alice:waiting for approval') ? r : null;
    }, 'ls to show alice waiting for approval', 15_000);
    expect(ls.out).toMatch(/twoterms\s+pid \d+\s+lead:working, alice:waiting for approval, sh:working/);

    // A second terminal without -d: refused, with a hint that is not the command just typed.
    const typed = `${process.execPath} ${BIN} attach twoterms`;
    const second = await terminal(typed, env);
    const refused = await second.waitFor(/TEAMUX-EXIT=1/, 'attach without -d to refuse');
    expect(refused).toMatch(/teamux: team "twoterms" is already attached in another terminal \(teamux pid \d+/);
    const hint = refused.split('\n').find((l) => l.includes('hint:'))!;
    expect(hint).toContain('`teamux attach -d twoterms`');
    expect(hint).not.toContain('`teamux attach twoterms`');

    // attach -d: the second terminal takes over; the first is told why and exits cleanly.
    const opened = await TeamStore.open(path.join(tmp.dir, '.teamux', 'twoterms'));
    if (!opened.ok) throw new Error(opened.error.message);
    const pids = (await opened.store.roster()).map((m) => m.pid!);
    const third = await terminal(`${process.execPath} ${BIN} attach -d twoterms`, env);
    await third.waitFor((s) => s.includes('[alice] waiting for approval') && s.includes(' 3 sh · '), 'the taken-over screens', 30_000);
    const left = await first.waitFor(/TEAMUX-EXIT=0/, 'the first TUI to let go', 15_000);
    expect(left).toMatch(/\[detached: taken over by `teamux attach -d` from \/dev\/pts\/\d+ \(pid \d+\)\]/);
    for (const pid of pids) expect(pidAlive(pid, null), `member pid ${pid}`).toBe(true);

    // kill: the attached TUI is told, then the team is gone.
    const killed = await cliProcess(['kill', 'twoterms', '--timeout', '3'], env);
    expect(killed.code, killed.err).toBe(0);
    const gone = await third.waitFor(/TEAMUX-EXIT=0/, 'the attached TUI to let go on kill', 15_000);
    expect(gone).toMatch(/\[detached: the team was stopped by `teamux kill` \(pid \d+\)\]/);
    for (const pid of pids) await waitFor(() => !pidAlive(pid, null), `member pid ${pid} to be gone`, 10_000);
  }, 150_000);
});
