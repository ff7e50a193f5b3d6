/**
 * From a layout's `agent: { cli: codex }` member to what the multiplexer launches: the codex binary
 * with its config home in the team folder (config.toml and hooks.json, src/agents/codex/launch.ts),
 * the identity block Claude Code members get as its developer instructions, and its environment.
 * The files are written by `prepareCodexMembers` before any pane starts. The hooks are the ones
 * Claude Code members run (Stop, PreToolUse, PermissionRequest… through `teamux hook`), with the same
 * Perl fast paths when there is Perl.
 */
import type { NormalizedLayout, NormalizedMember } from '../../config/index.js';
import { findProgram } from '../../config/checks.js';
import { CODEX_CLI } from '../../config/cli-checks.js';
import { identityBlock, systemPrompt } from '../../agent/prompt.js';
import { codexArgs, codexConfigToml, codexEnv, codexHooks, type CodexMemberContext } from './launch.js';
import { updateClaudeActivity } from '../../store/claude.js';
import { writeExecScript } from '../../store/exec-folder.js';
import { codexDirsOf, writeCodexFiles } from '../../store/codex.js';
import { TeamPaths } from '../../store/paths.js';
import type { TeamStore } from '../../store/team.js';
import type { MemberLaunch } from '../../app/multiplexer.js';
import { perlScriptsOf, rosterOf } from '../claude/member-launch.js';

function promptOf(m: NormalizedMember, layout: NormalizedLayout): string {
  const team = rosterOf(layout);
  const me = team.members.find((x) => x.name === m.name)!;
  return systemPrompt(identityBlock(team, me, m.cwd, 'claude'), null);
}

/** The launch of a Codex CLI member; `env` is the pane environment teamux already built. */
export function codexLaunchOf(m: NormalizedMember, teamDir: string, env: Record<string, string>): MemberLaunch {
  const runEnv = codexEnv(env, m.name, teamDir, codexDirsOf(new TeamPaths(teamDir), m.name), env.TEAMUX_DEMO_URL);
  const found = findProgram(CODEX_CLI.program, m.cwd, runEnv.PATH ?? '');
  return { name: m.name, role: m.role, isLead: m.isLead, speaksProtocol: true, command: found.ok ? found.file : CODEX_CLI.program, args: codexArgs(m.codex!), cwd: m.cwd, env: runEnv, cli: 'codex' };
}

/** Write every Codex member's config home into the team folder. */
export async function prepareCodexMembers(store: TeamStore, layout: NormalizedLayout, teamuxBin: string, demoUrl: string | undefined): Promise<void> {
  const members = [layout.lead, ...layout.teammates].filter((m) => m.codex);
  if (members.length === 0) return;
  // The same scripts Claude Code members use, in the exec folder (written once per start, whichever CLI comes first).
  const { scripts, texts } = perlScriptsOf(layout, store.paths, teamuxBin);
  for (const [file, text] of texts) await writeExecScript(store.paths.exec, file, text);
  for (const m of members) {
    const ctx: CodexMemberContext = { ...scripts, member: m.name, teamDir: store.dir, teamuxBin, node: process.execPath, permissionTimeout: layout.permissionTimeout, cwd: m.cwd, opts: m.codex!, systemPrompt: promptOf(m, layout), demoUrl };
    await writeCodexFiles(store.paths, m.name, { configToml: codexConfigToml(ctx), hooks: codexHooks(ctx) });
    // Codex fires SessionStart only with its first turn; until then it sits at its prompt, idle.
    await updateClaudeActivity(store.paths, m.name, { state: 'idle' });
  }
}
