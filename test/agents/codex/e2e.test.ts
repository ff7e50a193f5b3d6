// End-to-end with the real Codex CLI binary (the pinned version, scripts/agent-clis.mjs): `teamux start`
// in a private tmux server, a Codex teammate on a scripted Responses API on 127.0.0.1 that this test
// owns, so it can assert on every request body Codex sent. A message is typed into the idle pane, the
// plan gate refuses a command until the plan is approved with C-a a, a permission is allowed with C-a a
// (it ran) and denied with C-a r (it did not; the feedback is in the next request), one unanswered past
// permission_timeout is withdrawn from the sidebar and answered in Codex's own dialog, Stop reports
// idle to the lead, the shutdown handshake ends the process, and the user's ~/.codex is untouched.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentCliForTests } from '../../helpers/claude-code.js';
import { BIN, waitFor } from '../../helpers/team.js';
import { bodyText, idleNotified, startClaudeTeam } from '../claude/tmux-team.js';

const CODEX = agentCliForTests('codex');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LAYOUT = `name: cxe
sidebar: { width: 48 }
permission_timeout: 6
lead: { name: lead, role: Leads, command: [bash, --noprofile, --norc] }
teammates:
  - { name: cody, role: Tests, agent: { cli: codex, approval: on-request }, plan_required: true }
`;

/** A command Codex runs outside its sandbox only with approval (it asks, and PermissionRequest fires). */
const escalated = (cmd: string, why: string) => ({ tool_use: { name: 'exec_command', input: { cmd, sandbox_permissions: 'require_escalated', justification: why } } });

function scripts(root: string): Record<string, unknown> {
  const f = (n: string) => path.join(root, n);
  return {
    cody: {
      idle_reply: '(cody waits)',
      steps: [
        { when: { last_user_contains: 'write gated' }, reply: [{ tool_use: { name: 'exec_command', input: { cmd: `touch ${f('gated.txt')}` } } }] },
        { reply: [{ text: 'The plan gate stopped me.' }] },
        { when: { last_user_contains: 'write again' }, reply: [{ tool_use: { name: 'exec_command', input: { cmd: `touch ${f('gated.txt')}` } } }] },
        { reply: [{ text: 'gated.txt written.' }] },
        { when: { last_user_contains: 'ask first' }, reply: [escalated(`touch ${f('allowed.txt')}`, 'Create allowed.txt')] },
        { reply: [{ text: 'Ran it.' }] },
        { when: { last_user_contains: 'ask second' }, reply: [escalated(`touch ${f('denied.txt')}`, 'Create denied.txt')] },
        { reply: [{ text: 'Understood, I will not.' }] },
        { when: { last_user_contains: 'ask third' }, reply: [escalated(`touch ${f('late.txt')}`, 'Create late.txt')] },
        { reply: [{ text: 'late.txt done.' }] },
        { when: { last_user_contains: 'shutdown_request' }, reply: [{ tool_use: { name: 'mcp__teamux__respond_shutdown', input: { request_id: '{{last_request_id}}', approve: true } } }] },
        { reply: [{ text: 'Shutting down.' }] },
      ],
    },
  };
}

describe.skipIf(!CODEX)('Codex CLI members (real binary, e2e in tmux)', () => {
  it('codex.e2e-message-plan-gate-permissions-timeout-idle-shutdown-and-untouched-user-config', async () => {
    const { root, store, server, d, idle, userBefore, userNow } = await startClaudeTeam(CODEX!, 'cxe', LAYOUT, scripts, cleanups, 220, {}, false, 'codex');
    await idle('cody');
    const requests = async () => (await store.requests.list()).requests;

    // A message to the idle member is typed into its pane and reaches the model; the plan gate refuses
    // the command before approval (the model is told why, the file is not there).
    await store.send({ from: 'lead', to: 'cody', type: 'task_assignment', text: 'please write gated.txt' });
    await server.waitForRequest((r) => r.member === 'cody' && bodyText(r).includes('please write gated.txt'), 60_000);
    await server.waitForRequest((r) => r.member === 'cody' && bodyText(r).includes('blocked: plan status is not_submitted'), 60_000);
    expect(existsSync(path.join(root, 'gated.txt'))).toBe(false);
    // Stop with nothing to deliver: the result and idle_notification reach the lead.
    const toLead = await idleNotified(store, 'cody');
    expect(toLead.find((m) => m.type === 'result' && m.from === 'cody')?.text).toBe('The plan gate stopped me.');

    // The plan is approved from the sidebar (C-a a); then the command runs.
    const plan = await store.openRequest('plan_approval', 'cody', 'human', '1. touch gated.txt');
    if (!plan.ok) throw new Error(plan.message);
    await d.waitFor(/plan cody→human/, 'the plan request in the sidebar', 20_000);
    await d.keys('C-a', 'a');
    await waitFor(async () => (await requests()).some((r) => r.id === plan.value.id && r.status === 'approved'), 'the plan approved', 20_000);
    await idle('cody');
    await store.send({ from: 'lead', to: 'cody', type: 'message', text: 'please write again' });
    await waitFor(() => existsSync(path.join(root, 'gated.txt')), 'gated.txt written after approval', 60_000, 50);
    await idle('cody');

    // A permission allowed with C-a a: the command runs.
    await store.send({ from: 'lead', to: 'cody', type: 'message', text: 'ask first' });
    await d.waitFor(/permission cody→human: Bash: touch/, 'the permission request in the sidebar', 60_000);
    const pressed = Date.now();
    await d.keys('C-a', 'a');
    const allowed = path.join(root, 'allowed.txt');
    await waitFor(() => existsSync(allowed), 'allowed.txt (the allowed command ran)', 30_000, 5);
    const keyToTool = statSync(allowed).mtimeMs - pressed;
    await idle('cody');

    // A permission denied with C-a r and feedback: the command does not run, the feedback reaches the model.
    await store.send({ from: 'lead', to: 'cody', type: 'message', text: 'ask second' });
    await d.waitFor(/Create denied\.txt/, 'the second permission request', 60_000);
    await d.keys('C-a', 'r');
    await d.waitFor(/deny cody's Bash — feedback:/, 'the feedback prompt', 10_000);
    await d.type('not in this folder');
    await d.keys('Enter');
    await server.waitForRequest((r) => r.member === 'cody' && bodyText(r).includes('denied by the operator: not in this folder'), 60_000);
    expect(existsSync(path.join(root, 'denied.txt'))).toBe(false);
    await idle('cody');

    // Unanswered for permission_timeout: the sidebar request is withdrawn before Codex's own dialog
    // shows (Codex waits for the hook), and an answer there (y) runs the command.
    await store.send({ from: 'lead', to: 'cody', type: 'message', text: 'ask third' });
    const late = await waitFor(async () => (await requests()).find((r) => r.type === 'permission' && r.body.includes('late.txt')), 'the third permission request', 60_000);
    await d.waitFor(/Would you like to run the following command\?/, "Codex's own approval dialog", 30_000);
    expect((await requests()).find((r) => r.id === late.id)?.status).toBe('withdrawn');
    await d.keys('C-a', '2');
    await d.keys('y');
    await waitFor(() => existsSync(path.join(root, 'late.txt')), 'late.txt (answered in Codex)', 30_000, 20);
    await idle('cody');

    // The shutdown handshake (the lead asks, cody answers with respond_shutdown) ends the process.
    execFileSync(process.execPath, [BIN, 'request', 'shutdown', '--from', 'lead', '--to', 'cody', '--team-dir', store.dir], { stdio: 'ignore' });
    await waitFor(async () => (await store.roster()).find((m) => m.name === 'cody')?.reportedStatus === 'exited', 'cody exited after approving its shutdown', 60_000, 100);
    expect((await store.requests.list()).requests.filter((r) => r.type === 'shutdown').map((r) => [r.to, r.status])).toEqual([['cody', 'approved']]);

    // Nothing of the user's own Codex (or Claude Code) config changed; no project .codex/ appeared.
    expect(userNow()).toEqual(userBefore);
    expect(existsSync(path.join(root, '.codex'))).toBe(false);
    process.stdout.write(`\n  codex: key press to the permitted command starting: ${keyToTool.toFixed(0)} ms\n`);
  }, 300_000);
});
