/**
 * A one-line prompt in the status line (broadcast text, reject feedback): a tiny line editor fed with
 * key tokens. Pure state transitions, so the multiplexer only routes keys to it while it is open.
 */

/** An open prompt. */
export interface PromptState {
  label: string;
  text: string;
  cursor: number;
}

/** What a key did to the prompt. */
export type PromptResult = { kind: 'edit'; state: PromptState } | { kind: 'submit'; text: string } | { kind: 'cancel' };

/** Open an empty prompt. */
export function openPrompt(label: string): PromptState {
  return { label, text: '', cursor: 0 };
}

/** Apply one key (its raw bytes and name) or a paste to the prompt. */
export function promptKey(s: PromptState, raw: string, name: string | null): PromptResult {
  const at = (text: string, cursor: number): PromptResult => ({ kind: 'edit', state: { ...s, text, cursor } });
  switch (name) {
    case 'enter': return { kind: 'submit', text: s.text };
    case 'escape': case 'C-c': case 'C-g': return { kind: 'cancel' };
    case 'backspace': case 'C-h':
      return s.cursor === 0 ? at(s.text, 0) : at(s.text.slice(0, s.cursor - 1) + s.text.slice(s.cursor), s.cursor - 1);
    case 'delete': case 'C-d': return at(s.text.slice(0, s.cursor) + s.text.slice(s.cursor + 1), s.cursor);
    case 'left': case 'C-b': return at(s.text, Math.max(0, s.cursor - 1));
    case 'right': case 'C-f': return at(s.text, Math.min(s.text.length, s.cursor + 1));
    case 'home': case 'C-a': return at(s.text, 0);
    case 'end': case 'C-e': return at(s.text, s.text.length);
    case 'C-u': return at(s.text.slice(s.cursor), 0);
    case 'C-k': return at(s.text.slice(0, s.cursor), s.cursor);
    case 'C-w': {
      const before = s.text.slice(0, s.cursor).replace(/\S+\s*$/, '');
      return at(before + s.text.slice(s.cursor), before.length);
    }
  }
  // Printable text (one key or a paste): control characters are dropped, newlines become spaces.
  const clean = raw.replace(/[\r\n\t]/g, ' ').replace(/[\x00-\x1f\x7f]/g, '');
  if (clean === '' || raw.startsWith('\x1b')) return at(s.text, s.cursor);
  return at(s.text.slice(0, s.cursor) + clean + s.text.slice(s.cursor), s.cursor + clean.length);
}
