// End-to-end: Claude Code's own teammates outlive the screen with the tmux backend. `teamux start
// --backend tmux` runs a native_teams lead; the `claude` on its PATH is a script that acts as Claude
// Code does on the stand-in (display-message, split-window, select-pane -T, respawn-pane -k with the
// teammate command line) when the test tells it to. The screen is detached, the lead opens amy, and
// amy runs in the backend's session while no screen is attached; `teamux ls` lists her; `teamux
// attach` shows her pane by name; a teammate opened while attached (bob) appears at once; closing the
// team leaves no process, no bridge, no socket file.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bridgeHolder } from '../../src/store/bridge-lock.js';
import { pidAlive } from '../../src/store/liveness.js';
import { BIN, cliProcess, tempDir, waitFor } from '../helpers/team.js';
import { killServer, TmuxDriver, tmux } from '../helpers/tmux.js';

const teamSocket = `teamux-team-${randomBytes(4).toString('hex')}`;
const drivers: TmuxDriver[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  await killServer(teamSocket);
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A stand-in for the `claude` binary. As the lead it waits for `go-NAME` files and opens teammate NAME
 * through `tmux` (teamux's stand-in, first on its PATH) with Claude Code 2.1.328's calls; as a
 * teammate it says who it is and waits.
 */
const FAKE_CLAUDE = `#!/bin/bash
# teamux validate asks every claude on PATH for its version.
[ "$1" = --version ] && { echo "2.1.328 (Claude Code)"; exit 0; }
if [ "$TEAMUX_MEMBER" != lead ]; then
  # Like a full-screen program, it draws again when its window is resized.
  up() { echo "TEAMMATE-UP member=$TEAMUX_MEMBER pane=$TMUX_PANE"; }
  trap up WINCH
  up
  for _ in $(seq 600); do sleep 1; done
  exit 0
fi
echo "LEAD-READY tmux=$(command -v tmux)"
for name in amy bob; do
  while [ ! -e "$GO_DIR/go-$name" ]; do sleep 0.1; done
  window=$(tmux display-message -t %0 -p '#{window_id}')
  id=$(tmux split-window -d -t %0 -h -l 70% -P -F '#{pane_id}' -- cat)
  tmux select-pane -t "$id" -T "$name"
  tmux respawn-pane -k -t "$id" -- "cd $PWD && env CLAUDECODE=1 $0 --agent-id $name@session-1 --agent-name $name --team-name session-1"
  echo "OPENED $name as $id in $window: $?"
  # A focus request while no screen is attached (for amy): it must not move a later screen's focus.
  [ $name = amy ] && tmux select-pane -t "$id"
done
while [ ! -e "$GO_DIR/go-focus" ]; do sleep 0.1; done
tmux select-pane -t %1
echo "FOCUS-ASKED: $?"
exec sleep 600
`;

describe('Claude Code teammates under the tmux backend (e2e)', () => {
  it('native-teammates.open-while-detached-show-on-attach-list-in-ls-and-leave-nothing', async () => {
    const tmp = tempDir('teamux-e2e-');
    cleanups.push(tmp.cleanup);
    const root = tmp.dir;
    const bin = path.join(root, 'fakebin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'claude'), FAKE_CLAUDE);
    chmodSync(path.join(bin, 'claude'), 0o755);
    const layout = path.join(root, 'team.yaml');
    writeFileSync(layout, ['name: natmux', 'backend: tmux', 'shutdown_timeout: 2', 'lead: { name: lead, role: Leads, agent: { cli: claude, native_teams: true } }', ''].join('\n'));
    const teamDir = path.join(root, '.teamux', 'natmux');
    const env = { TEAMUX_TMUX_SOCKET: teamSocket, PATH: `${bin}:${process.env.PATH}`, GO_DIR: root, HOME: root, ANTHROPIC_API_KEY: '' };
    // (tmux gives a session's shell its own PATH: the fake claude's folder goes through env(1).)
    const first = await TmuxDriver.start(`env -u ANTHROPIC_API_KEY PATH=${env.PATH} ${process.execPath} ${BIN} start ${layout}; echo TEAMUX-EXIT=$?; sleep 600`, 160, 45, env);
    drivers.push(first);
    expect(await first.waitFor(/LEAD-READY|TEAMUX-EXIT/, 'the lead to start', 60_000)).toMatch(/LEAD-READY tmux=\S+\/exec-[0-9a-f]+\/tmux\/tmux/);
    const bridge = await waitFor(() => bridgeHolder(path.join(teamDir, 'tmux-bridge.pid')), 'the bridge process', 30_000);

    // Detach: the screen goes, the lead, the bridge and its socket stay.
    expect((await cliProcess(['detach', 'natmux'], env)).code).toBe(0);
    await first.waitFor(/TEAMUX-EXIT=0/, 'the screen to detach', 30_000);
    expect(pidAlive(bridge.pid, bridge.pidStart)).toBe(true);

    // While detached, the lead opens amy: she runs in the backend's session, named and tagged.
    writeFileSync(path.join(root, 'go-amy'), '');
    const panes = async (): Promise<string[]> => (await tmux(teamSocket, ['list-panes', '-s', '-t', '=natmux', '-F', '#{pane_id} #{@teamux_member} #{@teamux_slot} #{pane_dead}'])).trim().split('\n');
    const amyLine = await waitFor(async () => (await panes()).find((l) => / amy 1 0$/.test(l)), 'amy in the session while detached', 60_000, 100);
    const amyPane = amyLine.split(' ')[0]!;
    const amyOut = await waitFor(async () => {
      const text = await tmux(teamSocket, ['capture-pane', '-p', '-t', amyPane]);
      return text.includes('TEAMMATE-UP') ? text : null;
    }, "amy's first output", 30_000, 100);
    expect(amyOut).toContain('TEAMMATE-UP member=amy pane=%1');
    const leadPane = (await panes()).find((l) => / lead  0$/.test(l))!.split(' ')[0]!;
    expect(await tmux(teamSocket, ['capture-pane', '-p', '-t', leadPane])).toContain('OPENED amy as %1 in @0: 0');

    // ls lists her with the team, while no screen is attached.
    const ls = await waitFor(async () => {
      const r = await cliProcess(['ls'], env);
      return /amy:/.test(r.out) ? r : null;
    }, 'ls to list amy', 30_000, 200);
    expect(ls.out).toMatch(/natmux\s+no\s+lead:\S+, amy:working/);

    // attach: the new screen shows her pane by name, after the lead.
    const second = await TmuxDriver.start(`env PATH=${env.PATH} ${process.execPath} ${BIN} attach natmux; echo TEAMUX-EXIT=$?; sleep 600`, 160, 45, env);
    drivers.push(second);
    await second.waitFor((s) => / 2 amy · /.test(s) && s.includes('TEAMMATE-UP member=amy'), "amy's pane in the attached screen", 60_000);
    await waitFor(() => readFileSync(path.join(teamDir, 'teamux.log'), 'utf8').includes('focus request for amy'), 'the stale focus request to be seen', 30_000, 100);
    expect(readFileSync(path.join(teamDir, 'teamux.log'), 'utf8')).toMatch(/focus request for amy from \S+ dropped \(made before this screen attached/);
    // tmux forks these panes: the log names that, not this process's unused pty method ('not chosen yet').
    expect(readFileSync(path.join(teamDir, 'teamux.log'), 'utf8')).toContain('panes start in tmux (its own fork)');
    expect(await second.screen()).toContain('[natmux] → lead');

    // While attached, the lead opens bob: his pane appears in this screen.
    writeFileSync(path.join(root, 'go-bob'), '');
    await second.waitFor((s) => / 3 bob · /.test(s) && s.includes('TEAMMATE-UP member=bob'), "bob's pane appearing in the attached screen", 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- teamux.log ---\n${readFileSync(path.join(teamDir, 'teamux.log'), 'utf8').split('\n').slice(-40).join('\n')}`);
    });
    expect(await panes()).toHaveLength(3);

    // The lead asks for amy's pane (select-pane -t %1) while this screen is attached: the focus moves
    // (nobody is typing here).
    writeFileSync(path.join(root, 'go-focus'), '');
    await second.waitFor(/\[natmux\] → amy/, 'the focus to move to amy', 30_000);
    const memberPids = (await tmux(teamSocket, ['list-panes', '-s', '-t', '=natmux', '-F', '#{pane_pid}'])).trim().split('\n').map(Number);

    // Closing the team leaves nothing: no session, no member process, no bridge, no socket.
    const killed = await cliProcess(['kill', 'natmux', '--timeout', '3'], env);
    expect(killed.code, killed.err).toBe(0);
    await second.waitFor(/TEAMUX-EXIT=0/, 'the attached screen to let go', 30_000);
    await waitFor(() => !pidAlive(bridge.pid, bridge.pidStart), 'the bridge process to end', 30_000, 100);
    for (const pid of memberPids) await waitFor(() => !pidAlive(pid, null), `member pid ${pid} to be gone`, 30_000, 100);
    expect(existsSync(path.join(teamDir, 'tmux.sock'))).toBe(false);
    expect(existsSync(path.join(teamDir, 'tmux-bridge.pid'))).toBe(false);
  }, 300_000);
});
