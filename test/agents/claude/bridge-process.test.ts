// The tmux stand-in's bridge process on its own (tmux backend, no screen attached): a real private tmux
// server holds the team's session with the lead's pane; `teamux tmux-bridge` is started as the screen
// starts it (detached, spec on stdin) and the generated `tmux` stand-in is run as the lead would. A
// split opens a tagged window in the session, a teammate's respawn runs it there with the lead's
// environment and its own name, list-panes answers from tmux, kill-pane closes it; a second bridge
// sees the lock and leaves; one started after a crash takes over the panes the tags name; when the
// session goes, the bridge removes its socket and lock and ends.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { askVerifyKey, bridgeVerifyKeys } from '../../../src/agents/claude/bridge-keys.js';
import type { BridgeSpec } from '../../../src/agents/claude/bridge-process.js';
import { tmuxShimScript } from '../../../src/agents/claude/launch.js';
import { startTmuxBridge } from '../../../src/cli/tmux-bridge.js';
import { writeTmuxShim } from '../../../src/store/claude-teams.js';
import { bridgeHolder } from '../../../src/store/bridge-lock.js';
import { pidAlive } from '../../../src/store/liveness.js';
import { BIN, makeTeam, REPO, waitFor } from '../../helpers/team.js';
import { killServer, tmux } from '../../helpers/tmux.js';
import { shellQuote } from '../../../src/host/tmux/quote.js';

const NODE_CLIENT = path.join(REPO, 'dist', 'agents', 'claude', 'tmux-shim', 'client.js');

function run(file: string, argv: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(file, argv, { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 }, (err, out, errText) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out, err: errText });
    });
  });
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The session's tagged panes: `paneId member shim slot dead`. */
async function tagged(socket: string): Promise<string[]> {
  const out = await tmux(socket, ['list-panes', '-s', '-t', '=test', '-F', '#{pane_id} #{@teamux_member} #{@teamux_shim} #{@teamux_slot} #{pane_dead}']);
  return out.trim().split('\n').filter(Boolean);
}

describe('tmux stand-in bridge process (real tmux server, no screen)', () => {
  it('bridge-process.serves-splits-and-teammates-into-the-session-and-ends-with-it', async () => {
    const team = await makeTeam([]);
    cleanups.push(team.cleanup);
    const socket = `teamux-bridge-${randomBytes(4).toString('hex')}`;
    cleanups.push(() => killServer(socket));
    const root = path.dirname(path.dirname(team.dir));
    // The backend's session as `teamux start --backend tmux` leaves it: the lead in window 0, tagged.
    // The lead's pane runs what the test hands it (the stand-in checks that changes come from there).
    const box = path.join(root, 'lead-box');
    mkdirSync(box);
    const loop = `while :; do if [ -e ${box}/run ]; then mv ${box}/run ${box}/running; bash ${box}/running > ${box}/out 2> ${box}/err; echo $? > ${box}/code; mv ${box}/code ${box}/done; fi; sleep 0.05; done`;
    await tmux(socket, ['-f', '/dev/null', 'new-session', '-d', '-s', 'test', '-x', '120', '-y', '40', '-c', root, `bash -c '${loop}'`]);
    await tmux(socket, ['set-option', '-gw', 'remain-on-exit', 'on']);
    await tmux(socket, ['set-option', '-p', '-t', '=test:', '@teamux_member', 'lead']);

    const shimSocket = team.store.paths.tmuxSocket;
    const shim = await writeTmuxShim(team.store.paths, tmuxShimScript(process.execPath, NODE_CLIENT, existsSync('/usr/bin/perl') ? '/usr/bin/perl' : null));
    const leadEnv = { PATH: `${path.dirname(shim)}:${process.env.PATH ?? ''}`, HOME: root, ANTHROPIC_API_KEY: 'key-from-the-lead', TEAMUX_TEAM_DIR: team.dir, TEAMUX_MEMBER: 'lead', TMUX: `${shimSocket},1,0`, TMUX_PANE: '%0' };
    const spec: BridgeSpec = { lead: { name: 'lead', role: 'lead', isLead: true, speaksProtocol: true, command: 'claude', args: [], cwd: root, env: leadEnv }, planRequired: false, socket: shimSocket, tmuxSocket: socket, team: 'test', teamuxBin: BIN };
    await startTmuxBridge(team.dir, BIN, spec);
    const holder = await bridgeHolder(team.store.paths.tmuxBridgeLock);
    expect(holder).not.toBeNull();
    cleanups.push(() => {
      if (holder && pidAlive(holder.pid, null)) process.kill(holder.pid, 'SIGTERM');
    });
    const env = { TMUX: `${shimSocket},1,0`, TMUX_PANE: '%0', TEAMUX_TEAM_DIR: team.dir };
    /** Run the stand-in from the lead's pane, as its Claude Code would. */
    const lead = async (argv: string[]): Promise<{ code: number; out: string; err: string }> => {
      const vars = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`).join(' ');
      writeFileSync(path.join(box, 'run.tmp'), `exec env ${vars} ${shellQuote(shim)} ${argv.map(shellQuote).join(' ')}\n`);
      renameSync(path.join(box, 'run.tmp'), path.join(box, 'run'));
      const code = await waitFor(() => (existsSync(path.join(box, 'done')) ? readFileSync(path.join(box, 'done'), 'utf8') : null), `tmux ${argv[0]} in the lead's pane`, 30_000, 20);
      const r = { code: Number(code.trim()), out: readFileSync(path.join(box, 'out'), 'utf8'), err: readFileSync(path.join(box, 'err'), 'utf8') };
      rmSync(path.join(box, 'done'));
      return r;
    };

    // Claude Code's per-teammate calls, answered from the session.
    expect(await run(shim, ['display-message', '-t', '%0', '-p', '#{session_name} #{window_id} #{pane_id}'], env)).toMatchObject({ code: 0, out: 'test @0 %0\n' });
    const split = await lead(['split-window', '-d', '-t', '%0', '-h', '-l', '70%', '-P', '-F', '#{pane_id}', '--', 'cat']);
    expect(split).toMatchObject({ code: 0, out: '%1\n', err: '' });
    expect((await tagged(socket)).slice(1)).toEqual([expect.stringMatching(/^%\d+ %1 %1 1 0$/)]);
    expect(await lead(['select-pane', '-t', '%1', '-T', 'amy'])).toMatchObject({ code: 0 });

    // The teammate's respawn: its own name, the lead's environment (credentials included), its $TMUX_PANE.
    const verifyKey = `${Date.now()}.${generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' }).toString('base64url')}`;
    const command = `exec sh -c 'echo AMY-UP member=$TEAMUX_MEMBER pane=$TMUX_PANE key=$ANTHROPIC_API_KEY; exec sleep 600' x --agent-id amy@session-1 --agent-name amy --team-name session-1 --lead-verify-key ${verifyKey}`;
    expect(await lead(['respawn-pane', '-k', '-t', '%1', '--', command])).toMatchObject({ code: 0, err: '' });
    const amyPane = (await tagged(socket))[1]!.split(' ')[0]!;
    expect((await tagged(socket))[1]).toBe(`${amyPane} amy %1 1 0`);
    const shown = await waitFor(async () => {
      const text = await tmux(socket, ['capture-pane', '-p', '-t', amyPane]);
      return text.includes('AMY-UP') ? text : null;
    }, "amy's first output", 30_000);
    expect(shown).toContain('AMY-UP member=amy pane=%1 key=key-from-the-lead');
    expect((await tmux(socket, ['display-message', '-p', '-t', amyPane, '#{pane_title}'])).trim()).toBe('amy');
    expect((await team.store.config()).members.find((m) => m.name === 'amy')).toMatchObject({ kind: 'teammate', runtime: 'claude', claudeTeam: 'session-1' });
    expect(await run(shim, ['list-panes', '-t', '@0', '-F', '#{pane_id} #{pane_dead}'], env)).toMatchObject({ code: 0, out: '%0 0\n%1 0\n' });
    // A change from outside every pane of the team (this test process) is refused.
    expect(await run(shim, ['kill-pane', '-t', '%1'], env)).toMatchObject({ code: 1, err: expect.stringContaining('access not allowed') });
    expect(await run(shim, ['list-panes', '-F', '#{pane_id}', '-t', '%7'], env)).toMatchObject({ code: 1, err: "can't find pane: %7\n" });

    // A screen attached later gets amy's lead verify key from the bridge's memory (teamux-only command).
    expect(await askVerifyKey(shimSocket, 'amy')).toBe(verifyKey);
    expect(await askVerifyKey(shimSocket, 'bob')).toBeNull();
    const keys = bridgeVerifyKeys(shimSocket);
    expect(keys.get('amy')).toBeNull();
    const key = await waitFor(() => keys.get('amy'), "amy's key in the screen's cache", 10_000, 50);
    expect(key.export({ type: 'spki', format: 'der' }).toString('base64url')).toBe(verifyKey.split('.')[1]);
    expect(readFileSync(team.store.paths.log, 'utf8')).not.toContain('teamux-verify-key');

    // A second bridge for the same team sees the lock and leaves; the first still answers.
    await startTmuxBridge(team.dir, BIN, spec);
    expect((await bridgeHolder(team.store.paths.tmuxBridgeLock))?.pid).toBe(holder!.pid);

    // A bridge that crashed (its lock and socket left behind) is replaced, and the next one goes on
    // with the panes the tags name: %1 is still amy, the next split is %2.
    process.kill(holder!.pid, 'SIGKILL');
    await waitFor(() => !pidAlive(holder!.pid, null), 'the first bridge to die', 30_000, 50);
    await startTmuxBridge(team.dir, BIN, spec);
    const second = await bridgeHolder(team.store.paths.tmuxBridgeLock);
    expect(second?.pid).not.toBe(holder!.pid);
    cleanups.push(() => {
      if (second && pidAlive(second.pid, null)) process.kill(second.pid, 'SIGTERM');
    });
    expect(readFileSync(team.store.paths.log, 'utf8')).toContain('taking over %1 (amy) from an earlier bridge');
    expect(await run(shim, ['list-panes', '-F', '#{pane_id} #{pane_dead}'], env)).toMatchObject({ code: 0, out: '%0 0\n%1 0\n' });
    expect(await lead(['split-window', '-d', '-t', '%0', '-P', '-F', '#{pane_id}', '--', 'cat'])).toMatchObject({ code: 0, out: '%2\n' });
    expect(await lead(['kill-pane', '-t', '%2'])).toMatchObject({ code: 0 });

    // kill-pane closes the window; the teammate is marked exited.
    expect(await lead(['kill-pane', '-t', '%1'])).toMatchObject({ code: 0 });
    expect(await tagged(socket)).toHaveLength(1);
    expect((await team.store.config()).members.find((m) => m.name === 'amy')?.status).toBe('exited');
    expect(readFileSync(team.store.paths.log, 'utf8')).toMatch(/tmux stand-in bridge: pid \d+ serves session test/);

    // The session goes: the bridge removes its socket and lock and ends.
    await tmux(socket, ['kill-session', '-t', '=test']);
    await waitFor(() => !pidAlive(second!.pid, null), 'the bridge process to end', 30_000, 50);
    expect(existsSync(shimSocket)).toBe(false);
    expect(existsSync(team.store.paths.tmuxBridgeLock)).toBe(false);
    expect(readFileSync(team.store.paths.log, 'utf8')).toContain('ends (the session is gone)');
  }, 120_000);
});
