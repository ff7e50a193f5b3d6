/**
 * The exact tmux commands the tmux host sends, as pure functions from teamux data to argument
 * vectors, and the parsers for what tmux prints back. Keeping them here (and not inline in host.ts)
 * lets tests assert the command lines one by one. Conventions: sessions are always targeted as
 * `=<name>` (exact match: `-t team` alone would prefix-match `team2`), panes by their `%<n>` id, and a
 * member's name is stored on its pane as the user option `@teamux_member`.
 */

import { constants } from 'node:os';
import type { PaneExit, PaneSpec } from '../types.js';
import { argvArg, literalFormat, shellQuote } from './quote.js';

/** Pane user option holding the member name, so a later attach can find members' panes. */
export const MEMBER_OPTION = '@teamux_member';

/** Name of the control-mode subscription that reports dead panes. */
export const DEAD_SUBSCRIPTION = 'teamux-dead';

/** What `new-session -P` / `new-window -P` print about the pane they created. */
export const CREATED_FORMAT = '#{pane_id} #{pane_pid}';

/** Bytes per `send-keys -H` command: 512 bytes is a ~1.6 KB control line. */
export const SEND_KEYS_CHUNK = 512;

/** Environment variables tmux sets itself and a member must not inherit from teamux. */
const TMUX_OWNED_ENV = new Set(['TMUX', 'TMUX_PANE']);

/** Global flags for every tmux invocation: UTF-8 output, the private socket, an optional config. */
export function globalArgs(socket: string, configFile?: string): string[] {
  return ['-u', '-L', socket, ...(configFile !== undefined ? ['-f', configFile] : [])];
}

/** The name tmux will actually give a session: it turns `.` and `:` into `_`. */
export function tmuxSessionName(name: string): string {
  return name.replace(/[.:]/g, '_');
}

/** Exact-match session target. */
export function sessionTarget(session: string): string {
  return `=${session}`;
}

/** `-e NAME=VALUE` pairs for a member's environment (tmux's own variables left out). */
export function envArgs(env: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (name === '' || name.includes('=') || TMUX_OWNED_ENV.has(name)) continue;
    out.push('-e', `${name}=${value}`);
  }
  return out;
}

/**
 * The shell-command arguments for a member. With two or more words tmux execs them directly; a lone
 * word would go through `sh -c`, so it is wrapped in `exec` to keep `#{pane_pid}` the member's pid.
 */
export function memberCommand(spec: Pick<PaneSpec, 'command' | 'args'>): string[] {
  return spec.args.length > 0 ? [spec.command, ...spec.args] : [`exec ${shellQuote(spec.command)}`];
}

/** Options shared by new-session and new-window: name, start directory, environment, pane report. */
function createArgs(spec: PaneSpec): string[] {
  return ['-n', spec.id, '-c', literalFormat(spec.cwd), ...envArgs(spec.env), '-P', '-F', CREATED_FORMAT];
}

/**
 * argv (for TmuxRunner.run) that starts the server if needed and creates the team session with the
 * first member in window 0. remain-on-exit is set globally *before* the pane exists, so even a member
 * that dies at once keeps its pane; the member option is set in the same atomic sequence.
 */
export function newSessionArgv(session: string, spec: PaneSpec): string[] {
  const create = [
    'new-session', '-d', '-s', session, '-x', String(spec.cols), '-y', String(spec.rows),
    ...createArgs(spec), '--', ...memberCommand(spec),
  ];
  const tag = ['set-option', '-p', '-t', `${sessionTarget(session)}:`, MEMBER_OPTION, spec.id];
  return [
    'set-option', '-gw', 'remain-on-exit', 'on', ';',
    ...create.map(argvArg), ';',
    ...tag.map(argvArg),
  ];
}

/**
 * Control-mode sequence creating a further member in its own window. default-size makes the window
 * (and so the pty) start at the member's size when no other client drives the size.
 */
export function newWindowSequence(session: string, spec: PaneSpec): string[][] {
  return [
    // set-option takes a pane target: `=team` alone is not found there, `=team:` is.
    ['set-option', '-t', `${sessionTarget(session)}:`, 'default-size', `${spec.cols}x${spec.rows}`],
    ['new-window', '-d', '-t', `${sessionTarget(session)}:`, ...createArgs(spec), '--', ...memberCommand(spec)],
  ];
}

/** Tags a new pane with its member and pins its window to the member's size (window-size manual). */
export function decorateSequence(paneId: string, member: string, cols: number, rows: number): string[][] {
  return [['set-option', '-p', '-t', paneId, MEMBER_OPTION, member], resizeCommand(paneId, cols, rows)];
}

/** Resizes the member's window; resize-window also sets window-size manual for that window. */
export function resizeCommand(paneId: string, cols: number, rows: number): string[] {
  return ['resize-window', '-t', paneId, '-x', String(cols), '-y', String(rows)];
}

/** Input as `send-keys -H` commands, one per SEND_KEYS_CHUNK bytes, sent byte-exact. */
export function sendKeysCommands(paneId: string, bytes: Uint8Array, chunk = SEND_KEYS_CHUNK): string[][] {
  const commands: string[][] = [];
  for (let i = 0; i < bytes.length; i += chunk) {
    const hex = Array.from(bytes.subarray(i, i + chunk), (b) => b.toString(16).padStart(2, '0'));
    commands.push(['send-keys', '-H', '-t', paneId, ...hex]);
  }
  return commands;
}

/** Subscribes the control client to pane deaths in its session (reported within ~1 s). */
export function deadSubscriptionCommand(): string[] {
  return ['refresh-client', '-B', `${DEAD_SUBSCRIPTION}:%*:#{pane_dead} #{pane_dead_status} #{pane_dead_signal}`];
}

/**
 * Streams a pane's output (only what the pane prints, -O) into a FIFO through `cat`, replacing any
 * pipe the pane had. tmux 3.3a's control mode sends %output one escaped byte at a time; a pipe
 * carries the bytes as they are.
 */
export function pipePaneCommand(paneId: string, fifo: string): string[] {
  return ['pipe-pane', '-O', '-t', paneId, `exec cat > ${shellQuote(fifo)}`];
}

/** Closes a pane's pipe (pipe-pane without a command). */
export function closePipeCommand(paneId: string): string[] {
  return ['pipe-pane', '-t', paneId];
}

/**
 * argv that makes a tmux client a control client attached to the session. `noOutput` (pipe output)
 * sets the no-output flag in the attach itself: set later with `refresh-client -f no-output`, tmux
 * 3.3a drops the client's pane records but keeps the %output blocks already queued, and every later
 * line (replies, %exit) waits behind them for ever. The client then never answers and never exits,
 * which is what happened whenever a pane printed between the attach and that command.
 */
export function attachArgs(session: string, options: { noOutput?: boolean } = {}): string[] {
  return ['-C', 'attach-session', ...(options.noOutput ? ['-f', 'no-output'] : []), '-t', sessionTarget(session)];
}

const PANE_LIST_FORMAT = [
  '#{pane_id}', '#{pane_pid}', '#{pane_dead}', '#{pane_dead_status}', '#{pane_dead_signal}', `#{${MEMBER_OPTION}}`,
].join('\t');

/** Lists every pane of the session with what attach and exit detection need. */
export function listPanesCommand(session: string): string[] {
  return ['list-panes', '-s', '-t', sessionTarget(session), '-F', PANE_LIST_FORMAT];
}

/**
 * A pane's process state from pane_dead/pane_dead_status/pane_dead_signal. tmux can report the pane
 * dead (pty closed) a moment before it has reaped the process, with status and signal still empty:
 * that is 'reaping', not yet an exit.
 */
export type PaneState = PaneExit | 'alive' | 'reaping';

/** One pane of the session as list-panes reports it. */
export interface PaneInfo {
  paneId: string;
  pid: number | undefined;
  state: PaneState;
  /** The @teamux_member option; '' for panes teamux did not create. */
  member: string;
}

/** Parses listPanesCommand output. */
export function parsePaneList(lines: readonly string[]): PaneInfo[] {
  const out: PaneInfo[] = [];
  for (const line of lines) {
    const [paneId, pid, dead, status, signal, ...member] = line.split('\t');
    if (!paneId?.startsWith('%')) continue;
    out.push({
      paneId,
      pid: pid ? Number(pid) : undefined,
      state: paneState(dead ?? '', status ?? '', signal ?? ''),
      member: member.join('\t'),
    });
  }
  return out;
}

/** Parses a `%pane_id pid` line printed by new-session/new-window -P. */
export function parseCreated(text: string): { paneId: string; pid: number | undefined } | undefined {
  const m = /^(%\d+) (\d*)/.exec(text.trim());
  if (!m) return undefined;
  return { paneId: m[1]!, pid: m[2] ? Number(m[2]) : undefined };
}

/** Parses the dead-pane subscription value `<dead> <status> <signal>`. */
export function parseDeadValue(value: string): PaneState {
  const [dead, status, signal] = value.split(' ');
  return paneState(dead ?? '', status ?? '', signal ?? '');
}

/** Maps pane_dead/pane_dead_status/pane_dead_signal to a PaneState. */
export function paneState(dead: string, status: string, signal: string): PaneState {
  if (dead !== '1') return 'alive';
  if (signal !== '') return { exitCode: null, signal: signalName(Number(signal)) };
  if (status !== '') return { exitCode: Number(status), signal: null };
  return 'reaping';
}

/** Reads one pane's state (used to settle a 'reaping' report). */
export function paneStateCommand(paneId: string): string[] {
  return ['display-message', '-p', '-t', paneId, '#{pane_dead} #{pane_dead_status} #{pane_dead_signal}'];
}

function signalName(num: number): string {
  for (const [name, value] of Object.entries(constants.signals)) if (value === num) return name;
  return String(num);
}
