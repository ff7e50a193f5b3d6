/**
 * The normalized layout: what the rest of teamux consumes once a file is valid. Spellings are
 * settled (a command is always `{ program, args }`, a layout always `{ name, mainSize }`, hooks are
 * lists, keys are camelCase), every directory is absolute, every seed task has an id, and each
 * member's `env` already includes the team's `env` (the member's own entries win).
 */
import type { Budget } from '../protocol/budget.js';
import { OPERATOR } from '../protocol/operator.js';
import { normalizeBudget } from './budget.js';
import path from 'node:path';
import { splitCommand } from './command-words.js';
import type { KeyAction } from './keys-actions.js';
import type { Backend, ClaudePermissionMode, CodexApproval, CodexSandbox, Layout, LayoutName, Member, PlanApprover, SidebarSection } from './schema.js';
import { assignTaskIds } from './seed-tasks.js';
import { normalizePipeline, type NormalizedPipeline } from './pipeline.js';
import { normalizeWorktrees, type NormalizedWorktrees } from './worktrees.js';

/** A program and its arguments; `program` is a bare name (looked up on PATH) or an absolute path. */
export interface NormalizedCommand {
  program: string;
  args: string[];
}

/** A member run by teamux's agent runtime. */
export interface NormalizedAgent {
  model?: string;
  maxTokens?: number;
  systemPrompt?: string;
  autoClaim: boolean;
  /** Absolute path of a scripted run to play instead of calling a model. */
  demoScript?: string;
}

/** A member run by the Claude Code CLI. */
/** A Codex CLI member's options. */
export interface NormalizedCodex {
  model?: string;
  approval: CodexApproval;
  sandbox: CodexSandbox;
  /** Extra arguments, passed after teamux's own. */
  args: string[];
}

export interface NormalizedClaude {
  model?: string;
  permissionMode: ClaudePermissionMode;
  /** Extra arguments, passed after teamux's own. */
  args: string[];
  /** Claude Code's own agent teams as teamux panes (lead only); null when off. */
  nativeTeams?: { planRequired: boolean } | null;
}

/** The lead or a teammate. Exactly one of `command`, `agent` and `claude` is set. */
export interface NormalizedMember {
  name: string;
  role: string;
  isLead: boolean;
  command?: NormalizedCommand;
  agent?: NormalizedAgent;
  claude?: NormalizedClaude;
  codex?: NormalizedCodex;
  /** Absolute working directory (under root; a member with a worktree starts at the same place in its worktree). */
  cwd: string;
  /** Works in a git worktree of its own (layout `worktrees:`; teammates unless `worktree: false`, the lead only with `worktree: true`). */
  worktree: boolean;
  /** Team env merged with the member's own. */
  env: Record<string, string>;
  planRequired: boolean;
  /** Answers shutdown requests (agents, and commands marked `speaks_protocol`); others are hung up on. */
  speaksProtocol: boolean;
  /** Allowlist of tool names; absent means no restriction. */
  tools?: string[];
  /** A command member that gets a ready MCP config (TEAMUX_MCP_CONFIG). */
  mcp: boolean;
  /** Runs in a bubblewrap sandbox (the member's `sandbox`, else the layout's). */
  sandbox: boolean;
  /** The member's own budget (`budget:`); absent or null: none. */
  budget?: Budget | null;
  /** Started on another machine by hand (`remote: true`): no pane here. */
  remote?: boolean;
  /** Started from this screen over ssh on this host (`host: user@machine[:port]`). */
  host?: string;
}

/** A task put on the board at start. */
export interface NormalizedSeedTask {
  id: string;
  subject: string;
  description?: string;
  blockedBy: string[];
}

/** Size of the main pane: a percentage of the window, or a number of cells. */
export type MainSize = { unit: 'percent'; value: number } | { unit: 'cells'; value: number };

/** A whole team, ready to start. */
export interface NormalizedLayout {
  name: string;
  /** Absolute project directory. */
  root: string;
  env: Record<string, string>;
  backend: Backend;
  layout: { name: LayoutName; mainSize: MainSize };
  /** Width in cells or percent of the terminal, clamped to minWidth..maxWidth; hidden below hideBelow columns. */
  sidebar: { position: 'left' | 'right'; width: { cells: number } | { percent: number }; minWidth: number; maxWidth: number; hideBelow: number; sections: SidebarSection[]; hidden: boolean };
  /** Bell, terminal title and notify command when a request starts waiting. */
  attention: { bell: boolean; title: boolean; notify: string[] | null; webhook: { url: string; topic: string | null } | null };
  /** The web view; null: off unless --web. TLS files are absolute. */
  web: { port: number; listen: string; tls: { cert: string; key: string } | null } | null;
  keys: { prefix: string; bindings: Partial<Record<KeyAction, string>> };
  /** Seconds. */
  shutdownTimeout: number;
  /** Lines of scrollback per pane. */
  scrollback: number;
  /** Colours panes report when the outer terminal does not answer (X11 colour strings, as written). */
  theme: { foreground?: string; background?: string; cursor?: string };
  planApprover: PlanApprover;
  /** Seconds a Claude Code member's permission request waits for teamux's answer. */
  permissionTimeout: number;
  /** Members run sandboxed unless they say otherwise (`sandbox:`). */
  sandbox: boolean;
  /** The whole team's budget (`budget:`); absent: none. */
  budget?: Budget | null;
  lead: NormalizedMember;
  teammates: NormalizedMember[];
  tasks: NormalizedSeedTask[];
  hooks: { onStart: string[]; onShutdown: string[] };
  /** Where agents read the API key (also put in every member's env as TEAMUX_API_KEY_FILE / _COMMAND). */
  apiKey: { file: string } | { command: string } | null;
  /** The staged pipeline the team runs as, or null for a free task board. */
  pipeline: NormalizedPipeline | null;
  /** The NATS store URL (`store:`), or null for the team folder. */
  store: string | null;
  /** Members' git worktrees (`worktrees:`), or null when everyone works in root. */
  worktrees: NormalizedWorktrees | null;
}

/** Where relative paths start and what `~` means. */
export interface NormalizeContext {
  /** The layout file's directory. */
  baseDir: string;
  home: string;
}

/** `~` and `~/x` with `home` substituted; other paths unchanged. */
export function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return p;
}

/** `p` (with `~` expanded) as an absolute path, relative ones taken from `base`. */
export function resolvePath(p: string, base: string, home: string): string {
  return path.resolve(base, expandHome(p, home));
}

function normalizeMainSize(size: string | number): MainSize {
  return typeof size === 'number' ? { unit: 'cells', value: size } : { unit: 'percent', value: Number.parseInt(size, 10) };
}

function normalizeCommand(command: string | string[], cwd: string, home: string): NormalizedCommand {
  const words = typeof command === 'string' ? splitCommand(command, home) : { ok: true as const, words: command };
  if (!words.ok) throw new Error(`normalizeCommand: unvalidated command ${JSON.stringify(command)}`);
  const [first = '', ...args] = words.words;
  const expanded = expandHome(first, home);
  const program = expanded.includes('/') ? path.resolve(cwd, expanded) : expanded;
  return { program, args };
}

/** The variables that tell an agent where its key is (a path or a command, never the key). */
function keySourceEnv(apiKey: NormalizedLayout['apiKey']): Record<string, string> {
  if (apiKey === null) return {};
  return 'file' in apiKey ? { TEAMUX_API_KEY_FILE: apiKey.file } : { TEAMUX_API_KEY_COMMAND: apiKey.command };
}

function normalizeMember(m: Member, isLead: boolean, layout: Layout, root: string, home: string, apiKey: NormalizedLayout['apiKey']): NormalizedMember {
  const cwd = m.cwd === undefined ? root : resolvePath(m.cwd, root, home);
  const out: NormalizedMember = {
    name: m.name,
    role: m.role,
    isLead,
    cwd,
    // A member on another machine (remote:, host:) has no worktree here.
    worktree: layout.worktrees !== undefined && !m.remote && m.host === undefined && (m.worktree ?? !isLead),
    env: { ...layout.env, ...m.env, ...keySourceEnv(apiKey) },
    planRequired: m.plan_required,
    speaksProtocol: m.agent !== undefined || m.speaks_protocol === true,
    mcp: m.mcp,
    sandbox: m.sandbox ?? layout.sandbox ?? false,
    ...(m.budget ? { budget: normalizeBudget(m.budget) } : {}),
  };
  if (m.command !== undefined) out.command = normalizeCommand(m.command, cwd, home);
  if (m.agent !== undefined && m.agent !== true && m.agent.cli === 'claude') {
    const c = m.agent;
    out.claude = { permissionMode: c.permission_mode, args: [...c.args], ...(c.model !== undefined ? { model: c.model } : {}) };
    if (c.native_teams !== false) out.claude.nativeTeams = { planRequired: c.native_teams === true ? false : c.native_teams.plan_required };
  } else if (m.agent !== undefined && m.agent !== true && m.agent.cli === 'codex') {
    const c = m.agent;
    out.codex = { approval: c.approval, sandbox: c.sandbox, args: [...c.args], ...(c.model !== undefined ? { model: c.model } : {}) };
  } else if (m.agent !== undefined) {
    const a = m.agent === true ? { auto_claim: false } : m.agent;
    const agent: NormalizedAgent = { autoClaim: a.auto_claim };
    if ('model' in a && a.model !== undefined) agent.model = a.model;
    if ('max_tokens' in a && a.max_tokens !== undefined) agent.maxTokens = a.max_tokens;
    if ('system_prompt' in a && a.system_prompt !== undefined) agent.systemPrompt = a.system_prompt;
    if ('demo_script' in a && a.demo_script !== undefined) agent.demoScript = resolvePath(a.demo_script, root, home);
    out.agent = agent;
  }
  if (m.tools !== undefined) out.tools = [...new Set(m.tools)];
  if (m.remote) {
    out.remote = true;
    // It runs teamux's agent (or something that speaks the protocol) on its machine.
    out.speaksProtocol = true;
  }
  if (m.host !== undefined) out.host = m.host;
  return out;
}

const asList = (v: string | string[] | undefined): string[] => (v === undefined ? [] : typeof v === 'string' ? [v] : v);

/** The normalized form of a layout that passed `LayoutSchema`. */
export function normalizeLayout(layout: Layout, ctx: NormalizeContext): NormalizedLayout {
  const root = layout.root === undefined ? path.resolve(ctx.baseDir) : resolvePath(layout.root, ctx.baseDir, ctx.home);
  const paneLayout =
    typeof layout.layout === 'string'
      ? { name: layout.layout, mainSize: normalizeMainSize('50%') }
      : { name: layout.layout.name, mainSize: normalizeMainSize(layout.layout.main_size) };
  const ids = assignTaskIds(layout.tasks);
  const apiKey = layout.api_key === undefined ? null : 'file' in layout.api_key ? { file: resolvePath(layout.api_key.file, root, ctx.home) } : { command: layout.api_key.command };
  return {
    name: layout.name,
    root,
    env: { ...layout.env },
    backend: layout.backend,
    layout: paneLayout,
    sidebar: {
      position: layout.sidebar.position,
      width: typeof layout.sidebar.width === 'number' ? { cells: layout.sidebar.width } : { percent: Number(layout.sidebar.width.slice(0, -1)) },
      minWidth: layout.sidebar.min_width,
      maxWidth: layout.sidebar.max_width,
      hideBelow: layout.sidebar.hide_below,
      sections: [...layout.sidebar.sections],
      hidden: layout.sidebar.hidden,
    },
    attention: {
      bell: layout.attention.bell, title: layout.attention.title, notify: layout.attention.notify ? [...layout.attention.notify] : null,
      webhook: layout.attention.webhook === undefined ? null : typeof layout.attention.webhook === 'string' ? { url: layout.attention.webhook, topic: null } : { url: layout.attention.webhook.url, topic: layout.attention.webhook.topic ?? null },
    },
    web: layout.web ? { port: layout.web.port, listen: layout.web.listen, tls: layout.web.tls ? { cert: resolvePath(layout.web.tls.cert, ctx.baseDir, ctx.home), key: resolvePath(layout.web.tls.key, ctx.baseDir, ctx.home) } : null } : null,
    keys: { prefix: layout.keys.prefix, bindings: { ...layout.keys.bindings } },
    shutdownTimeout: layout.shutdown_timeout,
    scrollback: layout.scrollback,
    theme: { ...layout.theme },
    planApprover: layout.plan_approver,
    permissionTimeout: layout.permission_timeout,
    sandbox: layout.sandbox ?? false,
    store: layout.store === undefined || layout.store === 'folder' ? null : layout.store,
    ...(layout.budget ? { budget: normalizeBudget(layout.budget) } : {}),
    lead: normalizeMember(layout.lead, true, layout, root, ctx.home, apiKey),
    teammates: layout.teammates.map((m) => normalizeMember(m, false, layout, root, ctx.home, apiKey)),
    tasks: layout.tasks.map((t, i) => {
      const task: NormalizedSeedTask = { id: ids[i]!, subject: t.subject, blockedBy: [...new Set(t.blockedBy.map(String))] };
      if (t.description !== undefined) task.description = t.description;
      return task;
    }),
    hooks: { onStart: asList(layout.hooks.on_start), onShutdown: asList(layout.hooks.on_shutdown) },
    apiKey,
    pipeline: layout.pipeline === undefined ? null : normalizePipeline(layout.pipeline),
    worktrees: normalizeWorktrees(layout.worktrees),
  };
}

/** Which runtime runs a member: Claude Code, Codex CLI, teamux's agent or a plain command. */
export function runtimeOf(m: NormalizedMember): 'claude' | 'codex' | 'agent' | 'command' {
  return m.claude ? 'claude' : m.codex ? 'codex' : m.agent ? 'agent' : 'command';
}

/** Who answers a member's plan: nobody for the lead, else the person (OPERATOR) or the lead, as the layout says. */
export function planApproverOf(m: NormalizedMember, layout: NormalizedLayout): string | null {
  if (m.isLead) return null;
  return layout.planApprover === 'human' ? OPERATOR : layout.lead.name;
}
