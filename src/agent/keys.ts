/**
 * Steering input typed into the agent's pane, as pure functions: raw terminal bytes become keys, and
 * keys edit one line. Enter submits the line, Esc interrupts the model, Ctrl-C interrupts and a
 * second Ctrl-C within two seconds exits. Cursor keys and other escape sequences are swallowed so
 * they never end up as text.
 */

/** One key the pane cares about. */
export type Key =
  | { kind: 'char'; text: string }
  | { kind: 'enter' }
  | { kind: 'backspace' }
  | { kind: 'escape' }
  | { kind: 'ctrl-c' }
  | { kind: 'ctrl-u' }
  | { kind: 'ctrl-w' }
  | { kind: 'ctrl-d' };

/** The window in which a second Ctrl-C exits. */
export const DOUBLE_CTRL_C_MS = 2_000;

/** Split a chunk of raw terminal input into keys (a chunk that is a lone ESC is the Esc key). */
export function decodeKeys(chunk: string): Key[] {
  const keys: Key[] = [];
  let text = '';
  const flush = (): void => {
    if (text) keys.push({ kind: 'char', text });
    text = '';
  };
  for (let i = 0; i < chunk.length; i++) {
    const c = chunk[i]!;
    const code = c.charCodeAt(0);
    if (c === '\x1b') {
      flush();
      const next = chunk[i + 1];
      if (next === undefined || next === '\x1b') {
        keys.push({ kind: 'escape' });
      } else if (next === '[') {
        // CSI: parameters and intermediates, then one final byte in @..~ (bracketed paste markers too).
        let j = i + 2;
        while (j < chunk.length && !/[@-~]/.test(chunk[j]!)) j++;
        i = j;
      } else {
        // SS3 (ESC O x) or Alt+key: swallow the next character as well.
        i += next === 'O' ? 2 : 1;
      }
      continue;
    }
    if (c === '\r' || c === '\n') {
      flush();
      // A CR LF pair is one Enter.
      if (c === '\r' && chunk[i + 1] === '\n') i++;
      keys.push({ kind: 'enter' });
    } else if (code === 0x7f || code === 0x08) {
      flush();
      keys.push({ kind: 'backspace' });
    } else if (code === 0x03) {
      flush();
      keys.push({ kind: 'ctrl-c' });
    } else if (code === 0x15) {
      flush();
      keys.push({ kind: 'ctrl-u' });
    } else if (code === 0x17) {
      flush();
      keys.push({ kind: 'ctrl-w' });
    } else if (code === 0x04) {
      flush();
      keys.push({ kind: 'ctrl-d' });
    } else if (code >= 0x20 || c === '\t') {
      text += c === '\t' ? ' ' : c;
    }
  }
  flush();
  return keys;
}

/** What a key does to the line being typed. */
export type LineAction =
  | { kind: 'edit'; line: string }
  | { kind: 'submit'; text: string }
  | { kind: 'interrupt'; line: string }
  | { kind: 'ctrl-c'; line: string };

/** Apply one key to the line. */
export function editLine(line: string, key: Key): LineAction {
  switch (key.kind) {
    case 'char': return { kind: 'edit', line: line + key.text };
    case 'backspace': return { kind: 'edit', line: [...line].slice(0, -1).join('') };
    case 'ctrl-u': return { kind: 'edit', line: '' };
    case 'ctrl-w': return { kind: 'edit', line: line.replace(/\S+\s*$/, '') };
    case 'ctrl-d': return { kind: 'edit', line };
    case 'enter': return { kind: 'submit', text: line };
    case 'escape': return { kind: 'interrupt', line };
    case 'ctrl-c': return { kind: 'ctrl-c', line: '' };
  }
}

/** Ctrl-C at `now`, the previous one at `last` (or never): interrupt, or exit when it is the second in a row. */
export function ctrlC(last: number | null, now: number): 'interrupt' | 'exit' {
  return last !== null && now - last <= DOUBLE_CTRL_C_MS ? 'exit' : 'interrupt';
}
