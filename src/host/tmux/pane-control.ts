/**
 * The tmux commands with which the tmux stand-in's bridge process drives the team's own tmux session
 * (docs/claude-native-teams.md, "the stand-in outliving the screen"): a pane Claude Code opens becomes
 * a window of the session tagged with pane options (`@teamux_member` its name, `@teamux_slot` its
 * place among such panes, `@teamux_shim` the `%N` the stand-in handed out), a respawn is tmux's own
 * respawn-pane, a kill is kill-pane; and the listing the bridge reads back. Pure argv builders and a
 * parser, as commands.ts is for the host; the runner runs them.
 */
import { CREATED_FORMAT, envArgs, globalArgs, MEMBER_OPTION, memberCommand, sessionTarget } from './commands.js';
import { argvArg, literalFormat } from './quote.js';

/** Pane option: the slot of a pane the bridge opened (its place among them, kept across attaches). */
export const SLOT_OPTION = '@teamux_slot';
/** Pane option: the `%N` the stand-in answered for the pane (Claude Code's tmuxPaneId). */
export const SHIM_OPTION = '@teamux_shim';

/** A process to run in a pane: what the bridge's launches carry. */
export interface PaneRunSpec {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/**
 * The words tmux runs for a launch. tmux 3.3a replaces a PATH given with -e by its client's, and drops
 * TMUX/TMUX_PANE (it sets its own); env(1) sets them and execs the command, so #{pane_pid} stays its pid.
 */
export function runWords(spec: PaneRunSpec): string[] {
  const carried = ['PATH', 'TMUX', 'TMUX_PANE'].filter((k) => spec.env[k] !== undefined).map((k) => `${k}=${spec.env[k]}`);
  const words = memberCommand(spec);
  return carried.length > 0 ? ['env', ...carried, ...(spec.args.length > 0 ? words : ['/bin/sh', '-c', words[0]!])] : words;
}

/** The window index a bridge pane is created at: fixed by its slot, so the same invocation can tag it. */
export function slotWindow(session: string, slot: number): string {
  return `${sessionTarget(session)}:${1000 + slot}`;
}

/** argv for `tmux` that opens a window for a bridge pane and tags it, printing `%id pid`. */
export function openPaneArgv(socket: string, session: string, spec: PaneRunSpec, shimId: string, slot: number): string[] {
  const window = slotWindow(session, slot);
  const create = [
    'new-window', '-d', '-t', window, '-n', spec.name, '-c', literalFormat(spec.cwd),
    ...envArgs({ TERM: 'tmux-256color', ...spec.env }), '-P', '-F', CREATED_FORMAT, '--', ...runWords(spec),
  ];
  // The member tag goes last: the screen adopts a pane once it carries one (its slot is set by then).
  const tag = (option: string, value: string): string[] => ['set-option', '-p', '-t', `${window}.0`, option, argvArg(value)];
  return [
    ...globalArgs(socket),
    ...create.map(argvArg), ';',
    ...tag(SHIM_OPTION, shimId), ';', ...tag(SLOT_OPTION, String(slot)), ';', ...tag(MEMBER_OPTION, spec.name),
  ];
}

/** argv that runs a launch in a pane in place of its process (respawn-pane -k) and renames its tag. */
export function respawnPaneArgv(socket: string, paneId: string, spec: PaneRunSpec): string[] {
  const respawn = ['respawn-pane', '-k', '-t', paneId, '-c', literalFormat(spec.cwd), ...envArgs({ TERM: 'tmux-256color', ...spec.env }), '--', ...runWords(spec)];
  return [
    ...globalArgs(socket),
    ...respawn.map(argvArg), ';',
    'set-option', '-p', '-t', paneId, MEMBER_OPTION, argvArg(spec.name), ';',
    'rename-window', '-t', paneId, argvArg(spec.name),
  ];
}

/** argv that kills a pane (its window goes with it). */
export function killPaneArgv(socket: string, paneId: string): string[] {
  return [...globalArgs(socket), 'kill-pane', '-t', paneId];
}

/** argv that sets a pane's title (select-pane -T). */
export function titleArgv(socket: string, paneId: string, title: string): string[] {
  return [...globalArgs(socket), 'select-pane', '-t', paneId, '-T', argvArg(title)];
}

const LIST_FORMAT = ['#{pane_id}', '#{pane_pid}', '#{pane_dead}', '#{pane_width}', '#{pane_height}', `#{${SLOT_OPTION}}`, `#{${SHIM_OPTION}}`, `#{${MEMBER_OPTION}}`].join('\t');

/** argv listing every pane of the session with what the bridge and the screen need. */
export function listTaggedArgv(socket: string, session: string): string[] {
  return [...globalArgs(socket), 'list-panes', '-s', '-t', sessionTarget(session), '-F', LIST_FORMAT];
}

/** One tagged pane of the session. */
export interface TaggedPane {
  paneId: string;
  pid: number | null;
  dead: boolean;
  width: number;
  height: number;
  /** The slot of a pane the bridge opened; null for the layout's members. */
  slot: number | null;
  /** The stand-in's `%N` for it ('' for the layout's members). */
  shim: string;
  member: string;
}

/** Parses listTaggedArgv output; panes without a member tag (the demo model's window) are left out. */
export function parseTagged(text: string): TaggedPane[] {
  const out: TaggedPane[] = [];
  for (const line of text.split('\n')) {
    const [paneId, pid, dead, width, height, slot, shim, ...member] = line.split('\t');
    const name = member.join('\t');
    if (!paneId?.startsWith('%') || name === '') continue;
    out.push({
      paneId, pid: pid ? Number(pid) : null, dead: dead === '1', width: Number(width) || 0, height: Number(height) || 0,
      slot: slot && /^\d+$/.test(slot) ? Number(slot) : null, shim: shim ?? '', member: name,
    });
  }
  return out;
}

/** Parses the `%id pid` line openPaneArgv prints. */
export function parseOpened(text: string): { paneId: string; pid: number | null } | null {
  const m = /^(%\d+) (\d*)/.exec(text.trim());
  return m ? { paneId: m[1]!, pid: m[2] ? Number(m[2]) : null } : null;
}
