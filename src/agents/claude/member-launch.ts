/**
 * From a layout's `agent: { cli: claude }` member to what the multiplexer launches: the claude binary
 * with the generated settings and MCP config, the identity block teamux's own agent gets (built from
 * the layout's roster) appended to Claude Code's system prompt, and Claude Code's environment. The
 * files themselves are written by `prepareClaudeMembers` before any pane starts.
 */
import type { NormalizedLayout, NormalizedMember } from '../../config/index.js';
import { CLAUDE_PROGRAM, findProgram } from '../../config/checks.js';
import { existsSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import { defaultKickoff } from '../../agent/options.js';
import { identityBlock, systemPrompt } from '../../agent/prompt.js';
import { CLAUDE_SESSION_ID, claudeArgs, claudeEnv, claudeResumeArgs, claudeMcpConfig, claudeSettings, demoClaudeJson, nativeTeamsEnv, stopHookEntry, tmuxShimScript, type ClaudeMemberContext, type TmuxShimPlace } from './launch.js';
import { perlStopScript } from './stop-perl.js';
import { perlHookScript } from './hook-perl.js';
import { shimSocketPath } from './tmux-shim/socket.js';
import { ensureSocketFolder, writeTmuxShim } from '../../store/claude-teams.js';
import type { Member, TeamConfig } from '../../protocol/types.js';
import { claudeFilesOf, claudeHookScript, claudeStopScript, recordedSession, writeClaudeFiles } from '../../store/claude.js';
import { scriptDigest, writeExecScript } from '../../store/exec-folder.js';
import { TeamPaths } from '../../store/paths.js';
import { planApproverOf, runtimeOf } from '../../config/index.js';
import type { TeamStore } from '../../store/team.js';
import type { MemberLaunch } from '../../app/multiplexer.js';
import type { LaunchArgs } from '../../mux/state.js';
import { TEAMUX_BIN } from '../../mcp/config.js';

/** The stand-in's node client, found from bin/teamux (this code also runs bundled, from another folder). */
const SHIM_CLIENT = path.join(path.dirname(TEAMUX_BIN), '..', 'dist', 'agents', 'claude', 'tmux-shim', 'client.js');

/** The roster as the identity block reads it, straight from the layout (statuses do not matter there). */
export function rosterOf(layout: NormalizedLayout): TeamConfig {
  const member = (m: NormalizedMember): Member => ({
    name: m.name, role: m.role, kind: m.isLead ? 'lead' : 'teammate', status: 'exited', pid: null, pidStart: null, joinedAt: null, exitCode: null,
    planRequired: m.planRequired, planApprover: planApproverOf(m, layout), tools: m.tools ?? null,
    runtime: runtimeOf(m),
  });
  return { version: 1, name: layout.name, root: layout.root, createdAt: '', layoutFile: null, run: null, members: [layout.lead, ...layout.teammates].map(member) };
}

type PerlScripts = Pick<ClaudeMemberContext, 'perlStop' | 'perlHooks'>;

function contextOf(m: NormalizedMember, layout: NormalizedLayout, teamDir: string, teamuxBin: string, perl: PerlScripts): ClaudeMemberContext {
  return { ...perl, member: m.name, teamDir, teamuxBin, node: process.execPath, permissionTimeout: layout.permissionTimeout, nativeTeams: isNativeLead(m) };
}

/** True for a Claude Code lead whose own agent teams open as teamux panes. */
export function isNativeLead(m: NormalizedMember): boolean {
  return m.isLead && !!m.claude?.nativeTeams;
}

/** Where this teamux serves a native lead's tmux stand-in (the socket is served by this process). */
export function tmuxShimPlace(paths: TeamPaths): TmuxShimPlace {
  return { socket: shimSocketPath(paths.tmuxSocket, paths.dir, tmpdir(), process.getuid?.() ?? 0), bin: paths.tmuxShimBin, serverPid: process.pid };
}

/** The launch of a Claude Code member; `env` is the pane environment teamux already built. */
export function claudeLaunchOf(m: NormalizedMember, layout: NormalizedLayout, teamDir: string, teamuxBin: string, env: Record<string, string>): MemberLaunch {
  const opts = m.claude!;
  const team = rosterOf(layout);
  const me = team.members.find((x) => x.name === m.name)!;
  const files = claudeFilesOf(new TeamPaths(teamDir), m.name);
  const demoUrl = env.TEAMUX_DEMO_URL;
  let runEnv = claudeEnv(env, m.name, teamDir, demoUrl);
  if (demoUrl) runEnv.HOME = files.demoHome;
  if (isNativeLead(m)) runEnv = nativeTeamsEnv(runEnv, tmuxShimPlace(new TeamPaths(teamDir)));
  // Settings and MCP config go inline, as JSON in argv, which no other process can change: the hook
  // commands in them carry the digests of the scripts they run (exec-check.ts). A native lead keeps
  // the files, since Claude Code hands its --settings on to the teammates it starts.
  const ctx = contextOf(m, layout, teamDir, teamuxBin, perlScriptsOf(layout, new TeamPaths(teamDir), teamuxBin).scripts);
  const given = isNativeLead(m) ? files : { settings: JSON.stringify(claudeSettings(ctx)), mcp: JSON.stringify(claudeMcpConfig(ctx)) };
  const args = claudeArgs(opts, given, systemPrompt(identityBlock(team, me, m.cwd, 'claude'), null));
  // The binary as validate found it on the member's PATH (a pane host does not search PATH itself).
  const found = findProgram(CLAUDE_PROGRAM, m.cwd, runEnv.PATH ?? '');
  const home = runEnv.HOME ?? homedir();
  const argsAtStart = (fresh: boolean): Promise<LaunchArgs> => claudeArgsAtStart(new TeamPaths(teamDir), m.name, home, args, fresh);
  return { name: m.name, role: m.role, isLead: m.isLead, speaksProtocol: true, command: found.ok ? found.file : CLAUDE_PROGRAM, args, cwd: m.cwd, env: runEnv, cli: 'claude', argsAtStart };
}

/**
 * Each start of a Claude Code member takes up the session its hooks recorded (same HOME, same cwd;
 * the settings and MCP config are written afresh before every screen starts): `claude --resume <id>`.
 * A fresh start is asked for (C-a F); a record that does not check out says why and starts fresh.
 */
export async function claudeArgsAtStart(paths: TeamPaths, member: string, home: string, args: string[], fresh: boolean): Promise<LaunchArgs> {
  if (fresh) return { args, note: 'a fresh conversation, as asked (C-a F)' };
  const session = await recordedSession(paths, member, home, CLAUDE_SESSION_ID);
  if (session === null) return { args, note: null };
  if (!session.ok) return { args, note: `cannot resume ${member}'s Claude Code conversation: ${session.why}; it starts a fresh one` };
  return { args: [...claudeResumeArgs(session.sessionId), ...args], note: `resuming Claude Code session ${session.sessionId}` };
}

/**
 * The Perl forms of the busiest hooks (when there is Perl): their texts, where they go in the exec
 * folder and their digests. Pure apart from finding perl, so a launch knows the digests its hook
 * commands carry before the files are written.
 */
export function perlScriptsOf(layout: NormalizedLayout, paths: TeamPaths, teamuxBin: string): { scripts: PerlScripts; texts: Array<[string, string]> } {
  // Codex members run the same scripts (src/agents/codex/member-launch.ts).
  const hooked = [layout.lead, ...layout.teammates].filter((m) => m.claude || m.codex);
  const perl = hooked.length > 0 ? findProgram('perl', layout.root, process.env.PATH ?? '') : null;
  if (!perl?.ok) return { scripts: {}, texts: [] };
  const stop = perlStopScript(perl.file, process.execPath, stopHookEntry(teamuxBin), teamuxBin);
  const hooks = perlHookScript(perl.file, process.execPath, teamuxBin);
  return {
    scripts: {
      perlStop: { perl: perl.file, file: claudeStopScript(paths), sha256: scriptDigest(stop) },
      perlHooks: { perl: perl.file, file: claudeHookScript(paths), sha256: scriptDigest(hooks) },
    },
    texts: [[claudeStopScript(paths), stop], [claudeHookScript(paths), hooks]],
  };
}

/** Write the hooks' scripts into the exec folder, and every Claude Code member's settings and MCP config into the team folder (and demo HOMEs). */
export async function prepareClaudeMembers(store: TeamStore, layout: NormalizedLayout, teamuxBin: string, demo: boolean): Promise<void> {
  // The Stop hook, the status line and PreToolUse run on every turn, tool or screen change: as Perl
  // scripts when there is Perl (they start in milliseconds).
  const claudeMembers = [layout.lead, ...layout.teammates].filter((m) => m.claude);
  const { scripts, texts } = perlScriptsOf(layout, store.paths, teamuxBin);
  for (const [file, text] of texts) await writeExecScript(store.paths.exec, file, text);
  for (const m of claudeMembers) {
    const ctx = contextOf(m, layout, store.dir, teamuxBin, scripts);
    await writeClaudeFiles(store.paths, m.name, { settings: claudeSettings(ctx), mcp: claudeMcpConfig(ctx), ...(demo ? { demoClaudeJson: demoClaudeJson(m.cwd) } : {}) });
    if (ctx.nativeTeams) {
      const perl = findProgram('perl', m.cwd, process.env.PATH ?? '');
      await writeTmuxShim(store.paths, tmuxShimScript(process.execPath, SHIM_CLIENT, perl.ok ? perl.file : null));
      await ensureSocketFolder(tmuxShimPlace(store.paths).socket);
    }
  }
}

/**
 * A Claude Code lead has no kickoff turn of its own (teamux's agent lead gets one): on a team's first
 * start its inbox gets the same kickoff text, which is typed in once it sits idle at its prompt.
 */
export async function kickoffClaudeLead(store: TeamStore, layout: NormalizedLayout): Promise<boolean> {
  if (!layout.lead.claude || existsSync(store.paths.inbox(layout.lead.name))) return false;
  const sent = await store.send({ from: layout.lead.name, to: layout.lead.name, type: 'message', text: defaultKickoff(layout.name) });
  return sent.ok;
}
