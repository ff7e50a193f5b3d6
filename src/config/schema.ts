/**
 * The layout file's schema: the one source of the types a team is started from and of the messages
 * a bad file earns. Every object is strict (an unknown key is an error, not a silent no-op), every
 * optional knob has its default here, and the rules that span fields (unique member names, seed-task
 * dependencies, one binding per key) are refinements on the schema so any caller of
 * `LayoutSchema.safeParse` gets them. Paths on disk are not touched here; see load.ts.
 */
import { z } from '../protocol/zod.js';
import { NAME_PATTERN } from '../protocol/types.js';
import { OPERATOR } from '../protocol/operator.js';
import { BudgetSchema } from './budget.js';
import { splitCommand } from './command-words.js';
import { KEY_ACTIONS, KEY_NAME_EXAMPLES, KEY_NAME_PATTERN } from './keys-actions.js';
import { describeValue } from './messages.js';
import { seedTaskProblems } from './seed-tasks.js';
import { PipelineSchema, pipelineRoleProblems } from './pipeline.js';
import { WorktreesSchema } from './worktrees.js';

/** Team and member names name panes, inboxes and files: the protocol's one pattern keeps paths out. */
export { NAME_PATTERN };
/** Seed task ids: they may name files too. */
export const TASK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** tmux's preset layouts, which the pty backend reproduces. */
export const LAYOUT_NAMES = ['main-vertical', 'main-horizontal', 'tiled', 'even-horizontal', 'even-vertical'] as const;
/** What the sidebar can show, top to bottom. */
export const SIDEBAR_SECTIONS = ['task_board', 'mailbox', 'requests'] as const;
/** Where panes live. */
export const BACKENDS = ['pty', 'tmux'] as const;
/** Who approves a teammate's plan when the member has `plan_required`. */
export const PLAN_APPROVERS = ['human', 'lead'] as const;

const Name = z.string().regex(NAME_PATTERN, {
  error: (iss) => `expected a name matching ${NAME_PATTERN.source}, got ${describeValue(iss.input)}`,
});

const KeyName = z.string().regex(KEY_NAME_PATTERN, {
  error: (iss) => `expected a key name like ${KEY_NAME_EXAMPLES}, got ${describeValue(iss.input)}`,
});

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  error: (iss) => `expected an environment variable name (letters, digits, _), got ${describeValue(iss.input)}`,
});
const Env = z.record(EnvName, z.string()).meta({ description: 'Environment variables (string values; quote numbers).' });

const LayoutName = z.enum(LAYOUT_NAMES, {
  error: (iss) => `expected a tmux layout name, got ${describeValue(iss.input)}`,
});

const mainSizeMessage = (iss: { input?: unknown }): string =>
  `expected a percentage like "60%" (1% to 99%) or a number of cells, got ${describeValue(iss.input)}`;
const MainSize = z.union(
  [
    z.string().regex(/^(?:[1-9]|[1-9][0-9])%$/, { error: mainSizeMessage }),
    z.number().int({ error: mainSizeMessage }).min(1, { error: mainSizeMessage }),
  ],
  { error: mainSizeMessage },
);

const PaneLayout = z
  .union(
    [
      LayoutName,
      z.strictObject({
        name: LayoutName.default('main-vertical'),
        main_size: MainSize.default('50%').meta({ description: 'Size of the main pane: "60%" or a cell count.' }),
      }),
    ],
    { error: (iss) => `expected a layout name or a mapping with name and main_size, got ${describeValue(iss.input)}` },
  )
  .meta({ description: `Pane arrangement: one of ${LAYOUT_NAMES.join(', ')}, or { name, main_size }.` });

const Sidebar = z.strictObject({
  position: z.enum(['left', 'right']).default('right'),
  width: z
    .union([z.number().int().min(10).max(200), z.string().regex(/^(?:[1-9]|[1-9][0-9])%$/)], {
      error: (iss) => `expected a width in columns (10..200) or a percentage like "30%", got ${describeValue(iss.input)}`,
    })
    .default('30%')
    .meta({ description: 'Width: columns, or a percentage of the terminal ("30%"), kept within min_width..max_width.' }),
  min_width: z.number().int().min(10).max(200).default(24).meta({ description: 'Narrowest the sidebar gets, in columns.' }),
  max_width: z.number().int().min(10).max(400).default(48).meta({ description: 'Widest the sidebar gets, in columns.' }),
  hide_below: z.number().int().min(0).max(1000).default(90).meta({ description: 'On a terminal narrower than this many columns the sidebar hides itself (C-a t shows it).' }),
  sections: z
    .array(z.enum(SIDEBAR_SECTIONS))
    .default([...SIDEBAR_SECTIONS])
    .superRefine((sections, ctx) => {
      sections.forEach((s, i) => {
        if (sections.indexOf(s) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `section "${s}" is listed twice` });
      });
    }),
  hidden: z.boolean().default(false),
}).superRefine((sidebar, ctx) => {
  if (sidebar.min_width > sidebar.max_width) {
    ctx.addIssue({ code: 'custom', path: ['min_width'], message: `min_width ${sidebar.min_width} is larger than max_width ${sidebar.max_width}`, params: { hint: 'make min_width at most max_width' } });
  }
});

/** How pending requests get the person's attention. */
const Attention = z.strictObject({
  bell: z.boolean().default(true).meta({ description: 'Ring the terminal bell when a request starts waiting.' }),
  title: z.boolean().default(true).meta({ description: 'Show "⚑ N awaiting" in the terminal title while requests wait.' }),
  notify: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .meta({ description: 'A command run (no shell) with the request summary (and the web view link, when it is on) as its last argument, e.g. [notify-send, teamux].' }),
  webhook: z
    .union([
      z.url({ protocol: /^https?$/ }),
      z.strictObject({ url: z.url({ protocol: /^https?$/ }), topic: z.string().min(1).optional() }),
    ])
    .optional()
    .meta({ description: 'POST a JSON notice (title, message, click link) here when a request starts waiting; with topic: ntfy\'s JSON form (url is the ntfy server).' }),
});

/** The web view the screen serves (off unless given, or --web on start / attach). */
const Web = z
  .strictObject({
    port: z.number().int().min(1).max(65535).default(7777).meta({ description: 'TCP port of the web view.' }),
    listen: z.string().min(1).default('127.0.0.1').meta({ description: 'Address to listen on; anything but loopback reaches beyond this machine (validate warns).' }),
    tls: z
      .strictObject({
        cert: z.string().min(1).meta({ description: "PEM certificate file (relative to the layout file's folder)." }),
        key: z.string().min(1).meta({ description: "PEM private key file (relative to the layout file's folder)." }),
      })
      .optional()
      .meta({ description: 'Serve https with this certificate: for use beyond localhost.' }),
  })
  .meta({ description: 'A web view of the team (board, traffic, requests to answer), served by the screen and protected by a token shown on it (C-a W).' });

const Bindings = z
  .partialRecord(z.enum(KEY_ACTIONS), KeyName, {
    error: (iss) => ((iss.code as string) === 'unrecognized_keys' ? 'unknown action' : undefined),
  })
  .superRefine((bindings, ctx) => {
    const owner = new Map<string, string>();
    for (const [action, key] of Object.entries(bindings)) {
      if (key === undefined) continue;
      const first = owner.get(key);
      if (first === undefined) owner.set(key, action);
      else ctx.addIssue({ code: 'custom', path: [action], message: `key "${key}" is already bound to ${first}` });
    }
  })
  .meta({ description: 'Overrides: action name -> key pressed after the prefix.' });

const Keys = z.strictObject({
  prefix: KeyName.default('C-a').meta({ description: 'The prefix key, like C-a, C-g, C-space, M-x.' }),
  bindings: Bindings.default({}),
});

const CommandLine = z
  .string()
  .min(1)
  .superRefine((line, ctx) => {
    const words = splitCommand(line);
    if (!words.ok) ctx.addIssue({ code: 'custom', message: words.message, params: { hint: words.hint } });
  });
const Command = z
  .union([CommandLine, z.array(z.string().min(1)).min(1)], {
    error: (iss) => `expected a command string or a list [program, ...args], got ${describeValue(iss.input)}`,
  })
  .meta({ description: 'What the pane runs: "prog arg ..." (split like a shell, no shell features) or [prog, ...args].' });

/** Options for a member run by teamux's own agent runtime. */
export const AgentOptionsSchema = z.strictObject({
  cli: z.literal('teamux').optional().meta({ description: "teamux's own agent runtime (the default)." }),
  model: z.string().min(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  system_prompt: z.string().optional(),
  auto_claim: z.boolean().default(false).meta({ description: 'Claim unblocked tasks from the board unasked.' }),
  demo_script: z.string().min(1).optional().meta({ description: 'Scripted run instead of a model (path, relative to root).' }),
});

/** Claude Code's permission modes a member may start in. */
export const CLAUDE_PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'] as const;

/** Options for a member run by the Claude Code CLI (`agent: { cli: claude }`). */
export const ClaudeAgentOptionsSchema = z.strictObject({
  cli: z.literal('claude').meta({ description: 'Run the member with the Claude Code CLI (the `claude` binary on PATH).' }),
  model: z.string().min(1).optional().meta({ description: "Claude Code's --model (default: its own)." }),
  permission_mode: z.enum(CLAUDE_PERMISSION_MODES).default('default').meta({ description: "Claude Code's --permission-mode." }),
  args: z.array(z.string()).default([]).meta({ description: 'Extra arguments for claude, after the ones teamux passes.' }),
  native_teams: z
    .union([z.boolean(), z.strictObject({ plan_required: z.boolean().default(false).meta({ description: "Hold Claude Code's teammates to teamux's plan gate." }) })], {
      error: (iss) => `expected true, false or { plan_required: true|false }, got ${describeValue(iss.input)}`,
    })
    .default(false)
    .meta({ description: "Lead only: Claude Code's own agent teams open their teammates as teamux panes (a tmux stand-in on its PATH)." }),
});

/** Codex CLI's approval policies (0.171.0 accepts only these two; `untrusted` and `on-failure` are gone). */
export const CODEX_APPROVALS = ['on-request', 'never'] as const;
/** Codex CLI's sandbox modes. */
export const CODEX_SANDBOXES = ['read-only', 'workspace-write', 'danger-full-access'] as const;

/** Options for a member run by the Codex CLI (`agent: { cli: codex }`). */
export const CodexAgentOptionsSchema = z.strictObject({
  cli: z.literal('codex').meta({ description: 'Run the member with the Codex CLI (the `codex` binary on PATH).' }),
  model: z.string().min(1).optional().meta({ description: "Codex's model (default: its own)." }),
  approval: z.enum(CODEX_APPROVALS).default('on-request').meta({ description: "Codex's --ask-for-approval: on-request asks (in the sidebar) before a command leaves the sandbox." }),
  sandbox: z.enum(CODEX_SANDBOXES).default('workspace-write').meta({ description: "Codex's --sandbox." }),
  args: z.array(z.string()).default([]).meta({ description: 'Extra arguments for codex, after the ones teamux passes.' }),
});

const AgentCli = z.discriminatedUnion('cli', [ClaudeAgentOptionsSchema, CodexAgentOptionsSchema, AgentOptionsSchema], {
  error: (iss) => `expected cli: claude (Claude Code), cli: codex (Codex CLI) or cli: teamux (teamux's own agent, the default), got ${describeValue((iss.input as { cli?: unknown } | undefined)?.cli)}`,
});

const Agent = z
  .union([z.literal(true), AgentCli], {
    error: (iss) => `expected true or a mapping of agent options, got ${describeValue(iss.input)}`,
  })
  .meta({ description: 'Run this member as a teamux agent (true, or options), as Claude Code ({ cli: claude, ... }) or as Codex CLI ({ cli: codex, ... }).' });

const ToolName = z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, {
  error: (iss) => `expected a tool name, got ${describeValue(iss.input)}`,
});

/** A member of the team (the lead or a teammate): exactly one of `command` or `agent`. */
export const MemberSchema = z
  .strictObject({
    name: Name,
    role: z.string().min(1).meta({ description: 'What this member does; shown to the team.' }),
    command: Command.optional(),
    agent: Agent.optional(),
    cwd: z.string().min(1).optional().meta({ description: 'Working directory, relative to root (to its worktree when it has one); ~ expands.' }),
    worktree: z.boolean().optional().meta({ description: 'With worktrees: in the layout, whether this member gets its own git worktree (teammates: yes unless false; the lead: only if true).' }),
    env: Env.default({}),
    plan_required: z.boolean().default(false).meta({ description: 'Must get a plan approved before working.' }),
    speaks_protocol: z.boolean().optional().meta({
      description: 'The command answers shutdown requests through the teamux CLI (agents always do). Without it, quitting hangs up on the member (SIGHUP), as closing its terminal would.',
    }),
    tools: z.array(ToolName).optional().meta({ description: 'Allowlist of tool names (agents, and MCP tools of mcp: true members).' }),
    budget: BudgetSchema.optional(),
    sandbox: z.boolean().optional().meta({ description: "Run this member in its own sandbox (bubblewrap; docs/security.md). Default: the layout's sandbox. false runs it unsandboxed, with a warning from validate." }),
    mcp: z.boolean().default(false).meta({ description: 'Command members only: write a ready MCP config for `teamux mcp --as NAME` into the team folder; its path is in $TEAMUX_MCP_CONFIG (for Codex CLI, Gemini CLI or any MCP client).' }),
    remote: z.boolean().default(false).meta({
      description: 'Runs on another machine and is started there (`teamux agent --store URL --team TEAM --as NAME`): this screen opens no pane for it and shows it in the sidebar. Needs a NATS store.',
    }),
    host: z
      .string()
      .regex(/^([A-Za-z0-9._-]+@)?[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?$/, { message: 'expected user@machine, machine, or either with :PORT' })
      .optional()
      .meta({ description: 'Start this member on another machine over `ssh -tt user@machine` in its pane (the store URL and credentials are passed on; needs a NATS store and teamux on that machine).' }),
  })
  .superRefine(
    (member, ctx) => {
      // Runs even when other fields failed (a bad role should not hide a missing command).
      if (typeof member !== 'object' || member === null) return;
      if (member.remote === true) {
        if (member.host !== undefined) ctx.addIssue({ code: 'custom', path: ['host'], message: 'a remote: true member is started on its machine by hand; host: starts one from here over ssh', params: { hint: 'keep one of remote: true or host:' } });
        if (member.command !== undefined || member.agent !== undefined) ctx.addIssue({ code: 'custom', path: ['remote'], message: 'a remote: true member is started on its own machine, so this layout gives it no command or agent', params: { hint: 'remove command/agent, or use host: user@machine to start it from here over ssh' } });
        return;
      }
      if (member.agent !== undefined && member.speaks_protocol === false) {
        ctx.addIssue({ code: 'custom', path: ['speaks_protocol'], message: 'an agent always speaks the protocol', params: { hint: 'remove speaks_protocol: false, or run the member as a command' } });
      }
      if (member.command !== undefined && member.agent !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['agent'], message: 'give either "command" or "agent", not both' });
      } else if (member.agent !== undefined && member.mcp === true) {
        ctx.addIssue({
          code: 'custom',
          path: ['mcp'],
          message: 'mcp: true is for command members',
          params: { hint: 'an agent member has the team tools built in; remove mcp, or run an MCP-capable CLI with command:' },
        });
      } else if (member.command === undefined && member.agent === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'a member needs either "command" or "agent"',
          params: { hint: 'add command: [program, ...args] or agent: true' },
        });
      }
    },
    { when: () => true },
  )
  .meta({ id: 'Member' });

const TaskId = z.union([z.string().regex(TASK_ID_PATTERN), z.number().int().min(0)], {
  error: (iss) => `expected a task id (letters, digits, ., _, - or a whole number), got ${describeValue(iss.input)}`,
});

/** A task put on the board when the team starts. */
export const SeedTaskSchema = z
  .strictObject({
    id: TaskId.optional().meta({ description: 'Defaults to the next free number.' }),
    subject: z.string().min(1),
    description: z.string().optional(),
    blockedBy: z.array(TaskId).default([]).meta({ description: 'Ids of seed tasks in this file that must finish first.' }),
  })
  .meta({ id: 'SeedTask' });

const HookCommands = z.union([z.string().min(1), z.array(z.string().min(1))], {
  error: (iss) => `expected a shell command or a list of them, got ${describeValue(iss.input)}`,
});
const Hooks = z.strictObject({
  on_start: HookCommands.optional().meta({ description: 'Shell commands run in root before panes start.' }),
  on_shutdown: HookCommands.optional().meta({ description: 'Shell commands run in root after the team stops.' }),
});

/**
 * Where teamux's agents get the API key without it being in any member's environment: a file read,
 * or a command run (its first line of output), by each agent process at start.
 */
const ApiKey = z
  .union(
    [
      z.strictObject({ file: z.string().min(1).meta({ description: 'A file holding the key (relative to root; ~ expands). Keep it mode 600.' }) }),
      z.strictObject({ command: z.string().min(1).meta({ description: 'A shell command that prints the key, like "pass show anthropic".' }) }),
    ],
    { error: (iss) => `expected { file: PATH } or { command: "…" }, got ${describeValue(iss.input)}` },
  )
  .meta({ description: 'Give agents the API key from a file or a command instead of ANTHROPIC_API_KEY, so it is in no process environment.' });

const XColor = z
  .string()
  .regex(/^(#([0-9a-f]{3}){1,4}|rgb:[0-9a-f]{1,4}\/[0-9a-f]{1,4}\/[0-9a-f]{1,4})$/i, { error: (iss) => `expected an X11 colour like #1e1e2e or rgb:1e/1e/2e, got ${describeValue(iss.input)}` });

/** Colours the panes report to programs that ask (OSC 10/11/12) when the outer terminal does not say. */
const Theme = z
  .strictObject({
    foreground: XColor.optional(),
    background: XColor.optional(),
    cursor: XColor.optional(),
  })
  .meta({ description: "Colours panes report to programs' colour queries (OSC 10/11/12) when the outer terminal does not answer them." });

/** The whole layout file. */
export const LayoutSchema = z
  .strictObject({
    name: Name.meta({ description: 'Team name.' }),
    root: z.string().min(1).optional().meta({ description: "Project directory; default: this file's directory. ~ expands." }),
    env: Env.default({}),
    backend: z.enum(BACKENDS).default('pty'),
    layout: PaneLayout.default('main-vertical'),
    sidebar: Sidebar.prefault({}),
    attention: Attention.prefault({}),
    web: Web.optional(),
    keys: Keys.prefault({}),
    shutdown_timeout: z.number().positive().max(3600).default(10).meta({ description: 'Seconds to wait for a clean shutdown.' }),
    scrollback: z.number().int().min(0).max(100_000).default(5000).meta({ description: 'Lines of scrollback each pane keeps (memory grows with width x lines).' }),
    plan_approver: z.enum(PLAN_APPROVERS).default('human'),
    sandbox: z.boolean().optional().meta({ description: "Run every member in its own sandbox (bubblewrap): it writes only its working folder, the team folder and a private /tmp, sees no other member's processes and no trust material (docs/security.md). Off unless set (Claude Code members are not sandboxed yet); an explicit false makes validate warn." }),
    permission_timeout: z.number().positive().max(86_400).default(120).meta({ description: "Seconds a Claude Code member's permission request waits for an answer from teamux before Claude's own prompt takes over." }),
    lead: MemberSchema,
    teammates: z.array(MemberSchema).default([]),
    tasks: z
      .array(SeedTaskSchema)
      .superRefine((tasks, ctx) => {
        for (const p of seedTaskProblems(tasks)) {
          ctx.addIssue({ code: 'custom', path: p.path, message: p.message, params: { hint: p.hint } });
        }
      })
      .default([]),
    hooks: Hooks.default({}),
    api_key: ApiKey.optional(),
    pipeline: PipelineSchema.optional(),
    worktrees: WorktreesSchema.optional(),
    budget: BudgetSchema.optional(),
    theme: Theme.optional(),
    store: z
      .string()
      .regex(/^(folder|(nats|tls):\/\/[^\s@]+)$/, { message: 'expected "folder" or nats://HOST:PORT (tls://HOST:PORT), with no user or password in it (credentials go in TEAMUX_NATS_* variables)' })
      .optional()
      .meta({ description: 'Where the team\'s shared state lives: "folder" (default, the team folder) or a NATS JetStream server, nats://HOST:4222, for members on several machines.' }),
  })
  .superRefine(
    (layout, ctx) => {
      // Runs even when other fields failed, so `layout` may be any shape here.
      const raw = layout as unknown as { lead?: { name?: unknown }; teammates?: unknown };
      const teammates = Array.isArray(raw?.teammates) ? (raw.teammates as ({ name?: unknown } | null)[]) : [];
      const members = [
        { name: raw?.lead?.name, path: ['lead'] as (string | number)[] },
        ...teammates.map((m, i) => ({ name: m?.name, path: ['teammates', i] as (string | number)[] })),
      ];
      const nativeTeams = (m: unknown): boolean => {
        const agent = (m as { agent?: { cli?: unknown; native_teams?: unknown } } | null)?.agent;
        return typeof agent === 'object' && agent !== null && agent.cli === 'claude' && agent.native_teams !== undefined && agent.native_teams !== false;
      };
      teammates.forEach((m, i) => {
        if (nativeTeams(m)) {
          ctx.addIssue({ code: 'custom', path: ['teammates', i, 'agent', 'native_teams'], message: "native_teams is for the lead: Claude Code's agent teams are spawned by their lead", params: { hint: 'move native_teams to the lead (agent: { cli: claude, native_teams: true })' } });
        }
      });
      const inWorktree = (m: unknown): boolean => (m as { worktree?: unknown } | null)?.worktree === true;
      if ((layout as { worktrees?: unknown }).worktrees === undefined) {
        for (const m of members) {
          const raw = m.path.length === 1 ? (layout as { lead?: unknown }).lead : teammates[m.path[1] as number];
          if (inWorktree(raw)) ctx.addIssue({ code: 'custom', path: [...m.path, 'worktree'], message: 'worktree: true needs a worktrees: section in the layout', params: { hint: 'add worktrees: {} (defaults: base = the branch at root, branch teamux/{team}/{member})' } });
        }
      }
      const store = (layout as { store?: unknown }).store;
      if ((layout as { pipeline?: unknown }).pipeline !== undefined && typeof store === 'string' && store !== 'folder') {
        ctx.addIssue({
          code: 'custom', path: ['store'],
          message: 'a staged pipeline keeps its rules and state in the team folder, so it cannot run on a NATS store',
          params: { hint: 'remove store: (the team folder is the default) or the pipeline: section' },
        });
      }
      const names = members.flatMap((m) => (typeof m.name === 'string' ? [m.name] : []));
      for (const p of pipelineRoleProblems((layout as { pipeline?: unknown }).pipeline, names)) {
        ctx.addIssue({ code: 'custom', path: p.path, message: p.message, params: { hint: p.hint } });
      }
      const seen = new Map<string, string>();
      for (const m of members) {
        if (typeof m.name !== 'string') continue;
        if (m.name === OPERATOR) {
          ctx.addIssue({
            code: 'custom',
            path: [...m.path, 'name'],
            message: `the name "${OPERATOR}" is reserved for the person at the teamux screen`,
            params: { hint: `pick another name, like "${OPERATOR}-2" or "reviewer"` },
          });
          continue;
        }
        const first = seen.get(m.name);
        const where = m.path.length === 1 ? 'lead' : `teammates[${String(m.path[1])}]`;
        if (first === undefined) seen.set(m.name, where);
        else {
          ctx.addIssue({
            code: 'custom',
            path: [...m.path, 'name'],
            message: `duplicate member name "${m.name}" (also used by ${first})`,
            params: { hint: 'member names must be unique across lead and teammates' },
          });
        }
      }
    },
    { when: () => true },
  );

/** A layout file as written (before defaults). */
export type LayoutInput = z.input<typeof LayoutSchema>;
/** A layout file after zod applied the defaults; paths are still as written. */
export type Layout = z.output<typeof LayoutSchema>;
/** A lead or teammate after defaults. */
export type Member = z.output<typeof MemberSchema>;
/** A seed task after defaults. */
export type SeedTask = z.output<typeof SeedTaskSchema>;
/** Agent options after defaults. */
export type AgentOptions = z.output<typeof AgentOptionsSchema>;
/** Claude Code member options after defaults. */
export type ClaudeAgentOptions = z.output<typeof ClaudeAgentOptionsSchema>;
/** One of Claude Code's permission modes. */
export type ClaudePermissionMode = (typeof CLAUDE_PERMISSION_MODES)[number];
export type CodexApproval = (typeof CODEX_APPROVALS)[number];
export type CodexSandbox = (typeof CODEX_SANDBOXES)[number];
/** One of tmux's layout names. */
export type LayoutName = (typeof LAYOUT_NAMES)[number];
/** A sidebar section. */
export type SidebarSection = (typeof SIDEBAR_SECTIONS)[number];
/** The sidebar settings after defaults. */
export type SidebarConfig = Layout['sidebar'];
/** The keys settings after defaults. */
export type KeysConfig = Layout['keys'];
/** The hooks as written. */
export type HooksConfig = Layout['hooks'];
/** `pty` or `tmux`. */
export type Backend = (typeof BACKENDS)[number];
/** `human` or `lead`. */
export type PlanApprover = (typeof PLAN_APPROVERS)[number];
