// The plan gate with the real Claude Code binary (`claude -p`, the pinned version) against a scripted
// Messages API on 127.0.0.1, with teamux's generated settings (its PreToolUse hook in the form teamux
// picks: Perl when there is Perl, else the one-file CommonJS entry): a plan-gated member's `Monitor`
// call (it runs a shell command; no list of gated tools named it) is refused before its plan is
// approved, even with Monitor allowed by Claude Code's own permission rules, and runs once the
// screen's signed approval is on record.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { scriptDigest } from '../../../src/store/exec-folder.js';
import { afterEach, describe, expect, it } from 'vitest';
import { perlHookScript } from '../../../src/agents/claude/hook-perl.js';
import { claudeSettings, demoClaudeJson } from '../../../src/agents/claude/launch.js';
import { startScriptedServer, type LoggedRequest, type ScriptedServer } from '../../../src/demo/server.js';
import { OPERATOR } from '../../../src/protocol/trust.js';
import { trustRoot } from '../../agent/helpers.js';
import { claudeCodeForTests, claudePrint } from '../../helpers/claude-code.js';
import { PERL } from '../../helpers/hook-shell.js';
import { BIN, makeTeam, waitFor } from '../../helpers/team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The newest tool result a request carries, as text (is_error first), or '' when it has none. */
function lastToolResult(r: LoggedRequest): string {
  const messages = (r.body as { messages?: Array<{ content?: unknown }> }).messages ?? [];
  const results = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((c): c is { type: string; is_error?: boolean; content?: unknown } => (c as { type?: string }).type === 'tool_result');
  const last = results.at(-1);
  return last ? `${last.is_error ? 'error' : 'ok'}: ${JSON.stringify(last.content)}` : '';
}

/** `claude -p PROMPT` as member bob with teamux's settings, Monitor loaded up front and allowed by Claude Code's rules. */
function claudeP(prompt: string, opts: { root: string; home: string; settings: string; server: ScriptedServer; env: Record<string, string> }): Promise<{ code: number; out: string }> {
  return claudePrint(CLAUDE!, prompt, { member: 'bob', root: opts.root, home: opts.home, settings: opts.settings, apiUrl: opts.server.url, env: { ENABLE_TOOL_SEARCH: 'false', ...opts.env }, args: ['--allowedTools', 'Monitor'], onCleanup: (kill) => cleanups.push(kill) });
}

describe.skipIf(!CLAUDE)('the plan gate with the real Claude Code binary', () => {
  it('claude.real-binary-monitor-is-refused-before-the-plan-is-approved-and-runs-after', async () => {
    const t = await makeTeam(['bob'], { runtime: 'claude', planRequired: true, planApprover: OPERATOR });
    cleanups.push(t.cleanup);
    const root = (await t.store.config()).root;
    const { screen, run, env } = await trustRoot(t.dir);
    const home = path.join(root, 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(home, '.claude.json'), JSON.stringify(demoClaudeJson(root)));
    const hooks = path.join(root, 'hooks');
    if (PERL) writeFileSync(hooks, perlHookScript(PERL, process.execPath, BIN), { mode: 0o700 });
    const settings = path.join(root, 'settings.json');
    writeFileSync(settings, JSON.stringify(claudeSettings({ member: 'bob', teamDir: t.dir, teamuxBin: BIN, node: process.execPath, permissionTimeout: 60, ...(PERL ? { perlHooks: { perl: PERL, file: hooks, sha256: scriptDigest(perlHookScript(PERL, process.execPath, BIN)) } } : {}) })));
    const before = path.join(root, 'before-approval.txt');
    const after = path.join(root, 'after-approval.txt');
    const monitor = (file: string) => ({ tool_use: { name: 'Monitor', input: { description: 'watch a file', timeout_ms: 5000, command: `touch ${file}` } } });
    const server = await startScriptedServer({
      scripts: {
        bob: {
          idle_reply: '(bob waits)',
          steps: [
            { when: { last_user_contains: 'first' }, reply: [monitor(before)] },
            { reply: [{ text: 'first over' }] },
            { when: { last_user_contains: 'second' }, reply: [monitor(after)] },
            { reply: [{ text: 'second over' }] },
          ],
        },
      } as never,
    });
    cleanups.push(() => server.close());
    const opts = { root, home, settings, server, env: { TEAMUX_TEAM_DIR: t.dir, TEAMUX_TRUST_KEY: env.TEAMUX_TRUST_KEY!, TEAMUX_RUN: run } };

    // No plan yet: the hook refuses Monitor, and the model is told why.
    const first = await claudeP('first', opts);
    expect(first.out).toContain('first over');
    const refused = await server.waitForRequest((r) => r.member === 'bob' && lastToolResult(r) !== '', 10_000);
    expect(lastToolResult(refused)).toMatch(/^error: .*blocked: plan status is not_submitted/);

    // The plan, approved by the screen (signed): the same kind of call runs.
    const plan = await t.store.openRequest('plan_approval', 'bob', OPERATOR, 'watch a file');
    if (!plan.ok) throw new Error(plan.message);
    const approved = await screen.answerRequest(plan.value.id, OPERATOR, true, 'go ahead');
    if (!approved.ok) throw new Error(approved.message);
    // (Monitor's events come back as more turns after 'second over', so the output is not checked.)
    await claudeP('second', opts);
    const ran = await server.waitForRequest((r) => r.member === 'bob' && r.step === 3, 10_000);
    expect(lastToolResult(ran)).toMatch(/^ok: .*Monitor started/);
    await waitFor(() => existsSync(after), 'the approved Monitor command to run', 20_000);
    expect(existsSync(before)).toBe(false);
  }, 180_000);
});
