// End-to-end with the real Claude Code binary (the pinned version, see test/helpers/claude-code.ts):
// `teamux start` in a private tmux server, two Claude Code teammates talking to a scripted Messages
// API on 127.0.0.1 that this test owns, so it can assert on every request body Claude Code sent.
// Messages are typed into idle panes, the plan gate refuses Write until the plan is approved, a
// permission is allowed with C-a a and denied with C-a r (the feedback reaches the model), Stop
// reports idle to the lead, and the user's own Claude Code settings are left as they were.
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { waitFor } from '../../helpers/team.js';
import { bodyText, idleNotified, startClaudeTeam } from './tmux-team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LAYOUT = `name: cce
sidebar: { width: 48 }
permission_timeout: 90
lead: { name: lead, role: Leads, command: [bash, --noprofile, --norc] }
teammates:
  - { name: amy, role: Writes files, agent: { cli: claude, permission_mode: acceptEdits }, plan_required: true }
  - { name: bob, role: Runs commands, agent: { cli: claude } }
`;

function scripts(root: string): Record<string, unknown> {
  return {
    amy: {
      idle_reply: '(amy waits)',
      steps: [
        { when: { last_user_contains: 'write hello' }, reply: [{ text: 'Writing it.' }, { tool_use: { name: 'Write', input: { file_path: path.join(root, 'hello.txt'), content: 'hello\n' } } }] },
        { reply: [{ text: 'The plan gate stopped me.' }] },
        { when: { last_user_contains: 'write again' }, reply: [{ tool_use: { name: 'Write', input: { file_path: path.join(root, 'hello.txt'), content: 'hello\n' } } }] },
        { reply: [{ text: 'hello.txt written.' }] },
      ],
    },
    bob: {
      idle_reply: '(bob waits)',
      steps: [
        { when: { last_user_contains: 'run the first' }, reply: [{ tool_use: { name: 'Bash', input: { command: `touch ${path.join(root, 'ran.txt')}`, description: 'Create ran.txt' } } }] },
        { reply: [{ text: 'Ran it.' }] },
        { when: { last_user_contains: 'run the second' }, reply: [{ tool_use: { name: 'Bash', input: { command: `touch ${path.join(root, 'denied.txt')}`, description: 'Create denied.txt' } } }] },
        { reply: [{ text: 'Understood, I will not.' }] },
      ],
    },
  };
}

describe.skipIf(!CLAUDE)('Claude Code members (real binary, e2e in tmux)', () => {
  it('claude.e2e-messages-plan-gate-permissions-idle-and-untouched-user-settings', async () => {
    const { root, store, server, d, idle, userBefore, userNow } = await startClaudeTeam(CLAUDE!, 'cce', LAYOUT, scripts, cleanups, 220);
    await Promise.all([idle('amy'), idle('bob')]);

    // A message to an idle member is typed into its pane and reaches the model.
    await store.send({ from: 'lead', to: 'amy', type: 'task_assignment', text: 'please write hello' });
    await server.waitForRequest((r) => r.member === 'amy' && bodyText(r).includes('please write hello'), 60_000);
    // Write is refused by the plan gate before approval: the model is told why, the file is not there.
    const refused = await server.waitForRequest((r) => r.member === 'amy' && bodyText(r).includes('blocked: plan status is not_submitted'), 60_000);
    expect(bodyText(refused)).toContain('PreToolUse:Write hook error');
    expect(existsSync(path.join(root, 'hello.txt'))).toBe(false);
    // Stop with nothing to deliver: the result and idle_notification reach the lead.
    const toLead = await idleNotified(store, 'amy');
    expect(toLead.find((m) => m.type === 'result' && m.from === 'amy')?.text).toBe('The plan gate stopped me.');

    // The plan is approved from the sidebar (C-a a); then Write works.
    const plan = await store.openRequest('plan_approval', 'amy', 'human', '1. write hello.txt');
    if (!plan.ok) throw new Error(plan.message);
    await d.waitFor(/plan amy→human/, 'the plan request in the sidebar', 20_000);
    await d.keys('C-a', 'a');
    await waitFor(async () => (await store.requests.get(plan.value.id)).ok && (await store.requests.get(plan.value.id) as { value: { status: string } }).value.status === 'approved', 'the plan approved', 20_000);
    await idle('amy');
    await store.send({ from: 'lead', to: 'amy', type: 'message', text: 'please write again' });
    await waitFor(() => existsSync(path.join(root, 'hello.txt')), 'hello.txt written after approval', 60_000, 50);

    // Reference for the latency below, in the same run: a key press in the lead's shell to its touch.
    const refFile = path.join(root, 'ref.txt');
    await d.type(`touch ${refFile}`);
    const refPressed = Date.now();
    await d.keys('Enter');
    await waitFor(() => existsSync(refFile), 'ref.txt from the lead shell', 30_000, 5);
    const keyToShell = statSync(refFile).mtimeMs - refPressed;

    // A permission allowed with C-a a: the tool runs.
    await store.send({ from: 'lead', to: 'bob', type: 'message', text: 'run the first command' });
    await d.waitFor(/permission bob→human: Bash: touch/, 'the permission request in the sidebar', 60_000);
    const pressed = Date.now();
    await d.keys('C-a', 'a');
    const ran = path.join(root, 'ran.txt');
    await waitFor(() => existsSync(ran), 'ran.txt (the allowed tool ran)', 30_000, 5);
    const keyToTool = statSync(ran).mtimeMs - pressed;
    // Where the time went, from teamux.log: the key handled and answered, the hook handing it over.
    const logAt = (needle: string): number => {
      const line = readFileSync(store.paths.log, 'utf8').split('\n').find((l) => l.includes(needle));
      return line ? Date.parse(line.slice(0, 24)) - pressed : NaN;
    };
    const breakdown = `answered by the TUI at ${logAt("allowed bob's Bash")} ms, handed to Claude Code by the hook at ${logAt('handed to Claude Code')} ms, tool ran at ${keyToTool.toFixed(0)} ms`;
    await server.waitForRequest((r) => r.member === 'bob' && bodyText(r).includes('tool_result') && !bodyText(r).includes('denied by the operator'), 30_000);
    await idle('bob');

    // A permission denied with C-a r and feedback: the tool does not run, the feedback reaches the model.
    await store.send({ from: 'lead', to: 'bob', type: 'message', text: 'run the second command' });
    await d.waitFor(/description: Create denied\.txt/, 'the second permission request, shown in full', 60_000);
    await d.keys('C-a', 'r');
    await d.waitFor(/deny bob's Bash — feedback:/, 'the feedback prompt', 10_000);
    await d.type('not in this folder');
    await d.keys('Enter');
    const denied = await server.waitForRequest((r) => r.member === 'bob' && bodyText(r).includes('denied by the operator: not in this folder'), 60_000);
    expect(bodyText(denied)).toContain('is_error');
    expect(existsSync(path.join(root, 'denied.txt'))).toBe(false);

    // Cost and tokens from Claude Code's own records show in the pane title.
    await d.waitFor(/bob · Runs commands .*tok · \$\d+\.\d\d/, 'bob\'s tokens and cost in the title', 30_000);

    // Nothing of the user's own Claude Code settings changed, and no project .claude/ appeared.
    expect(userNow()).toEqual(userBefore);
    expect(existsSync(path.join(root, '.claude'))).toBe(false);
    process.stdout.write(`\n  key press to the permitted tool starting: ${keyToTool.toFixed(0)} ms; reference, key press to a shell command in the lead pane: ${keyToShell.toFixed(0)} ms (ratio ${(keyToTool / Math.max(1, keyToShell)).toFixed(1)}x); ${breakdown}\n`);
  }, 300_000);
});
