/**
 * The plan gate's allowlist (src/agents/claude/tool-gate.ts), one rule in every form that decides by it: the
 * full PreToolUse hook (hook-run.ts, run in this process over the team's store; and through the CLI,
 * bin/teamux, for a few names), its one-file CommonJS entry (dist/agents/claude/stop-fast.cjs, the rule
 * bundled in) and its Perl form (the table written into the script). Each runs over every tool
 * name: Claude Code 2.1.328's own, the allowlist's, names no version has, and names that are not
 * strings. For a plan-gated member with no plan, the fast forms answer alone exactly the tools the
 * rule lets through (each fast form is run with no CLI behind it, so a fallback fails), and the full
 * hook refuses exactly the others.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { scriptDigest } from '../../../src/store/exec-folder.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookInput } from '../../../src/agents/claude/hook-answers.js';
import { hookCommand, stopHookEntry } from '../../../src/agents/claude/launch.js';
import { perlHookScript } from '../../../src/agents/claude/hook-perl.js';
import { runHook as runFullHook } from '../../../src/agents/claude/hook-run.js';
import { CLAUDE_READ_ONLY_TOOLS, claudeToolGated } from '../../../src/agents/claude/tool-gate.js';
import { SERVER_NAME } from '../../../src/mcp/tools.js';
import { PERL, runHook } from '../../helpers/hook-shell.js';
import { BIN, makeTeam } from '../../helpers/team.js';

/** The CommonJS entry as the build left it (bundled with the rule). */
const entry = createRequire(import.meta.url)(stopHookEntry(BIN)) as { noGateApplies: (dir: string, member: string, input: string, env: NodeJS.ProcessEnv) => boolean };

/** Claude Code 2.1.328's tools, as its requests list them (`tools`, the deferred ones, AskUserQuestion interactive). */
const CLAUDE_CODE_TOOLS = [
  'Agent', 'AskUserQuestion', 'Bash', 'CronCreate', 'CronDelete', 'CronList', 'DeferredToolPlaceholder', 'Edit', 'EnterWorktree', 'ExitWorktree', 'ListAgents',
  'Monitor', 'NotebookEdit', 'Read', 'ReportFindings', 'ScheduleWakeup', 'SendMessage', 'Skill', 'TaskStop', 'ToolSearch', 'WebFetch', 'WebSearch', 'Workflow', 'Write',
];
/** Names no Claude Code has, or that look like an allowed one. */
const OTHER_NAMES = ['FutureTool', 'MultiEdit', 'PowerShell', '', 'read', 'Read ', ' Read', 'mcp__teamux__submit_plan', 'mcp__teamux__task_list', 'mcp__teamux', 'mcp__other__run', 'mcp__other__mcp__teamux__x', '__proto__', 'toString', 'Réad'];
const ALL = [...new Set([...CLAUDE_CODE_TOOLS, ...CLAUDE_READ_ONLY_TOOLS.names, ...OTHER_NAMES])];

let team: Awaited<ReturnType<typeof makeTeam>>;
let forms: { full: string; cjs: string; perl: string | null };
beforeAll(async () => {
  team = await makeTeam(['amy'], { runtime: 'claude', planRequired: true });
  const ctx = { member: 'amy', teamDir: team.dir, teamuxBin: BIN, node: process.execPath, permissionTimeout: 60 };
  // The CommonJS entry alone, with no dist/cli/main.js beside it; the Perl form with a node that does not exist.
  const alone = path.join(team.dir, '..', 'alone', 'dist', 'agents', 'claude');
  mkdirSync(alone, { recursive: true });
  copyFileSync(stopHookEntry(BIN), path.join(alone, 'stop-fast.cjs'));
  const cjs = hookCommand(ctx, 'PreToolUse');
  const script = path.join(team.dir, '..', 'hooks-fast-only');
  if (PERL) writeFileSync(script, perlHookScript(PERL, '/nonexistent/node', BIN), { mode: 0o700 });
  forms = {
    full: `${process.execPath} ${BIN} hook PreToolUse --as amy --team-dir ${team.dir}`,
    cjs: cjs.replace(stopHookEntry(BIN), path.join(alone, 'stop-fast.cjs')),
    perl: PERL ? hookCommand({ ...ctx, perlHooks: { perl: PERL, file: script, sha256: scriptDigest(perlHookScript(PERL, '/nonexistent/node', BIN)) } }, 'PreToolUse') : null,
  };
});
afterAll(async () => team?.cleanup());

/** The hook's input for a call of `tool` (a tool name that is not a string, as given). */
const call = (tool: unknown): string => JSON.stringify({ session_id: 's', transcript_path: '/nonexistent', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: {} });
/** Answered at once with no objection: exit 0 and nothing printed. */
const answeredAlone = (r: { code: number; out: string }): boolean => r.code === 0 && r.out === '';
const refused = (r: { code: number; out: string }): boolean => r.code === 0 && (JSON.parse(r.out || '{}') as { hookSpecificOutput?: { permissionDecision?: string } }).hookSpecificOutput?.permissionDecision === 'deny';

/** The full hook in this process, as `teamux hook PreToolUse --as amy` runs it. */
async function inProcess(input: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io = { out: async (t: string) => void (out += `${t}\n`), err: (t: string) => void (err += `${t}\n`) };
  const code = await runFullHook(team.store, { event: 'PreToolUse', member: 'amy', input: JSON.parse(input) as HookInput, permissionTimeoutMs: 60_000 }, io);
  return { code, out, err };
}

/** Run `run` over every input, a few at a time. */
async function each<T>(inputs: readonly T[], run: (input: T) => Promise<string>): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < inputs.length; i += 4) out.push(...(await Promise.all(inputs.slice(i, i + 4).map(run))));
  return out;
}

describe('the plan gate allows a list, and every form of the hook holds to it', () => {
  it('claude.tool-gate-is-an-allowlist-so-unknown-and-new-tools-are-gated', () => {
    for (const tool of ['Bash', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Monitor', 'EnterWorktree', 'ExitWorktree', 'CronCreate', 'Agent', 'Skill', 'FutureTool', '', 'mcp__other__run', 'read']) expect(claudeToolGated(tool), tool).toBe(true);
    for (const tool of ['Read', 'WebFetch', 'ToolSearch', 'AskUserQuestion', 'mcp__teamux__submit_plan']) expect(claudeToolGated(tool), tool).toBe(false);
    // teamux's own MCP tools are named after the server teamux's MCP config declares.
    expect(CLAUDE_READ_ONLY_TOOLS.prefixes).toEqual([`mcp__${SERVER_NAME}__`]);
  });

  it('claude.tool-gate-the-full-hook-the-commonjs-entry-and-the-perl-form-agree-on-every-tool', async () => {
    const expected = ALL.map((tool) => `${tool}: ${claudeToolGated(tool) ? 'gated' : 'allowed'}`);
    const full = (r: { code: number; out: string; err: string }, tool: string): string => `${tool}: ${refused(r) ? 'gated' : answeredAlone(r) ? 'allowed' : `exit ${r.code} ${r.out}${r.err}`}`;
    expect(await each(ALL, async (tool) => full(await inProcess(call(tool)), tool)), 'the full hook').toEqual(expected);
    const some = ['Read', 'Monitor', 'FutureTool', 'mcp__teamux__submit_plan'];
    expect(await each(some, async (tool) => full(await runHook(forms.full, call(tool)), tool)), 'the CLI').toEqual(some.map((tool) => expected[ALL.indexOf(tool)]));
    // The CommonJS entry as built: its rule over every name in this process, and run as the hook for a few.
    expect(ALL.map((tool) => `${tool}: ${entry.noGateApplies(team.dir, 'amy', call(tool), {}) ? 'allowed' : 'gated'}`), 'the CommonJS entry').toEqual(expected);
    const fast = (command: string, names: readonly string[]) => each(names, async (tool) => `${tool}: ${answeredAlone(await runHook(command, call(tool))) ? 'allowed' : 'gated'}`);
    expect(await fast(forms.cjs, some), 'the CommonJS entry run as the hook').toEqual(some.map((tool) => expected[ALL.indexOf(tool)]));
    if (!forms.perl) return void process.stderr.write('  NOTICE: no perl: the Perl form of the plan gate was not compared (SKIPPED)\n');
    expect(await fast(forms.perl, ALL), 'the Perl form').toEqual(expected);
  });

  it('claude.tool-gate-a-tool-name-that-is-not-a-string-is-gated-in-every-form', async () => {
    const odd = [5, true, { name: 'Read' }, ['Read'], null];
    const commands = Object.entries(forms).filter((e): e is [string, string] => e[1] !== null);
    for (const [form, command] of commands) {
      const results = await each(odd, async (tool) => {
        if (form === 'cjs') return `${JSON.stringify(tool)}: ${entry.noGateApplies(team.dir, 'amy', call(tool), {}) ? 'allowed' : 'gated'}`;
        const r = form === 'full' ? await inProcess(call(tool)) : await runHook(command, call(tool));
        return `${JSON.stringify(tool)}: ${form === 'full' ? (refused(r) ? 'gated' : `exit ${r.code} ${r.out}${r.err}`) : answeredAlone(r) ? 'allowed' : 'gated'}`;
      });
      expect(results, form).toEqual(odd.map((tool) => `${JSON.stringify(tool)}: gated`));
    }
    // No tool_name at all.
    const none = JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_input: {} });
    for (const [form, command] of commands) expect(form === 'full' ? refused(await runHook(command, none)) : !answeredAlone(await runHook(command, none)), form).toBe(true);
  });
});
