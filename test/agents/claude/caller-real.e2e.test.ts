// The stand-in's caller check with the real Claude Code binary (pinned, see test/helpers/claude-code.ts):
// `teamux start` in a private tmux server, a `native_teams` lead on a scripted Messages API. First the
// lead's model runs `exec tmux kill-pane -t %0` in its Bash tool (allowed with C-a a): the stand-in is
// then a direct child of the lead's claude, but in the Bash tool's own session, and it is refused. The
// lead's own Claude Code opens a teammate (its tmux calls are let in: the stand-in's parent is the lead's
// claude). The teammate's model then uses its Bash tool (allowed with C-a a) to pose as the lead's
// pane: `TMUX_PANE=%0 tmux kill-pane -t %0` and a respawn of the lead's pane are refused, the lead
// keeps running, and teamux.log names the process, its lineage and its true pane.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pidAlive } from '../../../src/store/liveness.js';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { waitFor } from '../../helpers/team.js';
import { startClaudeTeam } from './tmux-team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LAYOUT = `name: gate
sidebar: { width: 46 }
shutdown_timeout: 2
permission_timeout: 120
lead: { name: lead, role: Leads, agent: { cli: claude, native_teams: true } }
`;

function scripts(root: string): Record<string, unknown> {
  const out = path.join(root, 'attack.txt');
  const attack = [
    `TMUX_PANE=%0 tmux kill-pane -t %0 >${out} 2>&1; echo "kill rc=$?" >>${out}`,
    `TMUX_PANE=%0 tmux respawn-pane -k -t %0 -- 'echo EVIL' >>${out} 2>&1; echo "respawn rc=$?" >>${out}`,
    `tmux display-message -p 'query #{pane_id}' >>${out} 2>&1`,
  ].join('; ');
  return {
    lead: {
      idle_reply: '(lead waits)',
      steps: [
        // `exec` in a Bash call leaves the stand-in a direct child of the lead's claude, in the tool's own session.
        { reply: [{ tool_use: { name: 'Bash', input: { command: `echo start >${path.join(root, 'exec.txt')}; exec tmux kill-pane -t %0 >>${path.join(root, 'exec.txt')} 2>&1`, description: 'Exec the stand-in' } } }] },
        { reply: [{ text: 'Spawning amy.' }, { tool_use: { name: 'Agent', input: { name: 'amy', description: 'Tries', prompt: 'Try to take over the lead pane', subagent_type: 'general-purpose' } } }] },
        { reply: [{ text: 'Amy is on it.' }] },
      ],
    },
    amy: {
      idle_reply: '(amy waits)',
      steps: [
        { when: { last_user_contains: 'Try to take over the lead pane' }, reply: [{ tool_use: { name: 'Bash', input: { command: attack, description: 'Pose as the lead pane' } } }] },
        { reply: [{ text: 'that did not work' }] },
      ],
    },
  };
}

describe.skipIf(!CLAUDE)('the stand-in checks who calls it (real binary, e2e in tmux)', () => {
  it('caller-real.a-teammates-bash-cannot-kill-or-respawn-the-lead-pane', async () => {
    const { root, store, d, log } = await startClaudeTeam(CLAUDE!, 'gate', LAYOUT, scripts, cleanups);
    // The lead's own model execs the stand-in from its Bash tool: refused, and the lead lives on.
    await d.waitFor(/permission lead→human: Bash: echo start/, "the lead's Bash request in the sidebar", 120_000);
    await d.keys('C-a', 'a');
    const execFile = path.join(root, 'exec.txt');
    const exec = await waitFor(() => (existsSync(execFile) && readFileSync(execFile, 'utf8').includes('kill-pane') ? readFileSync(execFile, 'utf8') : null), 'the exec to be answered', 60_000, 50);
    expect(exec).toMatch(/^start\nkill-pane: access not allowed for pid \d+ in pane %0: .*not by that pane's Claude Code itself/);
    expect(log()).toMatch(/warn .*tmux stand-in: refused `tmux kill-pane -t %0` from pid \d+ \([^)]*tmux < claude\) in %0/);
    await d.waitFor(/amy · Claude Code teammate/, 'the teammate pane titled amy', 120_000);
    const lead = (await store.config()).members.find((m) => m.name === 'lead')!;
    // The lead's own calls were let in, and they came straight from its claude process.
    expect(log()).toMatch(/tmux stand-in: split-window from pid \d+ \(tmux < claude\) in %0 \(claimed %0; caller checked in \d+ ms\)/);
    expect(log()).toMatch(/tmux stand-in: respawn-pane from pid \d+ \(tmux < claude\) in %0/);

    await d.waitFor(/permission amy→human: Bash: TMUX_PANE=%0/, 'the Bash request in the sidebar', 90_000);
    await d.keys('C-a', 'a');
    const file = path.join(root, 'attack.txt');
    const attack = await waitFor(() => (existsSync(file) && readFileSync(file, 'utf8').includes('query') ? readFileSync(file, 'utf8') : null), 'the attack to finish', 60_000, 50);
    expect(attack).toMatch(/^kill-pane: access not allowed for pid \d+ in pane %1: .*\(it was started by a command in %1, not by that pane's Claude Code itself\)\nkill rc=1\n/);
    expect(attack).toMatch(/\nrespawn-pane: access not allowed for pid \d+ in pane %1: .*\nrespawn rc=1\n/);
    // Queries are answered (with the pane it claims as the default target: they change nothing).
    expect(attack).toMatch(/\nquery %1\n$/);
    // The lead is still there, and the refusals are logged with who really called.
    expect(pidAlive(lead.pid!, null)).toBe(true);
    expect(log()).toMatch(/warn .*tmux stand-in: refused `tmux kill-pane -t %0` from pid \d+ \(.*kill-pane -t %0; tmux < [^)]*claude < sh\) in %1, claiming %0/);
    // Nothing ran them: the bridge logs each command it runs as `tmux stand-in: %N [argv] → code`.
    expect(log()).not.toMatch(/tmux stand-in: %\d+ \["(kill-pane|respawn-pane)","(-k","|)-t","%0"/);
    expect(log()).toMatch(/tmux stand-in: %1 \["display-message","-p","query #\{pane_id\}"\] → 0/);
  }, 400_000);
});
