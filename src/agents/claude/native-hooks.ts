/**
 * The hooks of a Claude Code teammate spawned by a `native_teams` lead. Claude Code does not run a
 * teammate's PermissionRequest hook: it sends the request to its lead's pane instead. So teamux asks
 * from the teammate's PreToolUse hook, for the calls Claude Code would put to the lead in the
 * teammate's permission mode: the operator's answer (C-a a / C-a r) becomes the PreToolUse decision,
 * and after the timeout the hook steps aside and Claude Code's own route (the lead's prompt) takes
 * over. Pure decisions and answer texts; hook-run.ts does the waiting.
 */

/** Tools that ask in Claude Code's `default` mode (its read-only tools never do). */
const ASKING_TOOLS: ReadonlySet<string> = new Set(['Bash', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
/** In `acceptEdits` the edits are accepted; the rest still ask. */
const EDIT_TOOLS: ReadonlySet<string> = new Set(['Write', 'Edit', 'MultiEdit']);

/** True when a native teammate's call would need permission, so teamux asks the operator first. */
export function nativeNeedsPermission(tool: string, permissionMode: string | undefined): boolean {
  if (!ASKING_TOOLS.has(tool)) return false;
  if (permissionMode === 'default' || permissionMode === undefined) return true;
  if (permissionMode === 'acceptEdits') return !EDIT_TOOLS.has(tool);
  // bypassPermissions, dontAsk, plan, auto: Claude Code decides without asking anyone.
  return false;
}

/** The PreToolUse answer for the operator's decision on a native teammate's call. */
export function nativePermissionDecision(allow: boolean, feedback: string): string {
  const reason = allow ? 'allowed by the operator at the teamux screen' : feedback ? `denied by the operator: ${feedback}` : 'denied by the operator';
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: allow ? 'allow' : 'deny', permissionDecisionReason: reason } });
}
