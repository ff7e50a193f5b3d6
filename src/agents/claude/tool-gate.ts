/**
 * Claude Code's tools that run before a member's required plan is approved (the plan gate's
 * allowlist, protocol/read-only-tools.ts): they read files or the web, list things, or talk to the
 * person or the team. Everything else waits for the approval: Bash, Write, Edit, NotebookEdit,
 * Monitor (runs a shell command), CronCreate (a prompt run later), EnterWorktree, Agent, Skill,
 * Workflow, another MCP server's tools, and any tool a newer Claude Code adds. The names are those
 * of Claude Code 2.1.328's tools (its `tools` list and its deferred tools, seen in its requests),
 * plus read-only tools of other versions (Glob, Grep, LS, NotebookRead, TodoWrite).
 * The full PreToolUse hook (hook-run.ts), its one-file CommonJS entry (stop-fast.cts, bundled with
 * this file) and its Perl form (hook-perl.ts, the table written into the script) all decide by it.
 */
import { gatedBeforePlan, type ReadOnlyTools } from '../../protocol/read-only-tools.js';

/** The tools a plan-gated Claude Code member may use before its plan is approved. */
export const CLAUDE_READ_ONLY_TOOLS: ReadOnlyTools = {
  names: [
    // Read files.
    'Read', 'Glob', 'Grep', 'LS', 'NotebookRead',
    // Read the web.
    'WebFetch', 'WebSearch',
    // Load a deferred tool's schema; list agents, scheduled prompts.
    'ToolSearch', 'ListAgents', 'CronList',
    // Talk: ask the person, keep its own to-do list, report review findings to its UI.
    'AskUserQuestion', 'TodoWrite', 'ReportFindings',
  ],
  // teamux's own MCP tools (mcp/tools.ts SERVER_NAME): the team protocol, submit_plan among them, each
  // checked by the op it runs.
  prefixes: ['mcp__teamux__'],
};

/** True when Claude Code's `tool` waits for an approved plan. */
export function claudeToolGated(tool: string): boolean {
  return gatedBeforePlan(CLAUDE_READ_ONLY_TOOLS, tool);
}
