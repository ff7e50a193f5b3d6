/**
 * `native_teams` in a layout and what a native lead is launched with: the switch normalizes (true, or
 * with plan_required), a teammate with it is refused with a hint, and the generated settings turn on
 * Claude Code's agent teams in tmux mode with hooks that name the member from the pane's
 * $TEAMUX_MEMBER (teammates share the lead's settings file); the lead's environment leads `tmux` to
 * the stand-in and never to the user's tmux server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { formatErrors, loadLayout } from '../../../src/config/load.js';
import { claudeEnv, claudeSettings, hookCommand, nativeTeamsEnv } from '../../../src/agents/claude/launch.js';
import { lines, tempDir, writeLayout } from '../../config/layout-files.js';

function fakeClaudeDir(): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'claude'), '#!/bin/sh\n[ "$1" = --version ] && echo "2.1.328 (Claude Code)"\nexit 0\n', { mode: 0o755 });
  return dir;
}

describe('native_teams in the layout', () => {
  test('native-config.normalizes-true-and-plan-required', () => {
    const on = loadLayout(writeLayout(lines('name: cc', 'lead: { name: lead, role: L, agent: { cli: claude, native_teams: true } }')), { env: { PATH: fakeClaudeDir() } });
    if (!on.ok) throw new Error(formatErrors(on.errors));
    expect(on.layout.lead.claude?.nativeTeams).toEqual({ planRequired: false });
    const gated = loadLayout(writeLayout(lines('name: cc', 'lead: { name: lead, role: L, agent: { cli: claude, native_teams: { plan_required: true } } }')), { env: { PATH: fakeClaudeDir() } });
    if (!gated.ok) throw new Error(formatErrors(gated.errors));
    expect(gated.layout.lead.claude?.nativeTeams).toEqual({ planRequired: true });
    const off = loadLayout(writeLayout(lines('name: cc', 'lead: { name: lead, role: L, agent: { cli: claude } }')), { env: { PATH: fakeClaudeDir() } });
    if (!off.ok) throw new Error(formatErrors(off.errors));
    expect(off.layout.lead.claude?.nativeTeams).toBeUndefined();
  });

  test('native-config.teammate-with-native-teams-is-refused-with-a-hint', () => {
    const file = writeLayout(lines('name: cc', 'lead: { name: lead, role: L, command: [bash] }', 'teammates:', '  - { name: amy, role: A, agent: { cli: claude, native_teams: true } }'));
    const r = loadLayout(file, { env: { PATH: fakeClaudeDir() } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const text = formatErrors(r.errors).split(file).join('team.yaml');
    expect(text).toMatch(/^team\.yaml:4:\d+ teammates\[0\]\.agent\.native_teams: native_teams is for the lead/);
    expect(text).toContain('move native_teams to the lead');
  });

  test('native-config.bad-value-names-the-key', () => {
    const file = writeLayout(lines('name: cc', 'lead: { name: lead, role: L, agent: { cli: claude, native_teams: yes please } }'));
    const r = loadLayout(file, { env: { PATH: fakeClaudeDir() } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(formatErrors(r.errors).split(file).join('team.yaml')).toMatch(/lead\.agent\.native_teams: expected true, false or \{ plan_required: true\|false \}, got "yes please"/);
  });
});

describe('a native lead is launched', () => {
  const ctx = { member: 'lead', teamDir: '/t/.teamux/x', teamuxBin: '/r/bin/teamux', node: '/usr/bin/node', permissionTimeout: 90, nativeTeams: true };

  test('native-config.settings-turn-on-agent-teams-in-tmux-mode-and-hooks-follow-the-pane', () => {
    const s = claudeSettings(ctx) as { env: Record<string, string>; teammateMode: string; hooks: Record<string, Array<{ hooks: Array<{ command: string; timeout: number }> }>> };
    expect(s.env).toEqual({ CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' });
    expect(s.teammateMode).toBe('tmux');
    // The member comes from $TEAMUX_MEMBER, expanded by sh -c in each Claude Code process.
    const pre = s.hooks.PreToolUse![0]!.hooks[0]!;
    expect(pre.command).toBe(`/usr/bin/node /r/bin/teamux hook PreToolUse --as "$TEAMUX_MEMBER" --team-dir /t/.teamux/x --permission-timeout 90`);
    expect(pre.timeout).toBe(120);
    const shell = (member: string): string => execFileSync('/bin/sh', ['-c', `printf '%s\\n' ${hookCommand(ctx, 'Stop')}`], { env: { TEAMUX_MEMBER: member }, encoding: 'utf8' });
    expect(shell('amy').split('\n').slice(4, 6)).toEqual(['--as', 'amy']);
    // Without native_teams, nothing of this.
    expect(claudeSettings({ ...ctx, nativeTeams: false })).not.toHaveProperty('teammateMode');
    expect(hookCommand({ ...ctx, nativeTeams: false }, 'Stop')).toContain('--as lead');
  });

  test('native-config.env-leads-tmux-to-the-stand-in-never-to-the-users-server', () => {
    const base = claudeEnv({ PATH: '/usr/bin', TMUX: '/tmp/tmux-1000/default,1,0', TMUX_PANE: '%3' }, 'lead', '/t/.teamux/x', undefined);
    const env = nativeTeamsEnv(base, { socket: '/t/.teamux/x/tmux.sock', bin: '/t/.teamux/x/claude/bin', serverPid: 42 });
    expect(env).toMatchObject({ PATH: '/t/.teamux/x/claude/bin:/usr/bin', TMUX: '/t/.teamux/x/tmux.sock,42,0', TMUX_PANE: '%0', CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1', TEAMUX_MEMBER: 'lead' });
  });
});

test('native-config.example-layout-and-its-demo-scripts-are-valid', async () => {
  const repo = path.resolve(__dirname, '../../..');
  const r = loadLayout(path.join(repo, 'examples/claude-native/team.yaml'), { env: { PATH: fakeClaudeDir() } });
  if (!r.ok) throw new Error(formatErrors(r.errors));
  expect(r.warnings).toEqual([]);
  expect(r.layout.lead.claude?.nativeTeams).toEqual({ planRequired: false });
  const { loadScriptDir } = await import('../../../src/demo/script.js');
  const scripts = await loadScriptDir(path.join(repo, 'examples/claude-native/scripts'));
  expect(scripts.ok && [...scripts.value.keys()].sort()).toEqual(['amy', 'lead']);
});
