/**
 * Turning argument vectors into text tmux parses back into the same vectors. Two paths exist:
 * control-mode lines go through tmux's command parser (cmd-parse.y: quotes, `$VAR` and leading `~`
 * expansion, `#` comments, `%if` conditions, `;` separators), while argv passed to a `tmux` child
 * process is only split on a trailing `;`. Neither path can carry a NUL byte or (for control lines)
 * a raw newline, so those are escaped or refused here. This file owns no state.
 */

/** Characters that need no quoting anywhere inside a word. */
const BARE = /^[A-Za-z0-9_./:@,+=%-]+$/;

/** Quotes one argument for a tmux command line (control mode, config files). */
export function quoteArg(arg: string): string {
  if (arg.includes('\0')) throw new Error('tmux arguments cannot contain NUL');
  // A leading % would start a %if/%hidden condition; a leading - is fine (option parsing is per word).
  if (BARE.test(arg) && !arg.startsWith('%')) return arg;
  let out = '"';
  for (const ch of arg) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\' || ch === '"' || ch === '$' || ch === '~') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\x1b') out += '\\e';
    else if (code < 0x20 || code === 0x7f) out += '\\' + code.toString(8).padStart(3, '0');
    else out += ch;
  }
  return out + '"';
}

/** Joins one command's arguments into a control-mode command string. */
export function commandLine(args: readonly string[]): string {
  return args.map(quoteArg).join(' ');
}

/** Joins commands into one control-mode line; tmux runs them in order and stops at the first error. */
export function sequenceLine(commands: readonly (readonly string[])[]): string {
  return commands.map(commandLine).join(' ; ');
}

/**
 * Escapes one argv element for `tmux <args>` run without a shell: tmux treats a trailing `;` as a
 * command separator, so a literal one is sent as `\;` (and `x\;` as `x\\;`).
 */
export function argvArg(arg: string): string {
  if (arg.includes('\0')) throw new Error('tmux arguments cannot contain NUL');
  return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg;
}

/** Escapes `#` so a format-expanded argument (start directory, -F) keeps its literal text. */
export function literalFormat(text: string): string {
  return text.replaceAll('#', '##');
}

/** Quotes a word for sh(1), for the one case tmux hands a string to `sh -c`. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
