/**
 * The StatusLine and PreToolUse hooks as Claude Code runs them when Perl is there (src/agents/claude/hook-perl.ts).
 * The status line records the same cost, tokens and model as the node hook and prints the same line,
 * reading the transcript on from where it stopped. PreToolUse answers a tool no gate concerns by
 * itself (the script is written with a node that does not exist, so any fallback would fail), and
 * hands a gated tool of a plan-gated member, or any tool once team.json has a budget, to the node
 * hook, which refuses it.
 */
import { appendFileSync, chmodSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeSettings, hookCommand, type ClaudeMemberContext, type PerlScript } from '../../../src/agents/claude/launch.js';
import { verifiedPerl } from '../../../src/agents/claude/exec-check.js';
import { shellQuote } from '../../../src/host/tmux/quote.js';
import { scriptDigest } from '../../../src/store/exec-folder.js';
import { perlHookScript } from '../../../src/agents/claude/hook-perl.js';
import { readClaudeActivity, swapClaudeBudget } from '../../../src/store/claude.js';
import { withLock } from '../../../src/store/lock.js';
import { PERL, runHook } from '../../helpers/hook-shell.js';
import { BIN, makeTeam } from '../../helpers/team.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => cleanup?.());


/** One assistant response as Claude Code records it (a response may be written as several lines with one id). */
const response = (id: string, input: number, output: number, model = 'claude-sonnet-5'): string =>
  `${JSON.stringify({ type: 'assistant', requestId: `req-${id}`, message: { id, model, role: 'assistant', content: [{ type: 'text', text: 'a "usage" word in text' }], usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: 10, cache_creation_input_tokens: 1 } } })}\n`;

describe.skipIf(!PERL)('the Perl StatusLine and PreToolUse hooks', () => {
  it('claude.hook-perl-status-line-records-and-prints-what-the-node-hook-does-reading-the-transcript-on', async () => {
    const t = await makeTeam(['amy', 'bob'], { runtime: 'claude' });
    cleanup = t.cleanup;
    const script = path.join(t.dir, '..', 'hooks');
    writeFileSync(script, perlHookScript(PERL, process.execPath, BIN));
    chmodSync(script, 0o700);
    const hooks = { perl: PERL, file: script, sha256: scriptDigest(perlHookScript(PERL, process.execPath, BIN)) };
    const ctx = (member: string, perl: boolean): ClaudeMemberContext => ({ member, teamDir: t.dir, teamuxBin: BIN, node: process.execPath, permissionTimeout: 60, ...(perl ? { perlHooks: hooks } : {}) });
    expect(hookCommand(ctx('amy', true), 'StatusLine')).toBe(`${verifiedPerl(PERL, hooks, 1).map(shellQuote).join(' ')} hook StatusLine --as amy --team-dir ${t.dir}`);
    expect((claudeSettings(ctx('amy', true)).statusLine as { command: string }).command).toBe(hookCommand(ctx('amy', true), 'StatusLine'));
    const transcript = path.join(t.dir, '..', 'transcript.jsonl');
    writeFileSync(transcript, response('m1', 100, 20) + response('m1', 100, 20) + '{"type":"user","message":{"content":"hi"}}\n' + response('m2', 5, 7));
    const input = JSON.stringify({ session_id: 's', transcript_path: transcript, cost: { total_cost_usd: 0.125 }, model: { id: 'claude-sonnet-5', display_name: 'Sonnet' } });

    // amy through Perl, bob through node: the same record and the same line.
    const perl = await runHook(hookCommand(ctx('amy', true), 'StatusLine'), input);
    const node = await runHook(hookCommand(ctx('bob', false), 'StatusLine'), input);
    expect(perl.err).toBe('');
    expect(perl.out).toBe(node.out.replace('teamux bob', 'teamux amy'));
    expect(perl.out).toBe('teamux amy · starting · 154 tokens · $0.13\n');
    const pick = (a: Awaited<ReturnType<typeof readClaudeActivity>>) => ({ state: a?.state, costUsd: a?.costUsd, tokens: a?.tokens, model: a?.model, budget: a?.budget });
    expect(pick(await readClaudeActivity(t.store.paths, 'amy'))).toEqual(pick(await readClaudeActivity(t.store.paths, 'bob')));
    expect((await readClaudeActivity(t.store.paths, 'amy'))?.tokens).toEqual({ input: 127, output: 27 });

    // More of the transcript (a repeated line of m2, a half-written last line): read on, counted once.
    appendFileSync(transcript, response('m2', 5, 7) + response('m3', 1000, 300, 'claude-opus-5').trimEnd());
    const again = JSON.stringify({ session_id: 's', transcript_path: transcript, cost: { total_cost_usd: 2 } });
    expect((await runHook(hookCommand(ctx('amy', true), 'StatusLine'), again)).out).toBe('teamux amy · starting · 154 tokens · $2.00\n');
    appendFileSync(transcript, '\n');
    await swapClaudeBudget(t.store.paths, 'amy', "amy's budget is spent");
    expect((await runHook(hookCommand(ctx('amy', true), 'StatusLine'), again)).out).toBe('teamux amy · starting (budget spent) · 1465 tokens · $2.00\n');
    expect(await runHook(hookCommand(ctx('bob', false), 'StatusLine'), again)).toMatchObject({ out: 'teamux bob · starting · 1465 tokens · $2.00\n' });
    expect(pick(await readClaudeActivity(t.store.paths, 'amy'))).toEqual({ ...pick(await readClaudeActivity(t.store.paths, 'bob')), budget: "amy's budget is spent" });
    expect((await readClaudeActivity(t.store.paths, 'amy'))?.model).toBe('claude-opus-5');

    // Garbage and a stranger: the full hook says what is wrong.
    const garbage = await runHook(hookCommand(ctx('amy', true), 'StatusLine'), 'not json');
    expect(garbage.code).not.toBe(0);
    expect(garbage.err).toContain('hook input is not JSON');
    const stranger = await runHook(hookCommand(ctx('zed', true), 'StatusLine'), input);
    expect(stranger.code).not.toBe(0);
    expect(stranger.err).toMatch(/zed/);
  });

  it('claude.hook-perl-pre-tool-use-answers-ungated-tools-alone-and-hands-gated-ones-and-budgets-to-node', async () => {
    const t = await makeTeam(['amy'], { runtime: 'claude', planRequired: true });
    cleanup = t.cleanup;
    // The fast path with a node that does not exist: an answer proves it answered by itself.
    const fastOnly = path.join(t.dir, '..', 'hooks-fast-only');
    writeFileSync(fastOnly, perlHookScript(PERL, '/nonexistent/node', BIN));
    const script = path.join(t.dir, '..', 'hooks');
    writeFileSync(script, perlHookScript(PERL, process.execPath, BIN));
    chmodSync(fastOnly, 0o700);
    chmodSync(script, 0o700);
    const scripts = new Map([[fastOnly, perlHookScript(PERL, '/nonexistent/node', BIN)], [script, perlHookScript(PERL, process.execPath, BIN)]]);
    const perlOf = (file: string): PerlScript => ({ perl: PERL, file, sha256: scriptDigest(scripts.get(file)!) });
    const ctx = (file: string): ClaudeMemberContext => ({ member: 'amy', teamDir: t.dir, teamuxBin: BIN, node: process.execPath, permissionTimeout: 60, perlHooks: perlOf(file) });
    const settings = claudeSettings(ctx(script)) as { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>> };
    expect(settings.hooks.PreToolUse![0]!.matcher).toBe('*');
    expect(settings.hooks.PreToolUse![0]!.hooks[0]!.command).toBe(`${verifiedPerl(PERL, perlOf(script), 2).map(shellQuote).join(' ')} hook PreToolUse --as amy --team-dir ${t.dir}`);
    const tool = (name: string, transcript = '/nonexistent'): string => JSON.stringify({ session_id: 's', transcript_path: transcript, tool_name: name, tool_input: { file_path: '/tmp/x' } });

    // No budget, a tool no gate concerns: no objection, from Perl alone.
    expect(await runHook(hookCommand(ctx(fastOnly), 'PreToolUse'), tool('Read'))).toEqual({ code: 0, out: '', err: '' });
    expect(await runHook(hookCommand(ctx(fastOnly), 'PreToolUse'), tool('mcp__teamux__task_list'))).toEqual({ code: 0, out: '', err: '' });
    // A gated tool goes to the node hook: the plan gate refuses Write.
    expect((await runHook(hookCommand(ctx(fastOnly), 'PreToolUse'), tool('Write'))).code).not.toBe(0);
    const write = await runHook(hookCommand(ctx(script), 'PreToolUse'), tool('Write'));
    expect(JSON.parse(write.out).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('blocked: plan status is not_submitted') });
    // Without a plan requirement no gate concerns Write either: Perl alone; unless the environment
    // Claude Code was started with requires a plan (a team.json edit cannot lift that).
    const cfg0 = await t.store.config();
    await t.store.writeConfig({ ...cfg0, members: cfg0.members.map((m) => (m.name === 'amy' ? { ...m, planRequired: false } : m)) });
    expect(await runHook(hookCommand(ctx(fastOnly), 'PreToolUse'), tool('Write'))).toEqual({ code: 0, out: '', err: '' });
    const required = await runHook(`TEAMUX_PLAN_REQUIRED=1 ${hookCommand(ctx(script), 'PreToolUse')}`, tool('Write'));
    expect(JSON.parse(required.out).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });

    // A budget added to team.json after launch: Read goes to the node hook, which refuses it once spent.
    const transcript = path.join(t.dir, '..', 'transcript.jsonl');
    writeFileSync(transcript, response('m1', 4000, 500));
    const cfg = await t.store.config();
    await t.store.writeConfig({ ...cfg, members: cfg.members.map((m) => (m.name === 'amy' ? { ...m, budget: { tokens: 1000, usd: null, windowS: 3600 } } : m)) });
    expect((await runHook(hookCommand(ctx(fastOnly), 'PreToolUse'), tool('Read', transcript))).code).not.toBe(0);
    const read = await runHook(hookCommand(ctx(script), 'PreToolUse'), tool('Read', transcript));
    expect(JSON.parse(read.out).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('blocked: budget spent') });
  });

  it('claude.hook-perl-status-line-keeps-out-of-a-lock-that-node-holds', async () => {
    const t = await makeTeam(['amy'], { runtime: 'claude' });
    cleanup = t.cleanup;
    const script = path.join(t.dir, '..', 'hooks');
    const text = perlHookScript(PERL, '/nonexistent/node', BIN);
    writeFileSync(script, text, { mode: 0o700 });
    const command = hookCommand({ member: 'amy', teamDir: t.dir, teamuxBin: BIN, node: process.execPath, permissionTimeout: 60, perlHooks: { perl: PERL, file: script, sha256: scriptDigest(text) } }, 'StatusLine');
    const costing = (usd: number): string => JSON.stringify({ session_id: 's', cost: { total_cost_usd: usd } });
    expect((await runHook(command, costing(1))).out).toBe('teamux amy · starting · $1.00\n');
    // The activity record's lock held by node (proper-lockfile, kept fresh past the stale time): the
    // Perl status line records nothing and shows the record as it is; once released, it records again.
    await withLock(path.join(t.dir, 'claude', 'amy.activity.json'), async () => {
      expect((await runHook(command, costing(2))).out).toBe('teamux amy · starting · $1.00\n');
    });
    expect((await runHook(command, costing(3))).out).toBe('teamux amy · starting · $3.00\n');
    expect((await readClaudeActivity(t.store.paths, 'amy'))?.costUsd).toBe(3);
  });
});
