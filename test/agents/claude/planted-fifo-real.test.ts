// A FIFO planted in the team folder must not open the plan gate, with the real Claude Code binary
// (`claude -p`, the pinned version) against a scripted Messages API and teamux's generated settings
// (the Perl PreToolUse form when there is Perl). Claude Code runs a tool when its PreToolUse hook
// times out, so a hook that blocked reading `store.json` (as it did) let a gated member's Bash run
// after 30 s. Now the read is refused at once and the hook fails closed: the tool does not run and the
// model is told why, long before Claude Code's hook timeout. Bash is allowed without asking
// (--allowedTools), so the hook is the only thing between the call and the shell.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { scriptDigest } from '../../../src/store/exec-folder.js';
import { afterEach, describe, expect, it } from 'vitest';
import { perlHookScript } from '../../../src/agents/claude/hook-perl.js';
import { claudeSettings, demoClaudeJson } from '../../../src/agents/claude/launch.js';
import { startScriptedServer } from '../../../src/demo/server.js';
import { trustRoot } from '../../agent/helpers.js';
import { claudeCodeForTests, claudePrint } from '../../helpers/claude-code.js';
import { PERL } from '../../helpers/hook-shell.js';
import { BIN, makeTeam } from '../../helpers/team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(!CLAUDE)('a planted FIFO and the plan gate (real binary)', () => {
  it('claude.real-binary-a-fifo-at-store-json-keeps-the-gate-shut', async () => {
    const t = await makeTeam(['bob'], { runtime: 'claude', planRequired: true });
    cleanups.push(t.cleanup);
    const root = (await t.store.config()).root;
    const { run, env } = await trustRoot(t.dir);
    const home = path.join(root, 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(home, '.claude.json'), JSON.stringify(demoClaudeJson(root)));
    const script = path.join(root, 'hooks');
    if (PERL) writeFileSync(script, perlHookScript(PERL, process.execPath, BIN), { mode: 0o700 });
    else process.stderr.write('NOTICE: no perl: the node PreToolUse form is tested instead of the Perl one\n');
    const settings = path.join(root, 'settings.json');
    writeFileSync(settings, JSON.stringify(claudeSettings({ member: 'bob', teamDir: t.dir, teamuxBin: BIN, node: process.execPath, permissionTimeout: 60, ...(PERL ? { perlHooks: { perl: PERL, file: script, sha256: scriptDigest(perlHookScript(PERL, process.execPath, BIN)) } } : {}) })));
    const pwned = path.join(root, 'PWNED_FIFO');
    const server = await startScriptedServer({
      scripts: {
        bob: {
          idle_reply: '(bob waits)',
          steps: [
            { when: { last_user_contains: 'go' }, reply: [{ tool_use: { name: 'Bash', input: { command: `touch ${pwned}`, description: 'Create the file' } } }] },
            { reply: [{ text: 'bob is done' }] },
          ],
        },
      } as never,
    });
    cleanups.push(() => server.close());
    // A teammate's shell plants it: every reader of the team folder used to block on it.
    execFileSync('mkfifo', [path.join(t.dir, 'store.json')]);

    const started = Date.now();
    const { out } = await claudePrint(CLAUDE!, 'go', {
      member: 'bob', root, home, settings, apiUrl: server.url, args: ['--allowedTools', 'Bash'],
      env: { TEAMUX_TEAM_DIR: t.dir, TEAMUX_TRUST_KEY: env.TEAMUX_TRUST_KEY!, TEAMUX_RUN: run, TEAMUX_PLAN_REQUIRED: '1' },
      onCleanup: (kill) => cleanups.push(kill),
    });
    expect(out).toContain('bob is done');
    const after = server.requests.find((r) => r.member === 'bob' && JSON.stringify(r.body).includes('tool_result'));
    expect(after, 'the request after the tool call').toBeDefined();
    const body = JSON.stringify(after!.body);
    expect(body).toContain('PreToolUse:Bash hook error');
    expect(body).toContain('store.json is not a regular file');
    expect(existsSync(pwned)).toBe(false);
    // Refused by the hook itself, not by Claude Code's 30 s timeout (which would have run the tool).
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 180_000);
});
