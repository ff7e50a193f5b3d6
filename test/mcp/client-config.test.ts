// `mcp: true` on a command member: the layout accepts it only for command members (an agent member
// gets a file:line:col error with a hint), `teamux init` writes a ready MCP client config into the
// team folder (0600, absolute path of this teamux's bin), the pane's environment names it in
// TEAMUX_MCP_CONFIG, and an MCP client started from that file alone talks to the team as the member.
import { statSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { launchOf } from '../../src/cli/screen-setup.js';
import { loadLayout, formatErrors } from '../../src/config/load.js';
import { BIN, cli, tempDir } from '../helpers/team.js';
import { childEnv } from './helpers.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const LAYOUT = [
  'name: mcpteam',
  'lead: { name: lead, role: Coordinates, command: [bash] }',
  'teammates:',
  '  - { name: codex, role: Backend, command: [bash], mcp: true, tools: [task_list, task_claim, send_message] }',
  '  - { name: plain, role: Shell, command: [bash] }',
].join('\n');

describe('mcp: true', () => {
  it('mcp.layout-accepts-it-on-command-members-only', () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = path.join(tmp.dir, 'team.yaml');
    writeFileSync(file, 'name: bad\nlead: { name: lead, role: r, command: sh }\nteammates:\n  - name: ann\n    role: r\n    agent: true\n    mcp: true\n');
    const r = loadLayout(file);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(formatErrors(r.errors).split(file).join('team.yaml')).toBe(
      'team.yaml:7:10 teammates[0].mcp: mcp: true is for command members\n  hint: an agent member has the team tools built in; remove mcp, or run an MCP-capable CLI with command:',
    );
  });

  it('mcp.init-writes-a-ready-config-and-the-pane-env-points-at-it', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = path.join(tmp.dir, 'team.yaml');
    writeFileSync(file, LAYOUT);
    const init = await cli(['init', file], { PATH: process.env.PATH ?? '/usr/bin:/bin' });
    expect(init.code, init.err).toBe(0);
    const teamDir = init.out.trim();
    const configFile = path.join(teamDir, 'mcp', 'codex.json');
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as { mcpServers: Record<string, { type: string; command: string; args: string[]; env: Record<string, string> }> };
    expect(config).toEqual({ mcpServers: { teamux: { type: 'stdio', command: BIN, args: ['mcp', '--as', 'codex'], env: { TEAMUX_TEAM_DIR: teamDir, TEAMUX_MEMBER: 'codex' } } } });
    expect(() => statSync(path.join(teamDir, 'mcp', 'plain.json'))).toThrow();

    const r = loadLayout(file);
    if (!r.ok) throw new Error('layout');
    const [codex, plain] = r.layout.teammates;
    expect(launchOf(codex!, r.layout, teamDir, {}).env.TEAMUX_MCP_CONFIG).toBe(configFile);
    expect(launchOf(plain!, r.layout, teamDir, {}).env.TEAMUX_MCP_CONFIG).toBeUndefined();

    // A client that knows nothing but the file: start the server it names, as it names it.
    const server = config.mcpServers.teamux!;
    const transport = new StdioClientTransport({ command: server.command, args: server.args, env: { ...childEnv(), ...server.env }, cwd: tmp.dir, stderr: 'pipe' });
    const client = new Client({ name: 'codex-like', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    // The member's allowlist from the layout applies to its MCP tools.
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['task_list', 'task_claim', 'send_message']);
    const sent = await client.callTool({ name: 'send_message', arguments: { to: 'lead', text: 'hello from codex' } });
    expect(sent.isError).toBe(false);
    const inbox = await cli(['inbox', 'read', '--as', 'lead', '--team-dir', teamDir]);
    expect(inbox.out).toMatch(/codex → lead message: hello from codex/);
  });
});
