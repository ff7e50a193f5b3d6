/**
 * Reading Codex CLI's composer off its pane's screen (0.171.0), for the wake that types messages into
 * an idle member (app/claude-wake.ts): the composer is the lowest row starting `› ` at the left edge
 * (earlier prompts stay in the history with the same mark, higher up), its continuation rows
 * indented two spaces, ending at a blank row (the status footer follows). An empty composer shows a
 * dim placeholder, which plain text cannot tell from typed text, so the placeholders Codex ships are
 * known by their words.
 */
import type { PromptBox } from '../claude/prompt-box.js';

/** The placeholders an empty Codex composer shows. */
export const CODEX_PLACEHOLDERS: ReadonlySet<string> = new Set(['Ask Codex to do anything', 'Ask a follow-up question']);

const PROMPT = /^› ?/;

/** Codex's composer on a screen (its visible rows, right-trimmed). */
export function readCodexPromptBox(rows: readonly string[]): PromptBox {
  for (let y = rows.length - 1; y >= 0; y--) {
    if (!PROMPT.test(rows[y]!)) continue;
    const lines = [rows[y]!.replace(PROMPT, '')];
    for (let z = y + 1; z < rows.length && rows[z]!.trim() !== ''; z++) lines.push(rows[z]!);
    const text = lines.map((l) => l.trim()).filter(Boolean).join('\n');
    if (text === '' || CODEX_PLACEHOLDERS.has(text)) return { kind: 'empty' };
    return { kind: 'text', text };
  }
  return { kind: 'unknown' };
}
