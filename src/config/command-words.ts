/**
 * Splits a member's `command:` string into a program and its arguments the way a shell would split
 * words (spaces, single quotes, double quotes, backslashes, a leading `~`), without running a shell.
 * Anything that only a shell could honour (pipes, redirections, `$VAR`, `;`, backquotes, comments)
 * is refused with a message telling the user to write `[sh, -c, "..."]` instead, so what teamux
 * spawns is never a surprise.
 */

/** The words of a command line, or why it cannot be split without a shell. */
export type CommandWords = { ok: true; words: string[] } | { ok: false; message: string; hint?: string };

const SHELL_HINT = 'write it as a list to run it through a shell: [sh, -c, "..."]';
const OPERATORS = new Set(['|', '&', ';', '<', '>', '(', ')', '$', '`']);

/** Splits `line` into words; a word starting with an unquoted `~` or `~/` gets `home` substituted. */
export function splitCommand(line: string, home?: string): CommandWords {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const shellOnly = (what: string): CommandWords => ({
    ok: false,
    message: `this command uses shell syntax (${what}), which teamux does not interpret`,
    hint: SHELL_HINT,
  });
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return { ok: false, message: 'unterminated single quote in command' };
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        const d = line[i];
        if (d === undefined) return { ok: false, message: 'unterminated double quote in command' };
        if (d === '"') break;
        if (d === '$' || d === '`') return shellOnly(d);
        if (d === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) {
          word += line[i + 1];
          i += 2;
        } else {
          word += d;
          i++;
        }
      }
      inWord = true;
      i++;
    } else if (c === '\\') {
      if (i + 1 >= line.length) return { ok: false, message: 'command ends with a lone backslash' };
      word += line[i + 1];
      inWord = true;
      i += 2;
    } else if (OPERATORS.has(c) || (c === '#' && !inWord)) {
      return shellOnly(c);
    } else if (c === '~' && !inWord && home !== undefined && /^~(?:\/|\s|$)/.test(line.slice(i))) {
      word += home;
      inWord = true;
      i++;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  if (words.length === 0) return { ok: false, message: 'command is empty' };
  return { ok: true, words };
}
