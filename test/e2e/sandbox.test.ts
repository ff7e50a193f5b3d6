// Issue 26's sandbox with real bubblewrap and real panes: `teamux start` in a private tmux server, a
// teammate whose shell (sandbox-probe.sh) tries what a hostile teammate would. From inside its pane it
// writes its working folder and nothing else (not the repository root, another member's folder, $HOME,
// the exec folder of hooks and stand-in, teamux itself), cannot read the screen's /proc/PID/environ
// (its own pid namespace: it sees only its own processes, not the lead's), sees an empty trust folder, and the
// protocol still works (a message through the CLI reaches the lead); the screen's keys still answer.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/host/sandbox.js';
import { TeamPaths } from '../../src/store/paths.js';
import { BIN, REPO, tempDir, waitFor } from '../helpers/team.js';
import { TmuxDriver } from '../helpers/tmux.js';

const PROBE = path.join(REPO, 'test', 'fixtures', 'attacks', 'sandbox-probe.sh');
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const probe = probeSandbox();
if (!probe.ok) process.stderr.write(`\n  NOTICE: the sandbox e2e test is SKIPPED: ${probe.why} (${probe.hint})\n\n`);

describe.skipIf(!probe.ok)('a teammate in its sandbox (real bwrap, e2e in tmux)', () => {
  it('sandbox.a-teammates-shell-writes-only-its-folder-sees-no-other-process-and-the-protocol-works', async () => {
    const tmp = tempDir('teamux-sandbox-');
    cleanups.push(tmp.cleanup);
    const root = tmp.dir;
    for (const d of ['mate', 'other']) mkdirSync(path.join(root, d));
    const teamDir = path.join(root, '.teamux', 'boxed');
    const layout = path.join(root, 'boxed.yaml');
    const env = { PROBE_ROOT: root, PROBE_OTHER: path.join(root, 'other'), PROBE_EXEC: new TeamPaths(teamDir).exec, PROBE_TEAMUX: REPO, };
    writeFileSync(layout, [
      'name: boxed', 'sidebar: { hidden: true }', 'sandbox: true',
      'lead: { name: lead, role: reads, command: [bash, --norc, --noprofile] }',
      'teammates:',
      `  - { name: mate, role: probes, cwd: mate, command: [sh, ${PROBE}], env: ${JSON.stringify(env)} }`,
      '  - { name: other, role: idles, cwd: other, command: [sleep, "600"] }', '',
    ].join('\n'));
    const d = await TmuxDriver.start(`${process.execPath} ${BIN} start ${layout}; echo TEAMUX-EXIT=$?; sleep 600`, 160, 45);
    cleanups.push(() => d.kill());
    const out = path.join(root, 'mate', 'probe.txt');
    const lines = await waitFor(() => (existsSync(out) && readFileSync(out, 'utf8').includes('done') ? readFileSync(out, 'utf8').trim().split('\n') : null), 'the probe to finish', 30_000).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await d.screen()}\n${existsSync(path.join(teamDir, 'teamux.log')) ? readFileSync(path.join(teamDir, 'teamux.log'), 'utf8') : ''}`);
    });
    expect(lines).toEqual([
      // The test's root is under /tmp, which the sandbox replaces by a private one: the write lands
      // there, never in the real root (checked below); a repository elsewhere is read-only.
      'write-cwd ok', expect.stringMatching(/^write-repo-root (ok|refused)$/), 'write-other-worktree refused', 'write-home refused', 'write-exec refused', 'write-teamux refused',
      'see-lead-process refused', 'trust-entries 0', expect.stringMatching(/^procs [1-9]$/), 'protocol-send ok', 'done',
    ]);
    for (const f of [path.join(root, 'PWNED_ROOT'), path.join(root, 'other', 'PWNED_OTHER'), path.join(REPO, 'bin', 'PWNED_TEAMUX')]) expect(existsSync(f)).toBe(false);
    expect(existsSync(path.join(root, 'mate', 'mine'))).toBe(true);
    // The message sent from inside the sandbox reached the lead's inbox; the team record has the sandbox's pid, alive.
    const inbox = readFileSync(new TeamPaths(teamDir).inbox('lead'), 'utf8');
    expect(inbox).toContain('"from":"mate"');
    expect(inbox).toContain('hello-from-the-sandbox');
    // The screen's keys still answer.
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit', 30_000);
  }, 90_000);
});
