/**
 * Reading Claude Code's input box off its pane's screen, and deciding whether a message may be typed
 * into the pane now: pure functions of the screen's text rows, the time, and when the operator last
 * typed there. Claude Code 2.1.328 draws its input box as a full-width rule of `─`, the prompt line
 * `❯` + a no-break space + the text, continuation lines indented two spaces, and another rule; the
 * lowest such box is the live one (earlier prompts stay in the history with `❯` but no rules around
 * them). A paste into a box that holds the operator's half-typed text would join it, so the wake
 * waits until the box is empty and the operator has not typed into the pane for a while.
 */

/** What the input box holds: nothing, some text, or it cannot be seen (scrolled back, a dialog). */
export type PromptBox = { kind: 'empty' } | { kind: 'text'; text: string } | { kind: 'unknown' };

/** How long the operator must not have typed into a pane before a message is typed into it. */
export const OPERATOR_QUIET_MS = 3_000;

/** How often a deferred wake looks again while the box holds the operator's text. */
export const DEFERRED_RETRY_MS = 1_000;

const RULE = /^─{8,}$/;
const PROMPT = /^❯(?:[ \u00a0]|$)/;

/** Claude Code's input box on a screen (its visible rows, right-trimmed). */
export function readPromptBox(rows: readonly string[]): PromptBox {
  for (let y = rows.length - 1; y > 0; y--) {
    if (!PROMPT.test(rows[y]!) || !RULE.test(rows[y - 1]!.trim())) continue;
    const lines = [rows[y]!.slice(1)];
    for (let z = y + 1; z < rows.length; z++) {
      if (RULE.test(rows[z]!.trim())) {
        const text = lines.map((l) => l.replace(/^[ \u00a0]+|[ \u00a0]+$/g, '')).filter(Boolean).join('\n');
        return text ? { kind: 'text', text } : { kind: 'empty' };
      }
      lines.push(rows[z]!);
    }
    // No closing rule below: the box is cut off (the pane is scrolled or too short).
    return { kind: 'unknown' };
  }
  return { kind: 'unknown' };
}

/** Whether to type into the pane now, or when to look again and why not. */
export type WakeGate = { now: true } | { now: false; retryInMs: number; why: string };

/**
 * May a message be typed into an idle Claude pane now (`readBox` reads another CLI's input line;
 * `unseenIsEmpty` false: an input line that cannot be seen is waited for)? Not within OPERATOR_QUIET_MS of the operator's
 * last key into it, and not while its input box holds text (the operator's draft: it goes in with
 * their own Enter, and the Stop hook then hands the messages over). A box that cannot be read counts
 * as empty once the operator has been quiet.
 */
export function wakeGate(now: number, lastTypedAt: number, rows: readonly string[] | null, quietMs = OPERATOR_QUIET_MS, readBox: (rows: readonly string[]) => PromptBox = readPromptBox, unseenIsEmpty = true): WakeGate {
  const quietFor = now - lastTypedAt;
  if (lastTypedAt > 0 && quietFor < quietMs) return { now: false, retryInMs: quietMs - quietFor, why: 'the operator is typing in its pane' };
  const box = rows ? readBox(rows) : { kind: 'unknown' as const };
  if (box.kind === 'text') return { now: false, retryInMs: DEFERRED_RETRY_MS, why: 'its input line holds text not yet sent' };
  if (box.kind === 'unknown' && !unseenIsEmpty) return { now: false, retryInMs: DEFERRED_RETRY_MS, why: 'its input line is not on screen' };
  return { now: true };
}
