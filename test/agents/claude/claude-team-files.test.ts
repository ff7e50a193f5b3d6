// Claude Code's own team files as teamux reads them (never writes them): the config recorded from
// Claude Code 2.1.328, inbox entries (an idle notification as JSON text, a signed lead message), a
// task file, and hand-broken files that become problem lines; then the sidebar block drawn from them
// (a lead_sig read from the files alone is unchecked: test/claude/lead-sig.test.ts verifies).
import { mkdirSync, writeFileSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findClaudeTeam, readClaudeTeam } from '../../../src/store/claude-team-files.js';
import { claudeTeamRows } from '../../../src/ui/claude-team-rows.js';
import { rowText } from '../../../src/ui/text.js';
import { tempDir } from '../../helpers/team.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

// config.json as Claude Code 2.1.328 wrote it (pids and times from the recording).
const CONFIG = {
  name: 'session-d97ebe46', createdAt: 1796137209685, leadAgentId: 'team-lead@session-d97ebe46', leadSessionId: 'd97ebe46-ed21-4f79-bae8-c9ee7cc49b58',
  leadProcess: { pid: 25991, pidSpace: 'vm#pid:[4026531836]', claimedAt: 1796137209683, procStart: '1036651' },
  members: [
    { agentId: 'team-lead@session-d97ebe46', name: 'team-lead', agentType: 'team-lead', joinedAt: 1796137209685, tmuxPaneId: 'leader', cwd: '/w', subscriptions: [], backendType: 'in-process' },
    { agentId: 'amy@session-d97ebe46', name: 'amy', color: 'blue', joinedAt: 1796137218636, tmuxPaneId: '%1', subscriptions: [], agentType: 'general-purpose', model: 'claude-opus-5-5', prompt: 'Say hello', planModeRequired: false, cwd: '/w', backendType: 'tmux', isActive: false },
  ],
};

function home(): { home: string; team: string } {
  const tmp = tempDir('teamux-claude-home-');
  cleanups.push(tmp.cleanup);
  const team = path.join(tmp.dir, '.claude', 'teams', 'session-d97ebe46');
  mkdirSync(path.join(team, 'inboxes'), { recursive: true });
  mkdirSync(path.join(tmp.dir, '.claude', 'tasks', 'session-d97ebe46'), { recursive: true });
  writeFileSync(path.join(team, 'config.json'), JSON.stringify(CONFIG));
  return { home: tmp.dir, team };
}

describe("Claude Code's team files", () => {
  it('claude-team-files.reads-members-inboxes-and-tasks-and-draws-them', async () => {
    const h = home();
    const idle = JSON.stringify({ type: 'idle_notification', from: 'amy', timestamp: '2026-12-01T15:00:22.036Z', idleReason: 'available', result: 'hello from amy' });
    writeFileSync(path.join(h.team, 'inboxes', 'team-lead.json'), JSON.stringify([{ from: 'amy', text: idle, timestamp: '2026-12-01T15:00:22.036Z', msg_id: 'm2', read: false }]));
    writeFileSync(path.join(h.team, 'inboxes', 'amy.json'), JSON.stringify([{ from: 'team-lead', text: 'Say hello\nand run it', timestamp: '2026-12-01T15:00:10.000Z', msg_id: 'm1', type: 'message', read: false, lead_sig: 'c2ln' }]));
    writeFileSync(path.join(h.home, '.claude', 'tasks', 'session-d97ebe46', '1.json'), JSON.stringify({ id: '1', subject: 'Greet', status: 'in_progress', owner: 'amy' }));
    const before = statSync(path.join(h.team, 'config.json')).mtimeMs;

    expect(await findClaudeTeam(h.home, CONFIG.leadSessionId)).toBe('session-d97ebe46');
    expect(await findClaudeTeam(h.home, 'ffffffff-0000')).toBeNull();
    const t = (await readClaudeTeam(h.home, 'session-d97ebe46'))!;
    expect(t.members).toEqual([
      { name: 'team-lead', agentType: 'team-lead', backendType: 'in-process', paneId: 'leader', active: null, planModeRequired: false },
      { name: 'amy', agentType: 'general-purpose', backendType: 'tmux', paneId: '%1', active: false, planModeRequired: false },
    ]);
    expect(t.inbox.map((m) => [m.to, m.from, m.kind, m.sig, m.id])).toEqual([['amy', 'team-lead', 'message', 'unverified', 'm1'], ['team-lead', 'amy', 'idle_notification', 'none', 'm2']]);
    expect(t.tasks).toEqual([{ id: '1', subject: 'Greet', status: 'in_progress', owner: 'amy' }]);
    expect(t.problems).toEqual([]);
    // Read only: config.json is as it was.
    expect(statSync(path.join(h.team, 'config.json')).mtimeMs).toBe(before);
    expect(JSON.parse(readFileSync(path.join(h.team, 'config.json'), 'utf8'))).toEqual(CONFIG);

    const rows = claudeTeamRows({ name: t.name, members: t.members, tasks: t.tasks, traffic: [...t.inbox].sort((a, b) => a.timestamp.localeCompare(b.timestamp)), problems: [] }, 60, 10).map(rowText);
    const hhmm = (iso: string): string => { const d = new Date(iso); return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`; };
    expect(rows.map((r) => r.trimEnd())).toEqual([
      ' CLAUDE TEAM session-d97ebe46 · 1 task',
      '◆ team-lead lead',
      '◆ amy       idle %1',
      `${hhmm('2026-12-01T15:00:10.000Z')} team-lead→amy (sig unchecked) Say hello and run it`,
      `${hhmm('2026-12-01T15:00:22.036Z')} amy→team-lead idle available: hello from amy`,
    ]);
  });

  it('claude-team-files.broken-files-are-problem-lines-not-exceptions', async () => {
    const h = home();
    writeFileSync(path.join(h.team, 'inboxes', 'amy.json'), '[{"from": "team-lead", "te');
    writeFileSync(path.join(h.team, 'inboxes', 'bob.json'), '{"not": "a list"}');
    writeFileSync(path.join(h.home, '.claude', 'tasks', 'session-d97ebe46', '2.json'), 'garbage');
    const t = (await readClaudeTeam(h.home, 'session-d97ebe46'))!;
    expect(t.members).toHaveLength(2);
    expect(t.inbox).toEqual([]);
    expect(t.problems.map((p) => p.replace(h.home, '~'))).toEqual([
      '~/.claude/teams/session-d97ebe46/inboxes/amy.json: not valid JSON (being written?)',
      '~/.claude/teams/session-d97ebe46/inboxes/bob.json: not a list of messages',
      '~/.claude/tasks/session-d97ebe46/2.json: not valid JSON (being written?)',
    ]);
    writeFileSync(path.join(h.team, 'config.json'), '{"members": "nope"}');
    expect((await readClaudeTeam(h.home, 'session-d97ebe46'))!.problems[0]).toContain('config.json');
    expect(await readClaudeTeam(h.home, 'session-none')).toBeNull();
    const rows = claudeTeamRows({ name: 'x', members: [], tasks: [], traffic: [], problems: ['bad file'] }, 30, 5).map(rowText);
    expect(rows[1]).toBe('! bad file'.padEnd(rows[1]!.length));
  });
});
