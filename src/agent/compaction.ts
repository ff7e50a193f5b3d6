/**
 * Compaction: when the context the API reports grows past a threshold, the older turns are
 * summarised by one model call and replaced by that summary, with the identity block injected again.
 * These are the pure parts — when to compact, where to cut, what to ask and what to keep. The cut
 * keeps the last few assistant turns verbatim and always starts the kept tail at an assistant turn,
 * so tool_use and tool_result pairs stay together and roles keep alternating.
 */
import { appendUser, type Turn } from './conversation.js';

/** The instruction appended to the older turns to get their summary. */
export const SUMMARY_INSTRUCTION =
  'Summarise the conversation so far for your own later use: the goal, what has been done (files, tasks, decisions), what is in progress, open questions, and anything teammates asked of you. Be specific and brief. Reply with the summary only.';

/** True when the last reported context size is past the threshold. */
export function shouldCompact(contextTokens: number, threshold: number): boolean {
  return contextTokens > threshold;
}

/** Where to cut: the turns to summarise and the tail to keep; null when there is too little to summarise. */
export function splitForCompaction(conv: readonly Turn[], keep: number): { older: Turn[]; tail: Turn[] } | null {
  const assistants = conv.flatMap((t, i) => (t.role === 'assistant' ? [i] : []));
  if (assistants.length <= keep) return null;
  const cut = assistants[assistants.length - Math.max(1, keep)]!;
  const older = conv.slice(0, cut);
  if (older.length === 0 || older[older.length - 1]!.role !== 'user') return null;
  return { older, tail: conv.slice(cut) };
}

/** The messages of the summary request: the older turns with the instruction added to the last one. */
export function summaryRequest(older: readonly Turn[]): Turn[] {
  return appendUser(older, [{ type: 'text', text: SUMMARY_INSTRUCTION }]);
}

/** The compacted conversation: identity and summary as the first user turn, then the kept tail. */
export function compacted(identity: string, summary: string, tail: readonly Turn[]): Turn[] {
  const head: Turn = {
    role: 'user',
    content: [{ type: 'text', text: `<identity>\n${identity}\n</identity>\n\n<summary_of_earlier_conversation>\n${summary}\n</summary_of_earlier_conversation>` }],
  };
  return [head, ...tail];
}
