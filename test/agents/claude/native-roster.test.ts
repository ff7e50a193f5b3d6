/**
 * Claude Code teammates in team.json across a refresh: the tmux stand-in registers them at run time
 * (they are in no layout), and `teamux start` / `teamux init` refresh team.json from the layout each
 * time. A restart over a team with native teammates keeps them, with their live state; a layout that
 * now declares a member of the same name takes the name over, and teamux.log says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { TmuxBridge } from '../../../src/agents/claude/tmux-bridge.js';
import type { MemberLaunch } from '../../../src/app/multiplexer.js';
import { TeamStore } from '../../../src/store/team.js';
import { lines, tempDir, writeLayout } from '../../config/layout-files.js';
import { cli } from '../../helpers/team.js';
import { MemoryPanes } from './memory-panes.js';

const disposers: Array<() => void> = [];
afterEach(() => {
  for (const d of disposers.splice(0)) d();
});

function fakeClaudePath(): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'claude'), '#!/bin/sh\n[ "$1" = --version ] && echo "2.1.328 (Claude Code)"\nexit 0\n', { mode: 0o755 });
  return `${dir}:/usr/bin:/bin`;
}

async function init(file: string, PATH: string): Promise<string> {
  const r = await cli(['init', file], { PATH }, path.dirname(file));
  expect(r, r.err).toMatchObject({ code: 0 });
  return r.out.trim();
}

/** Open the team and let the stand-in start Claude Code teammate `name` in a pane it split. */
async function spawnNativeTeammate(dir: string, name: string): Promise<TeamStore> {
  const opened = await TeamStore.open(dir);
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.store;
  const lead: MemberLaunch = { name: 'lead', role: 'lead', isLead: true, speaksProtocol: true, command: 'claude', args: [], cwd: path.dirname(path.dirname(dir)), env: { HOME: '/home/x', TEAMUX_MEMBER: 'lead' } };
  const control = new MemoryPanes();
  await control.open(lead);
  const bridge = new TmuxBridge({ socket: path.join(dir, 'roster-test.sock'), store, control, lead, planRequired: false, session: 'cc' });
  disposers.push(() => bridge.dispose());
  expect(await bridge.handle(['split-window', '-d', '-t', '%0', '-h', '-l', '70%', '-P', '-F', '#{pane_id}', '--', 'cat'], '%0')).toMatchObject({ code: 0, out: '%1\n' });
  const command = `cd /w && env CLAUDECODE=1 /bin/claude --agent-id ${name}@session-12345678 --agent-name ${name} --team-name session-12345678 --model m`;
  expect(await bridge.handle(['respawn-pane', '-k', '-t', '%1', '--', command], '%0')).toMatchObject({ code: 0, err: '' });
  return store;
}

describe('Claude Code teammates in team.json', () => {
  test('native-roster.a-refresh-keeps-native-teammates-with-their-state', async () => {
    const PATH = fakeClaudePath();
    const file = writeLayout(lines('name: cc', 'lead: { name: lead, role: L, agent: { cli: claude, native_teams: true } }', 'teammates:', '  - { name: bob, role: B, command: [bash] }'));
    const dir = await init(file, PATH);
    const store = await spawnNativeTeammate(dir, 'amy');
    expect((await store.updateMember('amy', { status: 'idle', pid: 4242, joinedAt: '2026-12-01T00:00:00.000Z' })).ok).toBe(true);

    // What `teamux start` does first, again: the layout knows lead and bob only.
    await init(file, PATH);
    const after = (await store.config()).members;
    expect(after.map((m) => m.name)).toEqual(['lead', 'bob', 'amy']);
    expect(after.find((m) => m.name === 'amy')).toMatchObject({ kind: 'teammate', runtime: 'claude', claudeTeam: 'session-12345678', status: 'idle', pid: 4242, joinedAt: '2026-12-01T00:00:00.000Z' });

    // And once more: still one amy, not two.
    await init(file, PATH);
    expect((await store.config()).members.filter((m) => m.name === 'amy')).toHaveLength(1);
  });

  test('native-roster.a-layout-member-of-the-same-name-takes-the-name-over', async () => {
    const PATH = fakeClaudePath();
    const file = writeLayout(lines('name: cc', 'lead: { name: lead, role: L, agent: { cli: claude, native_teams: true } }'));
    const dir = await init(file, PATH);
    const store = await spawnNativeTeammate(dir, 'amy');
    fs.writeFileSync(file, lines('name: cc', 'lead: { name: lead, role: L, agent: { cli: claude, native_teams: true } }', 'teammates:', '  - { name: amy, role: Declared, command: [bash] }'));
    await init(file, PATH);
    const amy = (await store.config()).members.filter((m) => m.name === 'amy');
    expect(amy).toHaveLength(1);
    expect(amy[0]).toMatchObject({ role: 'Declared', runtime: 'command' });
    expect(amy[0]!.claudeTeam).toBeUndefined();
    expect(fs.readFileSync(store.paths.log, 'utf8')).toContain('Claude Code teammate amy (session-12345678) is replaced by the layout\'s member of the same name');
  });
});
