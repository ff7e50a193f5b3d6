/**
 * What teamux reads from the command Claude Code respawns a teammate pane with
 * (`cd DIR && env … claude --agent-id amy@session-1234abcd --agent-name amy --team-name … --settings F`):
 * the teammate's name and Claude Code team, so the pane gets the member's name, the hooks act as it,
 * and the sidebar finds its team files. Also the one rewrite the offline demo needs: the command
 * carries the lead's ANTHROPIC_BASE_URL (`…/m/LEAD`), and the demo model tells members apart by that
 * path. Pure.
 */

/** A Claude Code teammate as its command line names it. */
export interface NativeTeammate {
  name: string;
  team: string;
  agentId: string;
  /** `--lead-verify-key`: the public key the lead's messages to this teammate are signed for (null if absent). */
  leadVerifyKey: string | null;
}

/** A member name teamux accepts (the same rule as the layout's names). */
const NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** The value after `flag` in a shell command line (plain or single-quoted), or null. */
function flagValue(command: string, flag: string): string | null {
  const re = new RegExp(`(?:^|\\s)${flag}(?:=|\\s+)(?:'([^']*)'|"([^"]*)"|(\\S+))`);
  const m = re.exec(command);
  return m ? (m[1] ?? m[2] ?? m[3] ?? null) : null;
}

/** The teammate a respawn command starts, or null when it is not a Claude Code teammate command. */
export function teammateOf(command: string): NativeTeammate | { error: string } | null {
  const name = flagValue(command, '--agent-name');
  const team = flagValue(command, '--team-name');
  if (name === null || team === null) return null;
  if (!NAME.test(name)) return { error: `teammate name "${name}" is not a teamux member name (lower-case letters, digits, - and _, up to 32, starting with a letter)` };
  return { name, team, agentId: flagValue(command, '--agent-id') ?? `${name}@${team}`, leadVerifyKey: flagValue(command, '--lead-verify-key') };
}

/** The command with the demo model's route for the lead (`URL/m/LEAD`) turned into the teammate's. */
export function demoRouted(command: string, demoUrl: string, lead: string, teammate: string): string {
  const base = demoUrl.replace(/\/+$/, '');
  return command.split(`ANTHROPIC_BASE_URL=${base}/m/${lead} `).join(`ANTHROPIC_BASE_URL=${base}/m/${teammate} `);
}

/**
 * The command with the lead's `--mcp-config FILE` turned into the teammate's own: Claude Code passes
 * the lead's flags on, and the lead's file runs `teamux mcp` as the lead. Null when the lead's file
 * is not found in a form teamux recognises (the caller refuses then: never a teammate acting as the lead).
 */
export function ownMcpConfig(command: string, leadFile: string, teammateFile: string, quote: (s: string) => string): string | null {
  const forms = [`--mcp-config ${leadFile}`, `--mcp-config ${quote(leadFile)}`, `--mcp-config '${leadFile}'`];
  const form = forms.find((f) => command.includes(`${f} `) || command.endsWith(f));
  if (!form) return command.includes('--mcp-config') ? null : command;
  return command.split(form).join(`--mcp-config ${quote(teammateFile)}`);
}
