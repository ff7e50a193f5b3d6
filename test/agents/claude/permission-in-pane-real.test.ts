// A permission answered in Claude Code's own dialog, with the real binary in a teamux screen (private
// tmux, scripted Messages API): key `1` in bob's pane runs the tool, and within a second the request
// the sidebar showed is withdrawn ("answered in Claude Code's own dialog"), the roster no longer says
// `waiting for permission`, and the hook that waited on it has exited. The next permission request is
// then the one C-a a answers (before, the stale request queued first and took that key press).
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { waitFor } from '../../helpers/team.js';
import { startClaudeTeam } from './tmux-team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LAYOUT = `name: ccp
sidebar: { width: 48 }
permission_timeout: 120
lead: { name: lead, role: Leads, command: [bash, --noprofile, --norc] }
teammates:
  - { name: bob, role: Runs commands, agent: { cli: claude } }
`;

const touch = (root: string, name: string, description: string) => ({ tool_use: { name: 'Bash', input: { command: `touch ${path.join(root, name)}`, description } } });
const scripts = (root: string) => ({
  bob: {
    idle_reply: '(bob waits)',
    steps: [
      { when: { last_user_contains: 'run the first' }, reply: [touch(root, 'first.txt', 'Create first.txt')] },
      { reply: [{ text: 'Ran the first.' }] },
      { when: { last_user_contains: 'run the second' }, reply: [touch(root, 'second.txt', 'Create second.txt')] },
      { reply: [{ text: 'Ran the second.' }] },
    ],
  },
});

describe.skipIf(!CLAUDE)('a permission answered in the pane (real binary, e2e in tmux)', () => {
  it('claude.real-binary-permission-answered-in-its-dialog-is-withdrawn-within-a-second', async () => {
    const { root, store, d, idle, say, log } = await startClaudeTeam(CLAUDE!, 'ccp', LAYOUT, scripts, cleanups, 200);
    await idle('bob');
    await say('lead', 'bob', 'run the first command');
    await d.waitFor(/▶permission bob→human: Bash: touch/, 'the permission request in the sidebar', 60_000);
    const [q] = (await store.requests.list()).requests.filter((r) => r.type === 'permission' && r.status === 'pending');
    // Claude Code's own dialog in bob's pane (pane 2), answered there.
    await d.keys('C-a', '2');
    await d.waitFor(/Do you want to proceed\?/, "Claude Code's permission dialog in bob's pane", 30_000);
    await d.keys('1');
    const first = path.join(root, 'first.txt');
    await waitFor(() => existsSync(first), 'first.txt (the tool allowed in the dialog ran)', 30_000, 5);
    const ran = Date.now();
    const withdrawn = await waitFor(async () => {
      const r = await store.requests.get(q!.id);
      return r.ok && r.value.status !== 'pending' ? r.value : undefined;
    }, 'the request withdrawn', 10_000, 20);
    const took = Date.now() - ran;
    expect(withdrawn.status).toBe('withdrawn');
    await waitFor(() => log().includes(`permission ${q!.id} for bob: answered in Claude Code's own dialog, withdrawn`), 'the withdrawal in teamux.log', 5_000, 20);
    process.stdout.write(`\n  tool ran (in-pane answer) -> request withdrawn: ${took} ms\n`);
    expect(took).toBeLessThan(1_000);
    await d.waitFor((s) => !s.includes('▶permission bob') && !s.includes('waiting for permission'), 'the sidebar and roster without the request', 5_000);

    // The next request is the one C-a a answers.
    await idle('bob');
    await say('lead', 'bob', 'run the second command');
    await waitFor(async () => (await store.requests.list()).requests.find((r) => r.type === 'permission' && r.status === 'pending' && r.body.includes('second.txt')), 'the second permission request', 60_000);
    await d.waitFor(/▶permission bob→human: Bash: touch/, 'the second request selected', 10_000);
    expect((await store.requests.list()).requests.filter((r) => r.status === 'pending').map((r) => r.body)).toEqual([`Bash: touch ${path.join(root, 'second.txt')}`]);
    await d.keys('C-a', 'a');
    await waitFor(() => existsSync(path.join(root, 'second.txt')), 'second.txt (allowed with one C-a a)', 30_000, 5);
  }, 240_000);
});
