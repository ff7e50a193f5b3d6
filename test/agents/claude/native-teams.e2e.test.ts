// End-to-end with the real Claude Code binary (pinned, see test/helpers/claude-code.ts) and its own
// agent teams: `teamux start` in a private tmux server, a `native_teams: true` Claude Code lead on a
// scripted Messages API that this test owns. The lead calls Agent with a name; Claude Code drives
// teamux's tmux stand-in, a teamux pane opens running the real teammate, the teammate gets the lead's
// message, asks for Bash (allowed with C-a a: the command runs), answers, and the lead receives its
// idle notification; the sidebar lists Claude Code's team and its traffic; quitting leaves no process.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pidAlive } from '../../../src/store/liveness.js';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { waitFor } from '../../helpers/team.js';
import { bodyText, startClaudeTeam } from './tmux-team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LAYOUT = `name: nat
sidebar: { width: 46 }
shutdown_timeout: 2
permission_timeout: 120
lead: { name: lead, role: Leads, agent: { cli: claude, native_teams: true } }
`;

function scripts(root: string): Record<string, unknown> {
  return {
    lead: {
      idle_reply: '(lead waits)',
      steps: [
        { reply: [{ text: 'Spawning amy.' }, { tool_use: { name: 'Agent', input: { name: 'amy', description: 'Greets', prompt: 'Say hello and run the command', subagent_type: 'general-purpose' } } }] },
        { reply: [{ text: 'Amy is on it.' }] },
        { when: { last_user_contains: 'idle_notification' }, reply: [{ text: 'Amy reported back.' }] },
      ],
    },
    amy: {
      idle_reply: '(amy waits)',
      steps: [
        { when: { last_user_contains: 'Say hello and run the command' }, reply: [{ tool_use: { name: 'Bash', input: { command: `touch ${path.join(root, 'ran.txt')}`, description: 'Create ran.txt' } } }] },
        { reply: [{ text: 'hello from amy, done' }] },
      ],
    },
  };
}

/** A process and its descendants, from /proc. */
function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const t of readdirSync(`/proc/${out[i]}/task`)) {
        const kids = readFileSync(`/proc/${out[i]}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
        out.push(...kids);
      }
    } catch {
      // gone
    }
  }
  return out;
}

describe.skipIf(!CLAUDE)('Claude Code agent teams in teamux panes (real binary, e2e in tmux)', () => {
  it('native-teams.e2e-agent-opens-a-pane-permission-by-key-idle-notification-sidebar-and-clean-quit', async () => {
    const { root, teamDir, store, server, d, userBefore, userNow } = await startClaudeTeam(CLAUDE!, 'nat', LAYOUT, scripts, cleanups);

    // The lead's Agent call opens a teamux pane running the real teammate, named after it.
    await d.waitFor(/amy · Claude Code teammate/, 'the teammate pane titled amy', 120_000);
    const amy = await waitFor(async () => (await store.config()).members.find((m) => m.name === 'amy' && m.pid !== null), 'amy registered with a pid', 60_000);
    expect(amy).toMatchObject({ kind: 'teammate', runtime: 'claude', claudeTeam: expect.stringMatching(/^session-[0-9a-f]{8}$/) });
    // The pane runs Claude Code's command line through sh -c, as tmux does; the teammate is below it.
    const cmdlines = tree(amy!.pid!).map((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      } catch {
        return [];
      }
    });
    const teammate = cmdlines.find((c) => c.includes('--agent-name'));
    expect(teammate).toEqual(expect.arrayContaining(['--agent-name', 'amy', '--team-name', amy!.claudeTeam!]));
    // Its MCP server speaks as amy, not as the lead whose flags Claude Code passed on.
    expect(teammate![teammate!.indexOf('--mcp-config') + 1]).toBe(path.join(teamDir, 'claude', 'amy', 'mcp.json'));
    // The lead's message reaches the teammate's model (on its own demo route).
    await server.waitForRequest((r) => r.member === 'amy' && bodyText(r).includes('Say hello and run the command'), 60_000);

    // Its Bash call asks teamux: the request is in the sidebar, C-a a allows it, the command runs.
    await d.waitFor(/permission amy→human: Bash: touch/, 'the permission request in the sidebar', 90_000);
    expect(existsSync(path.join(root, 'ran.txt'))).toBe(false);
    await d.keys('C-a', 'a');
    await waitFor(() => existsSync(path.join(root, 'ran.txt')), 'ran.txt (the allowed command ran)', 60_000, 50);

    // The teammate answers; the lead's model receives its idle notification with that answer.
    await server.waitForRequest((r) => r.member === 'lead' && bodyText(r).includes('idle_notification') && bodyText(r).includes('hello from amy, done'), 90_000);

    // The sidebar lists Claude Code's team (both members) and its traffic, the idle notification included;
    // ✓: the real binary's lead_sig verified with the --lead-verify-key of amy's respawn command.
    const screen = await d.waitFor((s) => /◆ team-lead/.test(s) && /◆ amy/.test(s) && /team-lead→amy✓ Say hello/.test(s) && /amy→team-lead idle available: hello/.test(s), 'the Claude team block with traffic', 60_000);
    expect(screen).toMatch(/CLAUDE TEAM session-[0-9a-f]{8}/);
    expect(screen).not.toMatch(/FORGED|sig unchecked/);

    // Quitting the team leaves no process: the lead, the teammate and everything below them end.
    const lead = (await store.config()).members.find((m) => m.name === 'lead')!;
    const pids = [...tree(lead.pid!), ...tree(amy!.pid!)];
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to quit', 60_000);
    await waitFor(() => pids.every((p) => !pidAlive(p, null)), 'every lead and teammate process gone', 30_000, 100);
    expect(existsSync(path.join(teamDir, 'tmux.sock'))).toBe(false);
    // The user's own Claude Code settings are untouched (the lead ran with the demo HOME).
    expect(userNow()).toEqual(userBefore);
  }, 400_000);
});
