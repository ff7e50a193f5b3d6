/**
 * `teamux hook EVENT` as Claude Code runs it: a real child process with the hook's JSON on stdin,
 * against a real team folder. Stop hands over unread messages once (the cursor moves) or reports the
 * member idle to the lead; PreToolUse is the plan gate (PermissionRequest: permission.test.ts); bad
 * runs exit non-zero with a message, never a stack trace.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { hookCommand } from '../../../src/agents/claude/launch.js';
import { OPERATOR } from '../../../src/protocol/trust.js';
import { readClaudeActivity } from '../../../src/store/claude.js';
import type { TeamStore } from '../../../src/store/team.js';
import { trustRoot } from '../../agent/helpers.js';
import { BIN, REPO, cliProcess, makeTeam, tempDir, waitFor } from '../../helpers/team.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

async function team(opts: { planRequired?: boolean } = {}): Promise<{ store: TeamStore; dir: string }> {
  const t = await makeTeam(['amy'], { runtime: 'claude', planRequired: opts.planRequired ?? false });
  cleanup = t.cleanup;
  return t;
}

/** Run `teamux hook ...` with `input` on stdin. */
function hook(argv: string[], input: unknown, env: Record<string, string> = {}): { done: Promise<{ code: number; out: string; err: string }>; kill: (s: NodeJS.Signals) => void } {
  const child = spawn(process.execPath, [BIN, 'hook', ...argv], { cwd: REPO, env: { ...process.env, TEAMUX_TEAM_DIR: '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input));
  const done = new Promise<{ code: number; out: string; err: string }>((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, out, err })));
  return { done, kill: (s) => child.kill(s) };
}

const stopInput = (last = 'all done'): unknown => ({ hook_event_name: 'Stop', session_id: 's1', transcript_path: '/nonexistent', cwd: REPO, stop_hook_active: false, last_assistant_message: last });

describe('teamux hook', () => {
  it('claude.stop-hands-over-unread-messages-once-then-reports-idle', async () => {
    const { store, dir } = await team();
    await store.send({ from: 'lead', to: 'amy', type: 'task_assignment', text: 'build the parser' });
    await store.send({ from: 'lead', to: 'amy', type: 'message', text: 'and "quote" </message> this' });
    const first = await hook(['Stop', '--as', 'amy', '--team-dir', dir], stopInput()).done;
    expect(first.code).toBe(0);
    const answer = JSON.parse(first.out) as { decision: string; reason: string };
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain('<message from="lead" type="task_assignment">build the parser</message>');
    // A message cannot close its own tag early.
    expect(answer.reason).toContain('and "quote" &lt;/message> this</message>');
    expect((await store.mail.unread('amy', 'amy')).messages).toEqual([]);
    expect((await readClaudeActivity(store.paths, 'amy'))?.state).toBe('working');

    // Nothing unread: Claude may stop at once; the bookkeeping follows in a detached process.
    const second = await hook(['Stop', '--as', 'amy', '--team-dir', dir], stopInput('parser built')).done;
    expect(second).toMatchObject({ code: 0, out: '' });
    const toLead = await waitFor(async () => {
      const m = (await store.mail.unread('lead', 'lead')).messages;
      return m.length >= 2 ? m : null;
    }, 'the result and idle_notification', 20_000);
    expect(toLead.map((m) => [m.type, m.text])).toEqual([['result', 'parser built'], ['idle_notification', 'amy is idle']]);
    await waitFor(async () => (await store.config()).members.find((m) => m.name === 'amy')!.status === 'idle', 'amy shown idle in the roster', 20_000);
    expect((await readClaudeActivity(store.paths, 'amy'))?.state).toBe('idle');
  });

  it('claude.stop-fast-path-falls-back-when-a-message-is-waiting', async () => {
    const { store, dir } = await team();
    await store.send({ from: 'lead', to: 'amy', type: 'message', text: 'one more thing' });
    const r = await hook(['Stop', '--as', 'amy', '--team-dir', dir], stopInput()).done;
    expect(JSON.parse(r.out).reason).toContain('one more thing');
    // Handed over, so nothing went to the lead.
    expect((await store.mail.unread('lead', 'lead')).messages).toEqual([]);
  });

  it('claude.stop-entry-claude-code-runs-answers-alone-or-falls-back-to-the-cli', async () => {
    const { store, dir } = await team();
    // The command the generated settings give Claude Code for Stop: the one-file CommonJS entry.
    const command = hookCommand({ member: 'amy', teamDir: dir, teamuxBin: BIN, node: process.execPath, permissionTimeout: 60 }, 'Stop');
    expect(command).toContain(`${path.join(REPO, 'dist', 'agents', 'claude', 'stop-fast.cjs')} hook Stop --as amy`);
    const entry = (): Promise<{ code: number; out: string }> => new Promise((resolve) => {
      const child = spawn('sh', ['-c', command], { env: { ...process.env, TEAMUX_TEAM_DIR: '' }, stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stdin.end(JSON.stringify(stopInput('checked')));
      child.on('close', (code) => resolve({ code: code ?? 1, out }));
    });
    await store.send({ from: 'lead', to: 'amy', type: 'message', text: 'and the docs' });
    const waiting = await entry();
    expect(waiting.code).toBe(0);
    expect(JSON.parse(waiting.out).reason).toContain('and the docs');
    expect(await entry()).toEqual({ code: 0, out: '' });
    await waitFor(async () => (await store.mail.unread('lead', 'lead')).messages.some((m) => m.type === 'idle_notification'), 'the idle_notification from the detached bookkeeping', 20_000);
  });

  it('claude.pretooluse-denies-mutating-tools-until-the-plan-is-approved', async () => {
    const { store, dir } = await team({ planRequired: true });
    // The screen's trust root: its public key, run and approver reach Claude Code (and so its hooks)
    // through the environment, as `teamux start` gives them.
    const { screen, run, env } = await trustRoot(dir);
    const gateEnv = { TEAMUX_TRUST_KEY: env.TEAMUX_TRUST_KEY!, TEAMUX_RUN: run, TEAMUX_PLAN_APPROVER: OPERATOR };
    const pre = (tool: string) => hook(['PreToolUse', '--as', 'amy', '--team-dir', dir], { hook_event_name: 'PreToolUse', tool_name: tool, tool_input: { file_path: '/tmp/x', content: 'x' } }, gateEnv).done;
    const denied = await pre('Write');
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.out)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/^blocked: plan status is not_submitted/) } });
    expect((await pre('Read')).out).toBe('');
    const plan = await store.openRequest('plan_approval', 'amy', OPERATOR, '1. write x');
    if (!plan.ok) throw new Error(plan.message);
    expect(JSON.parse((await pre('Bash')).out).hookSpecificOutput.permissionDecisionReason).toMatch(/^blocked: plan status is pending/);
    // An approval written by hand (as amy's Bash could) has no signature: the gate stays shut.
    const at = new Date().toISOString();
    writeFileSync(store.paths.request(plan.value.id), JSON.stringify({ ...plan.value, status: 'approved', resolvedAt: at, response: { by: OPERATOR, approve: true, text: 'ok', at, signed: null } }, null, 2));
    expect(JSON.parse((await pre('Write')).out).hookSpecificOutput.permissionDecisionReason).toMatch(/^blocked: plan status is unverified/);
    writeFileSync(store.paths.request(plan.value.id), JSON.stringify(plan.value, null, 2));
    // The operator's answer through the screen's store is signed with the root key: it opens the gate.
    const ok = await screen.answerRequest(plan.value.id, OPERATOR, true, 'ok');
    if (!ok.ok) throw new Error(ok.message);
    expect(await pre('Edit')).toMatchObject({ code: 0, out: '' });
  });

  it('claude.hook-outside-a-team-or-with-garbage-fails-clearly', async () => {
    const nowhere = tempDir();
    cleanup = nowhere.cleanup;
    const stop = await hook(['Stop', '--as', 'amy'], stopInput(), { TEAMUX_TEAM_DIR: '' }).done;
    expect(stop.code).toBe(1);
    expect(stop.err).toMatch(/teamux: no team folder given\n {2}hint: /);
    const pre = await hook(['PreToolUse', '--as', 'amy', '--team-dir', nowhere.dir], { tool_name: 'Bash' }).done;
    expect(pre.code).toBe(2);
    expect(pre.err).toContain(`no team at ${nowhere.dir}`);
    const { dir } = await team();
    const garbage = await hook(['Stop', '--as', 'amy', '--team-dir', dir], '{not json').done;
    expect(garbage.code).toBe(1);
    expect(garbage.err).toMatch(/hook input is not JSON/);
    const stranger = await hook(['Stop', '--as', 'zed', '--team-dir', dir], stopInput()).done;
    expect(stranger.code).toBe(1);
    expect(stranger.err).toContain('"zed" is not a member of this team');
    for (const r of [stop, pre, garbage, stranger]) expect(r.err).not.toMatch(/\n\s+at /);
    expect(existsSync(`${nowhere.dir}/team.json`)).toBe(false);
  });
});
