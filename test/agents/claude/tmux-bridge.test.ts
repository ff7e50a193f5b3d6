// The stand-in's socket end to end: the generated `tmux` script (Perl, and the node client it falls
// back to) run as real processes against a TmuxBridge listening on the team folder's socket, over an
// in-memory PaneControl. Answers match tmux's, a teammate's respawn registers it in team.json with
// its own MCP config and names the pane after it, an unknown command is an error in the caller's
// stderr and in teamux.log, and a stand-in outside a running teamux says so and exits 1 at once.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TmuxBridge } from '../../../src/agents/claude/tmux-bridge.js';
import type { MemberLaunch } from '../../../src/app/multiplexer.js';
import { tmuxShimScript } from '../../../src/agents/claude/launch.js';
import { writeTmuxShim } from '../../../src/store/claude-teams.js';
import { makeTeam, REPO } from '../../helpers/team.js';
import { MemoryPanes } from './memory-panes.js';
import { PERL } from '../../helpers/hook-shell.js';

const NODE_CLIENT = path.join(REPO, 'dist', 'agents', 'claude', 'tmux-shim', 'client.js');

function run(file: string, argv: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    execFile(file, argv, { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 }, (err, out, errText) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out, err: errText, ms: Date.now() - t0 });
    });
  });
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(perl: boolean) {
  const team = await makeTeam([]);
  cleanups.push(team.cleanup);
  const lead: MemberLaunch = { name: 'lead', role: 'lead', isLead: true, speaksProtocol: true, command: 'claude', args: [], cwd: path.dirname(path.dirname(team.dir)), env: { HOME: '/home/x', ANTHROPIC_API_KEY: 'k', TEAMUX_MEMBER: 'lead', TEAMUX_ENROL_TOKEN: 'secret' } };
  const control = new MemoryPanes();
  await control.open(lead);
  const socket = team.store.paths.tmuxSocket;
  const bridge = new TmuxBridge({ socket, store: team.store, control, lead, planRequired: true, session: 'test' });
  await bridge.listen();
  cleanups.push(() => bridge.dispose());
  const shim = await writeTmuxShim(team.store.paths, tmuxShimScript(process.execPath, NODE_CLIENT, perl ? PERL : null));
  const env = { TMUX: `${socket},${process.pid},0`, TMUX_PANE: '%0', TEAMUX_TEAM_DIR: team.dir };
  return { team, control, shim, env, socket };
}

describe.each([['perl', true], ['node', false]] as const)('tmux stand-in over the socket (%s client)', (_name, perl) => {
  it.skipIf(perl && !PERL)('tmux-bridge.answers-splits-respawns-a-teammate-and-refuses-unknown-commands', async () => {
    const { team, control, shim, env, socket } = await setup(perl);
    expect(readFileSync(shim, 'utf8').split('\n')[0]).toBe(perl ? `#!${PERL}` : '#!/bin/sh');
    expect(await run(shim, ['show', '-gv', 'focus-events'], env)).toMatchObject({ code: 0, out: 'off\n', err: '' });
    expect(await run(shim, ['-S', socket, 'display-message', '-t', '%0', '-p', '#{window_id} #{pane_id} ünï'], env)).toMatchObject({ code: 0, out: '@0 %0 ünï\n' });
    const split = await run(shim, ['-S', socket, 'split-window', '-d', '-t', '%0', '-h', '-l', '70%', '-P', '-F', '#{pane_id}', '--', 'cat'], env);
    expect(split).toMatchObject({ code: 0, out: '%1\n', err: '' });
    expect(control.panes.map((p) => [p.name, p.launch.args])).toEqual([['lead', []], ['%1', ['-c', 'cat']]]);
    expect(control.panes[1]!.launch.env).toMatchObject({ HOME: '/home/x', ANTHROPIC_API_KEY: 'k', TMUX_PANE: '%1' });
    expect(control.panes[1]!.launch.env.TEAMUX_MEMBER).toBeUndefined();
    expect(await run(shim, ['-S', socket, 'list-panes', '-t', '@0', '-F', '#{pane_id} #{pane_left} #{pane_width}'], env)).toMatchObject({ out: '%0 0 39\n%1 40 39\n' });

    // respawn-pane with Claude Code's teammate command: a member named amy, its own MCP config, the lead's HOME.
    const lead = team.store.paths.claudeMember('lead');
    const command = `cd /w && env CLAUDECODE=1 /bin/claude --agent-id amy@session-12345678 --agent-name amy --team-name session-12345678 --settings ${lead}/settings.json --mcp-config ${lead}/mcp.json --model m`;
    expect(await run(shim, ['-S', socket, 'respawn-pane', '-k', '-t', '%1', '--', command], env)).toMatchObject({ code: 0, err: '' });
    const amy = control.panes[1]!;
    expect(amy.name).toBe('amy');
    expect(amy.launch.args[1]).toBe(command.replace(`${lead}/mcp.json`, team.store.paths.claudeMember('amy') + '/mcp.json'));
    expect(amy.launch.env).toMatchObject({ HOME: '/home/x', TEAMUX_MEMBER: 'amy', TMUX_PANE: '%1', TEAMUX_PLAN_REQUIRED: '1', TEAMUX_PLAN_APPROVER: 'human' });
    expect(amy.launch.env.TEAMUX_ENROL_TOKEN).toBeUndefined();
    const mcp = JSON.parse(readFileSync(path.join(team.store.paths.claudeMember('amy'), 'mcp.json'), 'utf8')) as { mcpServers: { teamux: { args: string[] } } };
    expect(mcp.mcpServers.teamux.args).toEqual(['mcp', '--as', 'amy']);
    expect((await team.store.config()).members.find((m) => m.name === 'amy')).toMatchObject({ kind: 'teammate', runtime: 'claude', claudeTeam: 'session-12345678', planRequired: true, speaksProtocol: false });

    // An unknown command: a tmux-style error and exit 1, a line in teamux.log, a word on the status line.
    const unknown = await run(shim, ['-S', socket, 'new-window', '-d'], env);
    expect(unknown).toMatchObject({ code: 1, out: '', err: 'unknown command: new-window\n' });
    expect(readFileSync(team.store.paths.log, 'utf8')).toContain('tmux stand-in: unknown command: new-window in ["-S"');
    expect(control.said.at(-1)).toContain('unknown command: new-window');

    // kill-pane closes the teammate's pane and marks it exited.
    expect(await run(shim, ['-S', socket, 'kill-pane', '-t', '%1'], env)).toMatchObject({ code: 0 });
    expect(control.panes.map((p) => p.name)).toEqual(['lead']);
    expect((await team.store.config()).members.find((m) => m.name === 'amy')?.status).toBe('exited');
  }, 60_000);

  it.skipIf(perl && !PERL)('tmux-bridge.outside-a-running-teamux-is-a-clear-error', async () => {
    const { team, shim, socket, env } = await setup(perl);
    const none = await run(shim, ['list-panes'], { TEAMUX_TEAM_DIR: team.dir });
    expect(none.code).toBe(1);
    expect(none.err).toContain('no server running (TMUX is not set)');
    expect(none.err).toContain("teamux's stand-in for Claude Code's agent teams");
    // A socket nobody listens on (teamux quit): tmux's words, a hint, and a line in teamux.log.
    const gone = `${socket}.gone`;
    const r = await run(shim, ['-S', gone, 'list-panes'], { ...env, TMUX: `${gone},1,0` });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`no server running on ${gone}`);
    expect(r.err).toContain('start the team again');
    expect(readFileSync(team.store.paths.log, 'utf8')).toContain(`no server running on ${gone}`);
  }, 60_000);
});

