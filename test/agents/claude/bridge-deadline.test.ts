// The bridge process's tmux commands have a deadline (src/agents/claude/tmux-deadline.ts): a real private tmux
// server stopped with SIGSTOP answers nothing, and the bridge neither hangs nor takes the silence for
// "the session is gone". Each command past its deadline is logged to teamux.log with its command line;
// the session poll goes on and the bridge serves on once the server is continued, ending only when the
// session really goes; a pane change fails with an error in time; a server that stays silent past
// `wedgedMs` makes the bridge give up cleanly (its socket and lock removed).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBridgeProcess, type BridgeSpec } from '../../../src/agents/claude/bridge-process.js';
import { withDeadline } from '../../../src/agents/claude/tmux-deadline.js';
import { tmuxPaneControl } from '../../../src/agents/claude/tmux-pane-control.js';
import { ExecTmuxRunner } from '../../../src/host/tmux/runner.js';
import { makeTeam, waitFor } from '../../helpers/team.js';
import { killServer, tmux } from '../../helpers/tmux.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A team, a private tmux server holding its session `test`, and the server's pid (stopped and continued by the test). */
async function setup(): Promise<{ team: Awaited<ReturnType<typeof makeTeam>>; socket: string; spec: BridgeSpec; serverPid: number; log: () => string }> {
  const team = await makeTeam([]);
  cleanups.push(team.cleanup);
  const socket = `teamux-deadline-${randomBytes(4).toString('hex')}`;
  const root = path.dirname(path.dirname(team.dir));
  await tmux(socket, ['-f', '/dev/null', 'new-session', '-d', '-s', 'test', '-x', '80', '-y', '24', '-c', root, 'sleep 600']);
  const serverPid = Number((await tmux(socket, ['display-message', '-p', '#{pid}'])).trim());
  expect(serverPid).toBeGreaterThan(0);
  cleanups.push(async () => {
    try {
      process.kill(serverPid, 'SIGCONT');
    } catch {
      // Gone already.
    }
    await killServer(socket);
  });
  // A unix socket path must stay short: a folder of its own under the temp folder.
  const box = mkdtempSync(path.join(tmpdir(), 'txd-'));
  cleanups.push(() => rmSync(box, { recursive: true, force: true }));
  const spec: BridgeSpec = { lead: { name: 'lead', role: 'lead', isLead: true, speaksProtocol: true, command: 'claude', args: [], cwd: root, env: {} }, planRequired: false, socket: path.join(box, 's.sock'), tmuxSocket: socket, team: 'test' };
  const log = (): string => (existsSync(team.store.paths.log) ? readFileSync(team.store.paths.log, 'utf8') : '');
  return { team, socket, spec, serverPid, log };
}

describe('tmux commands of the bridge process have a deadline (real tmux server, SIGSTOP)', () => {
  it('bridge-deadline.a-stopped-server-is-logged-and-polled-again-never-taken-for-a-gone-session', async () => {
    const { team, socket, spec, serverPid, log } = await setup();
    let ended: number | undefined;
    const bridge = runBridgeProcess(team.store, spec, { pollMs: 100, tmuxDeadlineMs: 1_000 }).then((code) => (ended = code));
    await waitFor(() => log().includes('(session there)'), 'the bridge serving, having seen the session', 30_000);
    process.kill(serverPid, 'SIGSTOP');
    // The session poll passes its deadline: logged with the command, and the bridge goes on.
    // On a timeout, the error carries the bridge's log, so a failure on CI can be read.
    await waitFor(() => (log().match(/tmux command timed out after [\d.]+ s \(deadline 1 s.*has-session -t =test/g) ?? []).length >= 2, 'two has-session timeouts in teamux.log', 60_000)
      .catch((err: Error) => {
        throw new Error(`${err.message}; the bridge ${ended === undefined ? 'still runs' : `ended with ${ended}`}; teamux.log ends:\n${log().split('\n').slice(-25).join('\n')}`);
      });
    expect(ended, 'the bridge took a silent server for a gone session').toBeUndefined();
    expect(existsSync(spec.socket)).toBe(true);
    // A pane change on the stopped server fails with an error in time instead of hanging.
    const panes = tmuxPaneControl({ runner: withDeadline(new ExecTmuxRunner({ timeoutMs: 1_000 }), team.store.log, 1_000), socket, session: 'test', log: team.store.log });
    const t0 = Date.now();
    // (A pane that does not exist: the request may still reach the server when it is continued.)
    await expect(panes.close('%99')).rejects.toThrow(/tmux kill-pane failed: tmux did not answer within 1 s/);
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(log()).toMatch(/timed out .*: tmux -u -L \S+ kill-pane -t %99/);
    // Continued: the bridge still serves, and ends when the session really goes.
    process.kill(serverPid, 'SIGCONT');
    await tmux(socket, ['has-session', '-t', '=test']);
    expect(ended).toBeUndefined();
    await tmux(socket, ['kill-session', '-t', '=test']);
    expect(await bridge).toBe(0);
    expect(log()).toMatch(/ends \(the session is gone\)/);
    expect(existsSync(spec.socket)).toBe(false);
  }, 180_000);

  it('bridge-deadline.a-server-silent-past-wedged-ms-makes-the-bridge-give-up-cleanly', async () => {
    const { team, spec, serverPid, log } = await setup();
    const bridge = runBridgeProcess(team.store, spec, { pollMs: 100, tmuxDeadlineMs: 1_000, wedgedMs: 2_500 });
    await waitFor(() => log().includes('serves session test'), 'the bridge serving', 30_000);
    process.kill(serverPid, 'SIGSTOP');
    expect(await bridge).toBe(0);
    expect(log()).toMatch(/ends \(the tmux server answered nothing for \d+ s\)/);
    expect(existsSync(spec.socket)).toBe(false);
    expect(existsSync(team.store.paths.tmuxBridgeLock)).toBe(false);
  }, 180_000);
});
