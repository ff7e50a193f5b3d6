/**
 * Team data shown to a person: every control character made visible. Subjects, messages, roles and
 * request bodies are written by teammates, whose models may put terminal escape sequences in them
 * (OSC 52 clipboard writes, title changes, ESC[2J, DCS, C1 CSI, BEL, backspace and CR overwrites).
 * Human-readable output passes such text through `visible`, which turns each control character into
 * an escape a reader can see: ESC as `\e`, other C0 as `\xNN` (or `\r`, `\t`, `\b`, `\n`), DEL
 * and C1 as `\u007f`..`\u009f`, and the bidirectional overrides (U+202A-E, U+2066-9) as `\uNNNN`.
 * The C1, DEL and bidi escapes are also valid JSON escapes, so `visible(json, { lines: true })` of
 * a JSON.stringify line stays the same JSON value (JSON.stringify already escapes C0).
 */

/** Control characters, DEL, C1 and the bidi embedding/override/isolate controls. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** The same set without LF, for text whose format wants lines. */
const CONTROL_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The same set without LF and TAB, for source code and diffs. */
const CONTROL_BUT_LF_TAB = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\x1b': '\\e', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b' };

/** How to show one control character. */
function escapeOne(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  if (code < 0x20) return `\\x${code.toString(16).padStart(2, '0')}`;
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text with every control character shown as an escape; `lines` keeps LF as a real line break, `tabs` keeps TAB too. */
export function visible(text: string, opts: { lines?: boolean; tabs?: boolean } = {}): string {
  return text.replace(opts.lines ? (opts.tabs ? CONTROL_BUT_LF_TAB : CONTROL_BUT_LF) : CONTROL, escapeOne);
}

/** True if the text holds a character `visible` would escape (LF allowed when `lines`). */
export function hasControl(text: string, opts: { lines?: boolean } = {}): boolean {
  const re = opts.lines ? CONTROL_BUT_LF : CONTROL;
  re.lastIndex = 0;
  const found = re.test(text);
  re.lastIndex = 0;
  return found;
}
