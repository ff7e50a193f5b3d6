/**
 * The tmux command lines Claude Code sends, parsed: global flags (`-S socket`), the command name
 * (aliases folded: `show` is `show-options`), its flags by tmux's own getopt letters, and the
 * trailing arguments. One declarative table lists every command the stand-in knows, with the flags
 * that take a value; anything else is a parse error worded as tmux words it. Pure: no I/O.
 */

/** A parsed command: `flags` holds boolean flags as '' and valued flags as their value. */
export interface TmuxCommand {
  name: CommandName;
  flags: Map<string, string>;
  args: string[];
}

/** One entry of the command table: tmux's name, its alias, its boolean and valued flag letters. */
interface CommandDef {
  alias: string;
  bool: string;
  valued: string;
  /** How many trailing arguments at most (Infinity: a shell command). */
  maxArgs: number;
}

const TABLE = {
  'display-message': { alias: 'display', bool: 'aIpv', valued: 'cdFt', maxArgs: 1 },
  'list-panes': { alias: 'lsp', bool: 'as', valued: 'Ft', maxArgs: 0 },
  'split-window': { alias: 'splitw', bool: 'bdfhIPvZ', valued: 'celtF', maxArgs: Infinity },
  'set-option': { alias: 'set', bool: 'aFgopqsuUw', valued: 't', maxArgs: 2 },
  'show-options': { alias: 'show', bool: 'AgHpqsvw', valued: 't', maxArgs: 1 },
  'select-pane': { alias: 'selectp', bool: 'DdeLlMmRUZ', valued: 'PTt', maxArgs: 0 },
  'respawn-pane': { alias: 'respawnp', bool: 'k', valued: 'cet', maxArgs: Infinity },
  'kill-pane': { alias: 'killp', bool: 'a', valued: 't', maxArgs: 0 },
  'has-session': { alias: 'has', bool: '', valued: 't', maxArgs: 0 },
  'list-sessions': { alias: 'ls', bool: '', valued: 'Ff', maxArgs: 0 },
} as const satisfies Record<string, CommandDef>;

/** The names of the commands the stand-in implements. */
export type CommandName = keyof typeof TABLE;
/** Every command the stand-in implements, for the compatibility table and error hints. */
export const COMMAND_NAMES = Object.keys(TABLE) as CommandName[];

/** The global part of a command line: `-S socket` / `-L name`, and `-V`. */
export interface TmuxInvocation {
  socket: string | null;
  version: boolean;
  command: string[];
}

/** Split the global flags from the command (tmux -S path -L name -f file -V CMD ...). */
export function splitGlobal(argv: readonly string[]): TmuxInvocation | { error: string } {
  let socket: string | null = null;
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-V') return { socket, version: true, command: [] };
    if (a === '-S' || a === '-L' || a === '-f') {
      const v = argv[++i];
      if (v === undefined) return { error: `option requires an argument -- ${a.slice(1)}` };
      if (a === '-S') socket = v;
      continue;
    }
    if (/^-[2CDluNv]+$/.test(a)) continue;
    if (a === '--') {
      i++;
      break;
    }
    break;
  }
  return { socket, version: false, command: argv.slice(i) };
}

function lookup(name: string): CommandName | undefined {
  if (name in TABLE) return name as CommandName;
  return COMMAND_NAMES.find((n) => TABLE[n].alias === name);
}

/** Parse one command (name first) with tmux's getopt rules: clustered flags, `--` ends them. */
export function parseCommand(words: readonly string[]): TmuxCommand | { error: string } {
  const [first, ...rest] = words;
  if (first === undefined) return { error: 'no command given' };
  const name = lookup(first);
  if (!name) return { error: `unknown command: ${first}` };
  const def: CommandDef = TABLE[name];
  const flags = new Map<string, string>();
  let i = 0;
  for (; i < rest.length; i++) {
    const w = rest[i]!;
    if (w === '--') {
      i++;
      break;
    }
    if (!w.startsWith('-') || w === '-') break;
    for (let j = 1; j < w.length; j++) {
      const letter = w[j]!;
      if (def.bool.includes(letter)) {
        flags.set(letter, '');
      } else if (def.valued.includes(letter)) {
        const inline = w.slice(j + 1);
        const value = inline !== '' ? inline : rest[++i];
        if (value === undefined) return { error: `${name}: option requires an argument -- ${letter}` };
        flags.set(letter, value);
        break;
      } else {
        return { error: `${name}: unknown option -- ${letter}` };
      }
    }
  }
  const args = rest.slice(i);
  if (args.length > def.maxArgs) return { error: `${name}: too many arguments (need at most ${def.maxArgs})` };
  return { name, flags, args };
}

/** tmux's rule for a pane command: one word runs through the shell, several are exec'd as they are. */
export function shellCommandOf(args: readonly string[]): { command: string; args: string[] } | null {
  if (args.length === 0) return null;
  if (args.length === 1) return { command: '/bin/sh', args: ['-c', args[0]!] };
  return { command: args[0]!, args: args.slice(1) };
}

/** A split size: `70%` of the target, or a number of cells. */
export function parseSize(text: string): { percent: number } | { cells: number } | null {
  const m = /^(\d{1,5})(%?)$/.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  if (m[2]) return n >= 1 && n <= 100 ? { percent: n } : null;
  return n >= 1 ? { cells: n } : null;
}
