// Issue 26, attack 2, with the real Claude Code binary in a private tmux server: the PreToolUse hook
// is the plan gate of every Claude Code member, and it used to be a file in the team folder
// (claude/bin/hooks) that a teammate rewrote to answer "no objection", so a gated member with no plan
// ran `touch PWNED_HOOK`. Now the script lives in the screen's exec folder, outside the team folder,
// and Claude Code runs it only through a loader that checks its digest first (src/claude/exec-check.ts):
// rewritten, it is refused, the tool does not run, and the model is told why.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeHookScript } from '../../../src/store/claude.js';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { approvingLeadLayout, approvingLeadScripts, bodyText, startClaudeTeam } from './tmux-team.js';

const CLAUDE = claudeCodeForTests();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(!CLAUDE || !existsSync('/usr/bin/perl'))('a rewritten hook script is not run (real binary, e2e in tmux)', () => {
  it('attack2.a-teammate-rewrites-the-pretooluse-hook-to-allow-and-the-gated-member-still-cannot-run-bash', async () => {
    const scripts = approvingLeadScripts(() => [
      { when: { last_user_contains: 'touch it' }, reply: [{ tool_use: { name: 'Bash', input: { command: 'touch PWNED_HOOK', description: 'touch' } } }] },
      { reply: [{ text: 'done.' }] },
    ]);
    const { root, store, server, idle, say } = await startClaudeTeam(CLAUDE!, 'cct', approvingLeadLayout('cct'), scripts, cleanups);
    await Promise.all([idle('lead'), idle('amy')]);
    const hooks = claudeHookScript(store.paths);
    expect(hooks.startsWith(store.dir)).toBe(false);
    expect(readFileSync(hooks, 'utf8')).toContain('PreToolUse');
    // The teammate's shell (same user) rewrites the gate to say nothing, which Claude Code takes as "go on".
    chmodSync(path.dirname(hooks), 0o700);
    writeFileSync(hooks, '#!/usr/bin/perl\nexit 0;\n');
    await say('lead', 'amy', 'touch it');
    const denied = await server.waitForRequest((r) => r.member === 'amy' && bodyText(r).includes('is not the script teamux wrote'), 60_000);
    expect(bodyText(denied)).toContain('is_error');
    expect(existsSync(path.join(root, 'PWNED_HOOK'))).toBe(false);
  }, 240_000);
});
