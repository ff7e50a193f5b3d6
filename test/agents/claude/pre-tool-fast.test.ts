/**
 * PreToolUse without Perl: the Stop hook's one-file CommonJS entry answers a tool no gate concerns by
 * itself (a copy of the entry with no CLI beside it proves it: its fallback would fail), and hands a
 * gated tool of a plan-gated member, or any tool once team.json has a budget, to the full CLI.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookCommand, stopHookEntry } from '../../../src/agents/claude/launch.js';
import { runHook } from '../../helpers/hook-shell.js';
import { BIN, makeTeam } from '../../helpers/team.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => cleanup?.());


describe('PreToolUse without Perl', () => {
  it('claude.pre-tool-fast-the-commonjs-entry-answers-ungated-tools-and-hands-the-rest-to-the-cli', async () => {
    const t = await makeTeam(['amy'], { runtime: 'claude', planRequired: true });
    cleanup = t.cleanup;
    const command = hookCommand({ member: 'amy', teamDir: t.dir, teamuxBin: BIN, node: process.execPath, permissionTimeout: 60 }, 'PreToolUse');
    expect(command).toBe(`${process.execPath} ${stopHookEntry(BIN)} hook PreToolUse --as amy --team-dir ${t.dir}`);
    // The entry alone, with no dist/cli/main.js beside it.
    const alone = path.join(t.dir, '..', 'alone', 'dist', 'agents', 'claude');
    mkdirSync(alone, { recursive: true });
    copyFileSync(stopHookEntry(BIN), path.join(alone, 'stop-fast.cjs'));
    const fastOnly = command.replace(stopHookEntry(BIN), path.join(alone, 'stop-fast.cjs'));
    const tool = (name: string): string => JSON.stringify({ session_id: 's', transcript_path: '/nonexistent', tool_name: name, tool_input: {} });

    expect(await runHook(fastOnly, tool('Read'))).toEqual({ code: 0, out: '', err: '' });
    expect((await runHook(fastOnly, tool('Write'))).code).not.toBe(0);
    const write = await runHook(command, tool('Write'));
    expect(JSON.parse(write.out).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('blocked: plan status is not_submitted') });
    const garbage = await runHook(command, 'not json');
    expect(garbage.code).toBe(2);
    expect(garbage.err).toContain('hook input is not JSON');

    // A budget in team.json: Read goes to the full CLI too.
    const cfg = await t.store.config();
    await t.store.writeConfig({ ...cfg, budget: { tokens: 1000, usd: null, windowS: 3600 } });
    expect((await runHook(fastOnly, tool('Read'))).code).not.toBe(0);
    expect(await runHook(command, tool('Read'))).toMatchObject({ code: 0, out: '' });
  });
});
