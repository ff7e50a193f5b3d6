/**
 * What each caller of the tmux stand-in may do, decided from the process it really is (host/socket-caller.ts),
 * never from the $TMUX_PANE it claims. Queries (display-message, list-panes, show-options,
 * has-session, list-sessions, -V) change nothing and are answered for anyone. Everything else:
 * - the lead's own Claude Code process (the stand-in's parent is the lead pane's agent) may do all;
 * - a teammate's own Claude Code process may title and set pane options on its own pane only;
 * - anything else (a Bash tool's shell or any process it starts, in any pane, or a process outside
 *   every pane) is refused, and so is every change when the caller cannot be told.
 * Pure: no I/O.
 */
import { parseCommand, splitGlobal, type CommandName, type TmuxCommand } from './argv.js';
import type { Caller, Unknown } from '../../../host/socket-caller.js';

/** Commands that only read the stand-in's state. */
const QUERIES: ReadonlySet<CommandName> = new Set(['display-message', 'list-panes', 'show-options', 'has-session', 'list-sessions']);

/** The parsed command when it changes something; null for a query (or a line the shim will refuse itself). */
export function changeOf(argv: readonly string[]): TmuxCommand | null {
  const inv = splitGlobal(argv);
  if ('error' in inv || inv.version) return null;
  const cmd = parseCommand(inv.command);
  if ('error' in cmd || QUERIES.has(cmd.name)) return null;
  return cmd;
}

/** The decision: run with `pane` as the caller's pane (its true one), or refuse with `error` (tmux's words). */
export type Verdict = { ok: true; pane: string } | { ok: false; error: string; why: string };

/** Only these flags on an own-pane change by a teammate's agent (set-option -p, select-pane -T). */
const OWN_PANE_FLAGS: Partial<Record<CommandName, { needs: string; allowed: string }>> = {
  'set-option': { needs: 'p', allowed: 'pqoaFut' },
  'select-pane': { needs: 'T', allowed: 'Tt' },
};

/** Whether `caller` may run the change `cmd`; the lead's pane is `leadPane`. */
export function permit(cmd: TmuxCommand, caller: Caller | Unknown, leadPane: string): Verdict {
  if ('error' in caller) {
    return { ok: false, error: `${cmd.name}: access not allowed: teamux cannot tell which process is calling (${caller.error}); ${caller.hint}`, why: caller.error };
  }
  const who = `pid ${caller.pid} ${caller.pane ? `in pane ${caller.pane}` : 'outside every teamux pane'}`;
  if (!caller.pane) return refuse(cmd, who, 'it is not in a pane of this team');
  if (!caller.fromAgent) return refuse(cmd, who, `it was started by a command in ${caller.pane}, not by that pane's Claude Code itself`);
  if (caller.pane === leadPane) return { ok: true, pane: leadPane };
  const own = OWN_PANE_FLAGS[cmd.name];
  const target = cmd.flags.get('t');
  const onOwnPane = target === undefined || target === caller.pane;
  if (own && cmd.flags.has(own.needs) && [...cmd.flags.keys()].every((f) => own.allowed.includes(f)) && onOwnPane) return { ok: true, pane: caller.pane };
  return refuse(cmd, who, `it is the Claude Code of ${caller.pane}, which may only title and style its own pane`);
}

function refuse(cmd: TmuxCommand, who: string, why: string): Verdict {
  return { ok: false, error: `${cmd.name}: access not allowed for ${who}: only the lead's own Claude Code opens, respawns, closes and focuses panes (${why})`, why: `${who}: ${why}` };
}
