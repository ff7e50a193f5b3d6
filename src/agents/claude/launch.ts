/**
 * How teamux runs Claude Code in a member's pane, as pure functions of the member and the team: the
 * per-member settings file (teamux's hooks, PreToolUse for every tool, `permissions.allow: ["mcp__teamux"]`, the statusLine),
 * the MCP config naming the `teamux` server, the argv (`--settings`, `--mcp-config`,
 * `--append-system-prompt`, model and permission mode) and the environment. Nothing here touches
 * the disk; src/store/claude.ts writes the two files into the team folder, never into the user's
 * own Claude Code settings or the project's .claude/.
 */
import * as path from 'node:path';
import type { NormalizedClaude } from '../../config/normalize.js';
import type { ClaudePermissionMode } from '../../config/schema.js';
import { shellQuote } from '../../host/tmux/quote.js';
import { mcpClientConfig, type McpClientConfig } from '../../mcp/config.js';
import { perlShimScript } from './tmux-shim/client-perl.js';
import { verifiedPerl } from './exec-check.js';
import { HOOK_TIMEOUT_S } from './hook-deadline.js';

/** The hook events teamux listens to, as Claude Code names them. */
export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'Notification', 'Stop', 'SessionEnd'] as const;
/** One hook event teamux handles. */
export type HookEvent = (typeof HOOK_EVENTS)[number];
/** The pseudo-event for Claude Code's statusLine command. */
export const STATUS_LINE = 'StatusLine';

/**
 * Every tool: the PreToolUse matcher (the plan gate concerns five tools, but a budget added to team.json
 * after launch must refuse them all; the Perl fast path answers the others at once, hook-perl.ts).
 */
export const ALL_TOOLS_MATCHER = '*';

/** What the files and argv are built from. */
export interface ClaudeMemberContext {
  member: string;
  teamDir: string;
  /** Absolute path of the teamux launcher (bin/teamux). */
  teamuxBin: string;
  /** Absolute path of the node binary that runs it. */
  node: string;
  /** Seconds a permission request waits for an answer from teamux. */
  permissionTimeout: number;
  /**
   * A `native_teams` lead: its teammates run with this same settings file, so the hooks name the
   * member from the pane's $TEAMUX_MEMBER (teamux sets it per pane) instead of a fixed `--as`.
   */
  nativeTeams?: boolean;
  /** The Stop hook as a Perl script (stop-perl.ts, in the exec folder) and the perl that runs it, when Perl is on the machine. */
  perlStop?: PerlScript;
  /** The StatusLine and PreToolUse fast paths as a Perl script (hook-perl.ts, in the exec folder), when Perl is on the machine. */
  perlHooks?: PerlScript;
}

/** A hook's Perl script as written: the perl to run it, its file and the digest checked before each run (exec-check.ts). */
export interface PerlScript {
  perl: string;
  file: string;
  sha256: string;
}

/** The Stop hook's own one-file CommonJS entry beside the teamux launcher (every idle turn runs it; PreToolUse too without Perl). */
export function stopHookEntry(teamuxBin: string): string {
  return path.join(path.dirname(teamuxBin), '..', 'dist', 'agents', 'claude', 'stop-fast.cjs');
}

/** The `--as` word of a native lead's hooks: expanded by sh -c in each Claude Code process, lead or teammate. */
export const MEMBER_FROM_ENV = '"$TEAMUX_MEMBER"';

/** The shell command Claude Code runs for a hook (it goes through sh -c). */
export function hookCommand(ctx: ClaudeMemberContext, event: string): string {
  const asks = event === 'PermissionRequest' || (event === 'PreToolUse' && ctx.nativeTeams);
  const extra = asks ? ['--permission-timeout', String(ctx.permissionTimeout)] : [];
  // Stop runs after every turn: its entry (Perl when there is Perl, else one CommonJS file) skips the
  // CLI's module graph when nothing is unread. The status line and PreToolUse run as often, the status
  // line right as a permitted tool starts: Perl when there is Perl (a native lead's PreToolUse asks
  // for permission, always in node).
  const perlFast = ctx.perlHooks && (event === STATUS_LINE || (event === 'PreToolUse' && !ctx.nativeTeams)) ? ctx.perlHooks : undefined;
  // Without Perl, PreToolUse has the same fast path in the Stop hook's CommonJS entry.
  const cjsFast = event === 'PreToolUse' && !ctx.nativeTeams;
  const perl = event === 'Stop' ? ctx.perlStop : perlFast;
  // A Perl script is run only once its digest matches what teamux wrote (exec-check.ts).
  const run = perl ? verifiedPerl(perl.perl, perl, event === 'PreToolUse' ? 2 : 1)
    : [ctx.node, event === 'Stop' || cjsFast ? stopHookEntry(ctx.teamuxBin) : ctx.teamuxBin];
  const words = [...run, 'hook', event, '--as', ctx.member, '--team-dir', ctx.teamDir, ...extra].map(shellQuote);
  if (ctx.nativeTeams) words[run.length + 3] = MEMBER_FROM_ENV;
  return words.join(' ');
}

/** The settings file passed with --settings: teamux's hooks, the MCP allow rule and the status line. */
export function claudeSettings(ctx: ClaudeMemberContext): Record<string, unknown> {
  const hook = (event: string, timeout = HOOK_TIMEOUT_S): { type: 'command'; command: string; timeout: number } => ({ type: 'command', command: hookCommand(ctx, event), timeout });
  const hooks: Record<string, unknown[]> = {};
  for (const event of HOOK_EVENTS) {
    // A native lead's teammates ask for permission from PreToolUse (see native-hooks.ts): it waits as long.
    if (event === 'PreToolUse') hooks[event] = [{ matcher: ALL_TOOLS_MATCHER, hooks: [ctx.nativeTeams ? hook(event, Math.ceil(ctx.permissionTimeout) + HOOK_TIMEOUT_S) : hook(event)] }];
    // The hook waits up to permission_timeout itself and then steps aside; Claude's own limit is later.
    else if (event === 'PermissionRequest') hooks[event] = [{ matcher: '*', hooks: [hook(event, Math.ceil(ctx.permissionTimeout) + HOOK_TIMEOUT_S)] }];
    else hooks[event] = [{ hooks: [hook(event)] }];
  }
  return {
    hooks,
    permissions: { allow: ['mcp__teamux'] },
    statusLine: { type: 'command', command: hookCommand(ctx, STATUS_LINE), padding: 0 },
    // Claude Code's own agent teams, opened through the tmux stand-in (docs/claude-native-teams.md).
    ...(ctx.nativeTeams ? { env: { [AGENT_TEAMS_ENV]: '1' }, teammateMode: 'tmux' } : {}),
  };
}

/** The environment switch of Claude Code's experimental agent teams. */
export const AGENT_TEAMS_ENV = 'CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS';

/** Where a native lead's tmux stand-in listens and lives. */
export interface TmuxShimPlace {
  socket: string;
  /** The folder holding the `tmux` stand-in. */
  bin: string;
  /** The pid $TMUX names (the teamux process serving the socket). */
  serverPid: number;
}

/** A native lead's environment: agent teams on, the stand-in first on PATH, $TMUX/$TMUX_PANE leading to teamux. */
export function nativeTeamsEnv(env: Record<string, string>, shim: TmuxShimPlace): Record<string, string> {
  return { ...env, [AGENT_TEAMS_ENV]: '1', PATH: env.PATH ? `${shim.bin}:${env.PATH}` : shim.bin, TMUX: `${shim.socket},${shim.serverPid},0`, TMUX_PANE: LEAD_PANE_ID };
}

/** The tmux pane id of the native lead's own pane. */
export const LEAD_PANE_ID = '%0';

/** The `tmux` stand-in script: the Perl client when Perl is there (it starts in milliseconds), else node running client.ts. */
export function tmuxShimScript(node: string, client: string, perl: string | null): string {
  if (perl) return perlShimScript(perl, node, client);
  return `#!/bin/sh\n# teamux's tmux stand-in for Claude Code's agent teams (docs/claude-native-teams.md)\nexec ${shellQuote(node)} ${shellQuote(client)} "$@"\n`;
}

/** The MCP config passed with --mcp-config: the team's `teamux mcp` server, speaking as this member (the same file `mcp: true` members get). */
export function claudeMcpConfig(ctx: ClaudeMemberContext): McpClientConfig {
  return mcpClientConfig(ctx.teamDir, ctx.member, ctx.teamuxBin);
}

/** Claude Code's name for a layout permission mode (its interactive default is `auto`; ours is the classic prompt). */
export function cliPermissionMode(mode: ClaudePermissionMode): string {
  return mode === 'default' ? 'manual' : mode;
}

/** The argv after `claude`: the member's own args first, then teamux's (so teamux's --settings is the last one, the one that counts). */
export function claudeArgs(opts: NormalizedClaude, files: { settings: string; mcp: string }, systemPrompt: string): string[] {
  const args = [...opts.args, '--settings', files.settings, '--mcp-config', files.mcp, '--append-system-prompt', systemPrompt, '--permission-mode', cliPermissionMode(opts.permissionMode)];
  if (opts.model) args.push('--model', opts.model);
  return args;
}

/**
 * The argv that takes up a recorded Claude Code session, put before everything else (the per-CLI
 * resume hook: another CLI's member gets its own function of the same shape, given the id its hooks
 * recorded). Claude Code 2.1.328 keeps the session id on --resume and appends to its transcript.
 */
export function claudeResumeArgs(sessionId: string): string[] {
  return ['--resume', sessionId];
}

/** A session id as Claude Code makes them (a UUID); anything else in an activity record is not one. */
export const CLAUDE_SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The environment Claude Code runs with: the member's, teamux's, never the auto-updater, never tmux's. */
export function claudeEnv(base: Record<string, string>, member: string, teamDir: string, demoUrl: string | undefined): Record<string, string> {
  const env: Record<string, string> = { ...base, TEAMUX_TEAM_DIR: teamDir, TEAMUX_MEMBER: member, DISABLE_AUTOUPDATER: '1' };
  // It would take itself to be inside tmux and drive the user's server.
  delete env.TMUX;
  delete env.TMUX_PANE;
  if (demoUrl) {
    // The offline demo model tells members apart by the URL path; nothing may leave the machine.
    env.ANTHROPIC_BASE_URL = `${demoUrl.replace(/\/+$/, '')}/m/${member}`;
    env.ANTHROPIC_API_KEY = DEMO_API_KEY;
    env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
  }
  return env;
}

/** The key Claude Code sends to the offline demo model (16 characters: stored whole in .claude.json). */
export const DEMO_API_KEY = 'teamux-demo-key0';

/**
 * The `.claude.json` of a demo HOME inside the team folder: onboarding done, the demo key approved,
 * the member's folder trusted, so no dialog stands between the demo and its script.
 */
export function demoClaudeJson(cwd: string): Record<string, unknown> {
  return { hasCompletedOnboarding: true, customApiKeyResponses: { approved: [DEMO_API_KEY], rejected: [] }, projects: { [cwd]: { hasTrustDialogAccepted: true } } };
}
