/**
 * A focus request from the tmux stand-in's bridge process to whichever screen is attached: tmux's
 * `select-pane -t` asks for a pane, but only a screen can move the focus (and only when the operator
 * is not typing, src/agents/claude/pane-focus.ts). The bridge stores the request on the team's session as the
 * option `@teamux_focus` = `<ms since epoch> <member>`; the screen follows it with a control-mode
 * subscription. Pure argv builders and a parser; the option is the only state, and tmux keeps it.
 */
import { globalArgs, sessionTarget } from './commands.js';

/** Session option holding the latest focus request. */
export const FOCUS_OPTION = '@teamux_focus';

/** A request older than this is stale: it was made while no screen was attached. */
export const FOCUS_REQUEST_TTL_MS = 30_000;

/** argv storing a focus request for `member` made at `at` (ms). */
export function focusRequestArgv(socket: string, session: string, member: string, at: number): string[] {
  return [...globalArgs(socket), 'set-option', '-t', `${sessionTarget(session)}:`, FOCUS_OPTION, `${at} ${member}`];
}

/** The control-mode subscription a screen follows the requests with. */
export function focusSubscriptionCommand(name: string): string[] {
  return ['refresh-client', '-B', `${name}::#{${FOCUS_OPTION}}`];
}

/** A request as stored, or null for an empty or malformed value. */
export function parseFocusRequest(value: string): { at: number; member: string } | null {
  const m = /^(\d+) (\S+)$/.exec(value.trim());
  return m ? { at: Number(m[1]), member: m[2]! } : null;
}
