/**
 * The hooks of a Claude Code teammate spawned by a native lead (claudeTeam set in team.json), as real
 * `teamux hook` processes: PreToolUse asks the operator for the calls Claude Code would put to its
 * lead (the answer becomes the PreToolUse decision; the timeout steps aside), holds mutating tools
 * behind a required plan first, and a Stop leaves the idle report to Claude Code (nothing in the
 * teamux lead's inbox).
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { nativeNeedsPermission } from '../../../src/agents/claude/native-hooks.js';
import { OPERATOR } from '../../../src/protocol/trust.js';
import { trustRoot } from '../../agent/helpers.js';
import { BIN, REPO, makeTeam, waitFor } from '../../helpers/team.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => cleanup?.());

async function team(planRequired = false) {
  // As the tmux bridge registers a teammate that the native lead's Claude Code spawned.
  const t = await makeTeam([]);
  cleanup = t.cleanup;
  const added = await t.store.addMember({
    name: 'amy', role: 'Claude Code teammate (session-12345678)', kind: 'teammate', status: 'working', pid: null, pidStart: null, joinedAt: null, exitCode: null,
    planRequired, planApprover: OPERATOR, tools: null, runtime: 'claude', speaksProtocol: false, claudeTeam: 'session-12345678',
  });
  if (!added.ok) throw new Error(added.message);
  return t;
}

function hook(argv: string[], input: unknown, env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, 'hook', ...argv], { cwd: REPO, env: { ...process.env, TEAMUX_TEAM_DIR: '', TEAMUX_MEMBER: 'amy', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.end(JSON.stringify(input));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, out, err })));
}

const bash = (command: string, mode = 'default') => ({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, permission_mode: mode, agent_type: 'general-purpose' });

describe('hooks of a native teammate', () => {
  it('native-hooks.which-calls-ask', () => {
    expect(['Bash', 'Write', 'Edit', 'Read', 'Grep'].map((t) => nativeNeedsPermission(t, 'default'))).toEqual([true, true, true, false, false]);
    expect(['Bash', 'Write', 'NotebookEdit'].map((t) => nativeNeedsPermission(t, 'acceptEdits'))).toEqual([true, false, true]);
    expect(['bypassPermissions', 'plan', 'auto', 'dontAsk'].map((m) => nativeNeedsPermission('Bash', m))).toEqual([false, false, false, false]);
  });

  it('native-hooks.pretooluse-asks-the-operator-allow-deny-and-timeout', async () => {
    const { store, dir } = await team();
    // The screen's trust root: only its signed answers count; its key and run reach the hook by env.
    const { screen, env: rootEnv, run } = await trustRoot(dir);
    const trustEnv = { TEAMUX_TRUST_KEY: rootEnv.TEAMUX_TRUST_KEY!, TEAMUX_RUN: run };
    const pending = (command: string) => waitFor(async () => (await store.requests.list()).requests.find((r) => r.type === 'permission' && r.status === 'pending' && r.body === `Bash: ${command}`), `the request for ${command}`, 20_000);
    // The hook names the member from $TEAMUX_MEMBER, as the native lead's settings do.
    const first = hook(['PreToolUse', '--as', 'amy', '--team-dir', dir, '--permission-timeout', '60'], bash('touch a'), trustEnv);
    const req = await pending('touch a');
    expect(req).toMatchObject({ from: 'amy', to: OPERATOR });
    const ok = await screen.answerRequest(req.id, OPERATOR, true, 'approved by the operator');
    if (!ok.ok) throw new Error(ok.message);
    expect(JSON.parse((await first).out)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'allowed by the operator at the teamux screen' } });

    const second = hook(['PreToolUse', '--as', 'amy', '--team-dir', dir, '--permission-timeout', '60'], bash('rm -rf /'), trustEnv);
    const req2 = await pending('rm -rf /');
    const no = await screen.answerRequest(req2.id, OPERATOR, false, 'never');
    if (!no.ok) throw new Error(no.message);
    expect(JSON.parse((await second).out).hookSpecificOutput).toEqual({ hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'denied by the operator: never' });

    // No answer in time: nothing printed (Claude Code's own route, the lead's prompt, takes over).
    expect(await hook(['PreToolUse', '--as', 'amy', '--team-dir', dir, '--permission-timeout', '1'], bash('sleep 1'), trustEnv)).toMatchObject({ code: 0, out: '' });
    // A mode in which Claude Code does not ask: neither does teamux.
    expect(await hook(['PreToolUse', '--as', 'amy', '--team-dir', dir], bash('ls', 'bypassPermissions'))).toMatchObject({ code: 0, out: '' });
    // The hook cannot be made to act as the lead from a teammate's pane.
    const posing = await hook(['PreToolUse', '--as', 'lead', '--team-dir', dir], bash('ls'));
    expect(posing.code).toBe(2);
    expect(posing.err).toContain('this process belongs to member amy');
  });

  it('native-hooks.required-plan-comes-before-permission', async () => {
    const { dir } = await team(true);
    const { env, run } = await trustRoot(dir);
    const r = await hook(['PreToolUse', '--as', 'amy', '--team-dir', dir], bash('touch b'), { TEAMUX_TRUST_KEY: env.TEAMUX_TRUST_KEY!, TEAMUX_RUN: run, TEAMUX_PLAN_REQUIRED: '1', TEAMUX_PLAN_APPROVER: OPERATOR });
    expect(JSON.parse(r.out).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/^blocked: plan status is not_submitted/) });
  });

  it('native-hooks.stop-leaves-the-idle-report-to-claude-code', async () => {
    const { store, dir } = await team();
    const r = await hook(['Stop', '--as', 'amy', '--team-dir', dir], { hook_event_name: 'Stop', session_id: 's', transcript_path: '/none', cwd: REPO, stop_hook_active: false, last_assistant_message: 'done' });
    expect(r).toMatchObject({ code: 0, out: '' });
    await waitFor(async () => (await store.config()).members.find((m) => m.name === 'amy')!.status === 'idle', 'amy idle', 20_000);
    expect((await store.mail.unread('lead', 'lead')).messages).toEqual([]);
  });
});
