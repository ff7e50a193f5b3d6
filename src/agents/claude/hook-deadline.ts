/**
 * How long Claude Code lets a hook run, and the earlier deadline by which teamux's PreToolUse hook
 * has answered on its own. Claude Code runs the tool when a PreToolUse hook times out (or is killed,
 * or exits with anything but 2), so a hook held up by anything (a lock that never frees, a slow disk,
 * a planted file) must refuse the tool itself first: on its deadline it prints why and exits 2.
 */

/** The `timeout` (seconds) of teamux's hooks in Claude Code's settings (launch.ts). */
export const HOOK_TIMEOUT_S = 30;

/** A PreToolUse hook that has not answered by then refuses the tool (well under HOOK_TIMEOUT_S). */
export const PRE_TOOL_DEADLINE_S = 10;

/**
 * The deadline of one PreToolUse run: PRE_TOOL_DEADLINE_S after any permission wait it makes.
 * TEAMUX_HOOK_DEADLINE_MS can only make it shorter (a refusal sooner), never longer.
 */
export function preToolDeadlineMs(permissionWaitMs: number, env: NodeJS.ProcessEnv): number {
  const full = permissionWaitMs + PRE_TOOL_DEADLINE_S * 1000;
  const asked = Number(env.TEAMUX_HOOK_DEADLINE_MS);
  return Number.isFinite(asked) && asked > 0 ? Math.min(asked, full) : full;
}

/** The refusal printed on the deadline (stderr; exit 2 blocks the tool). */
export function deadlineRefusal(seconds: number): string {
  return `teamux: the plan gate could not decide within ${seconds}s, so this tool call is refused; hint: see teamux.log in the team folder, or try again`;
}

/**
 * Refuse the tool once `ms` have passed (exit 2), whatever the hook is still waiting on. Returns the
 * disarm function. The timer does not keep the process alive.
 */
export function armPreToolDeadline(ms: number, err: (text: string) => void = (t) => process.stderr.write(`${t}\n`)): () => void {
  const timer = setTimeout(() => {
    err(deadlineRefusal(Math.round(ms / 1000)));
    process.exit(2);
  }, ms);
  timer.unref();
  return () => clearTimeout(timer);
}
