/**
 * Which of an agent CLI's tools may run before a member's required plan is approved: an allowlist
 * of the tools that only read (files, the web) or only talk (to the person, to the team through
 * teamux's own MCP tools), by exact name or by the start of a name. Every other tool, one that a new
 * version of the CLI adds included, is gated until someone puts it on the list. Each agent CLI keeps
 * its list beside its hooks (agents/claude/tool-gate.ts); the fast forms of a hook (a bundled CommonJS
 * entry, a generated Perl script) are built from that same list, so there is one rule to change.
 * Imports nothing: a one-file hook bundles it.
 */

/** The tools of one agent CLI that need no approved plan. */
export interface ReadOnlyTools {
  /** Exact tool names. */
  readonly names: readonly string[];
  /** Name prefixes (an MCP server's tools: `mcp__<server>__`). */
  readonly prefixes: readonly string[];
}

/** True when `tool` waits for an approved plan: it is not on the CLI's read-only list. */
export function gatedBeforePlan(tools: ReadOnlyTools, tool: string): boolean {
  return !tools.names.includes(tool) && !tools.prefixes.some((p) => tool.startsWith(p));
}
