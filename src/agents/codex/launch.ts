/**
 * How teamux runs Codex CLI in a member's pane, as pure functions of the member and the team: its
 * config home's `config.toml` (the model provider — the offline demo's Responses endpoint or the
 * OpenAI API with the key from the environment —, the teamux MCP server, the member's folder
 * trusted, the identity prompt as `developer_instructions`) and `hooks.json` (the same `teamux hook`
 * commands Claude Code members run: Codex 0.171.0 sends Claude Code's hook shapes, docs/agent-clis.md),
 * the argv and the environment. Nothing here touches the disk; src/store/codex.ts writes the files
 * into the team folder, never into the user's ~/.codex or the project's .codex/.
 */
import type { NormalizedCodex } from '../../config/normalize.js';
import { hookCommand, type ClaudeMemberContext } from '../claude/launch.js';
import { mcpClientConfig } from '../../mcp/config.js';

/** The hook events teamux registers with Codex (it has no Notification and no status line command). */
export const CODEX_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'Stop', 'SessionEnd'] as const;

/** The environment variable the demo provider reads its key from (sent as a Bearer token to 127.0.0.1 only). */
export const CODEX_DEMO_KEY_ENV = 'TEAMUX_DEMO_KEY';
/** The model a demo member asks for when the layout names none. */
export const CODEX_DEMO_MODEL = 'gpt-5-codex';

/** What the files are built from: the hook context Claude Code members use, plus the member's folder and prompt. */
export interface CodexMemberContext extends ClaudeMemberContext {
  cwd: string;
  opts: NormalizedCodex;
  systemPrompt: string;
  /** The offline demo model's base URL, when the team runs on it. */
  demoUrl: string | undefined;
}

/** A TOML basic string (JSON's escapes are TOML's). */
function tomlString(s: string): string {
  return JSON.stringify(s);
}

function tomlArray(items: readonly string[]): string {
  return `[${items.map(tomlString).join(', ')}]`;
}

function tomlInline(record: Record<string, string>): string {
  return `{ ${Object.entries(record).map(([k, v]) => `${tomlString(k)} = ${tomlString(v)}`).join(', ')} }`;
}

/** The member's `config.toml`. */
export function codexConfigToml(ctx: CodexMemberContext): string {
  const mcp = mcpClientConfig(ctx.teamDir, ctx.member, ctx.teamuxBin).mcpServers['teamux']!;
  const model = ctx.opts.model ?? (ctx.demoUrl ? CODEX_DEMO_MODEL : undefined);
  const lines = [
    '# Written by teamux for this member; regenerated at every start (edit the layout instead).',
    ...(model ? [`model = ${tomlString(model)}`] : []),
    `model_provider = ${tomlString(ctx.demoUrl ? 'teamux-demo' : 'teamux-openai')}`,
    `approval_policy = ${tomlString(ctx.opts.approval)}`,
    `sandbox_mode = ${tomlString(ctx.opts.sandbox)}`,
    `developer_instructions = ${tomlString(ctx.systemPrompt)}`,
    '',
    ctx.demoUrl ? '[model_providers.teamux-demo]' : '[model_providers.teamux-openai]',
    `name = ${tomlString(ctx.demoUrl ? 'teamux demo model' : 'OpenAI')}`,
    `base_url = ${tomlString(ctx.demoUrl ? `${ctx.demoUrl.replace(/\/+$/, '')}/m/${ctx.member}/v1` : 'https://api.openai.com/v1')}`,
    'wire_api = "responses"',
    `env_key = ${tomlString(ctx.demoUrl ? CODEX_DEMO_KEY_ENV : 'OPENAI_API_KEY')}`,
    '',
    '[mcp_servers.teamux]',
    `command = ${tomlString(mcp.command)}`,
    `args = ${tomlArray(mcp.args)}`,
    `env = ${tomlInline(mcp.env)}`,
    '',
    `[projects.${tomlString(ctx.cwd)}]`,
    'trust_level = "trusted"',
    '',
  ];
  return lines.join('\n');
}

/** The member's `hooks.json`: every event through `teamux hook`, PermissionRequest waiting as long as permission_timeout. */
export function codexHooks(ctx: CodexMemberContext): Record<string, unknown> {
  const hooks: Record<string, unknown[]> = {};
  for (const event of CODEX_HOOK_EVENTS) {
    // The hook waits up to permission_timeout itself and then steps aside; Codex's own limit is later.
    const timeout = event === 'PermissionRequest' ? Math.ceil(ctx.permissionTimeout) + 30 : 30;
    hooks[event] = [{ ...(event === 'PreToolUse' || event === 'PermissionRequest' ? { matcher: '*' } : {}), hooks: [{ type: 'command', command: hookCommand(ctx, event), timeout }] }];
  }
  return { hooks };
}

/**
 * The argv after `codex`: the member's own args, then teamux's. The hooks are teamux's own, written
 * into a config home only teamux writes, so they run without Codex's per-hash trust review.
 */
export function codexArgs(opts: NormalizedCodex): string[] {
  return [...opts.args, '--dangerously-bypass-hook-trust', '--ask-for-approval', opts.approval, '--sandbox', opts.sandbox];
}

/** The environment Codex runs with: the member's, teamux's, its config home and scratch folder, never tmux's. */
export function codexEnv(base: Record<string, string>, member: string, teamDir: string, dirs: { home: string; tmp: string }, demoUrl: string | undefined): Record<string, string> {
  // TMPDIR: Codex refuses to put its sandbox helper under the system's temporary folder, where a
  // test's team folder may sit; its own scratch folder in the team folder is not that.
  const env: Record<string, string> = { ...base, TEAMUX_TEAM_DIR: teamDir, TEAMUX_MEMBER: member, CODEX_HOME: dirs.home, TMPDIR: dirs.tmp };
  delete env.TMUX;
  delete env.TMUX_PANE;
  if (demoUrl) env[CODEX_DEMO_KEY_ENV] = 'teamux-demo-key0';
  return env;
}
