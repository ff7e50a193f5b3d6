/**
 * What the screen verbs (`start`, `attach`) share: how each member is launched (its command, or
 * `teamux agent`, or Claude Code), the multiplexer made from a layout with its key table and
 * sidebar, and the team store opened for a screen (the folder, or a NATS server with its seat).
 */import { takeWebFlag, webSettingsOf } from './web-flag.js';
import { enrolSocketPath } from './screen-trust.js';
import { runsSandboxed, sandboxedLaunch, sandboxSpecOf } from './sandbox-launch.js';
import type { WebSettings } from '../app/web-view.js';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NormalizedLayout, NormalizedMember } from '../config/index.js';
import { splitCommand } from '../config/command-words.js';
import type { SpawnRequest } from '../protocol/spawn.js';
import type { PaneHost, PaneProcess } from '../host/types.js';
import { buildKeyTable, type KeyTable } from '../keys/keymap.js';
import { initTeam, type TeamSpec } from '../store/init.js';
import { connectBackend, initRemoteTeam, openRemoteTeam } from '../store/select.js';
import { defaultBindings } from '../mux/actions.js';
import { TeamPaths } from '../store/paths.js';
import { Multiplexer, type MemberLaunch } from '../app/multiplexer.js';
import { TeamStore } from '../store/team.js';
import type { LayoutName, MainSize } from '../mux/geometry.js';
import { UsageError, type ScreenBoot } from './context.js';
import { planApproverOf } from '../config/index.js';
import { codexLaunchOf } from '../agents/codex/member-launch.js';
import { claudeLaunchOf, isNativeLead, tmuxShimPlace } from '../agents/claude/member-launch.js';
import { claimMuxLock } from './mux-lock.js';
import type { BridgeSpec } from '../agents/claude/bridge-process.js';
import { launchInWorktree } from '../ops/worktree-setup.js';
import type { PreparedWorktree } from '../ops/worktree-prepare.js';

/** The folder holding bin/teamux, put first on members' PATH so scripts can call `teamux`. */
export const BIN_DIR = fileURLToPath(new URL('../../bin', import.meta.url));

/** How a member is launched: its own command, or `teamux agent` for agent members. */
export function launchOf(m: NormalizedMember, layout: NormalizedLayout, teamDir: string, extraEnv: Record<string, string>): MemberLaunch {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, m.env, extraEnv, {
    TEAMUX_TEAM_DIR: teamDir,
    TEAMUX_MEMBER: m.name,
    TEAMUX_PLAN_REQUIRED: m.planRequired ? '1' : '0',
    TEAMUX_PLAN_APPROVER: planApproverOf(m, layout) ?? '',
    PATH: `${BIN_DIR}${path.delimiter}${m.env.PATH ?? process.env.PATH ?? '/usr/bin:/bin'}`,
  });
  if (m.claude) return claudeLaunchOf(m, layout, teamDir, path.join(BIN_DIR, 'teamux'), env);
  if (m.codex) return codexLaunchOf(m, teamDir, env);
  if (m.mcp) env.TEAMUX_MCP_CONFIG = new TeamPaths(teamDir).mcpConfig(m.name);
  if (m.agent) {
    const args = ['agent', '--as', m.name];
    if (m.agent.model) args.push('--model', m.agent.model);
    if (m.agent.maxTokens) args.push('--max-tokens', String(m.agent.maxTokens));
    if (m.agent.autoClaim) args.push('--auto-claim');
    if (m.agent.systemPrompt) env.TEAMUX_AGENT_SYSTEM_PROMPT = m.agent.systemPrompt;
    if (m.host) return sshLaunchOf(m, ['teamux', ...args], env);
    return inSandbox(m, layout, teamDir, { name: m.name, role: m.role, isLead: m.isLead, speaksProtocol: true, command: process.execPath, args: [path.join(BIN_DIR, 'teamux'), ...args], cwd: m.cwd, env });
  }
  if (m.host) return sshLaunchOf(m, [m.command!.program, ...m.command!.args], env);
  return inSandbox(m, layout, teamDir, { name: m.name, role: m.role, isLead: m.isLead, speaksProtocol: m.speaksProtocol, command: m.command!.program, args: m.command!.args, cwd: m.cwd, env });
}

/** The launch inside the member's sandbox when it runs in one (cli/sandbox-launch.ts). */
function inSandbox(m: NormalizedMember, layout: NormalizedLayout, teamDir: string, launch: MemberLaunch): MemberLaunch {
  if (!runsSandboxed(m)) return launch;
  return sandboxedLaunch(launch, sandboxSpecOf(m, layout, teamDir, path.dirname(BIN_DIR), [enrolSocketPath(new TeamPaths(teamDir))]));
}

/**
 * A member with `host:`: its pane runs `teamux ssh-member`, which ships its environment to that machine
 * through ssh's stdin and runs `remote` there under `ssh -tt` (src/host/ssh-member.ts).
 */
function sshLaunchOf(m: NormalizedMember, remote: string[], env: Record<string, string>): MemberLaunch {
  const args = [path.join(BIN_DIR, 'teamux'), 'ssh-member', '--host', m.host!, '--cwd', m.cwd, '--env-keys', Object.keys(m.env).join(','), '--', ...remote];
  return { name: m.name, role: m.role, isLead: m.isLead, speaksProtocol: m.speaksProtocol, command: process.execPath, args, cwd: m.cwd, env };
}

/** How to launch a teammate that a spawn request asks for: in the team root, with the team's env. */
export function spawnLaunchOf(req: SpawnRequest, layout: NormalizedLayout, teamDir: string, extraEnv: Record<string, string>): MemberLaunch | { error: string } {
  const base: NormalizedMember = { name: req.name, role: req.role, isLead: false, cwd: layout.root, worktree: false, env: { ...layout.env }, planRequired: false, speaksProtocol: false, mcp: false, sandbox: layout.sandbox };
  if ('agent' in req) return launchOf({ ...base, agent: { autoClaim: true }, speaksProtocol: true }, layout, teamDir, extraEnv);
  const words = splitCommand(req.command);
  if (!words.ok) return { error: `${words.message}${words.hint ? ` (${words.hint})` : ''}` };
  const [program, ...args] = words.words;
  if (!program) return { error: 'empty command' };
  return launchOf({ ...base, command: { program, args } }, layout, teamDir, extraEnv);
}

/** Run hook commands with sh in the team root; output goes to the team log. */
export async function runHooks(store: TeamStore, which: string, commands: string[], cwd: string, env: Record<string, string>): Promise<void> {
  for (const cmd of commands) {
    const code = await new Promise<number>((resolve) => {
      const child = spawn('sh', ['-c', cmd], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('close', (c) => {
        clearTimeout(timer);
        store.log.info(`${which} hook \`${cmd}\` exited ${c}${out ? `:\n${out.trimEnd()}` : ''}`);
        resolve(c ?? 1);
      });
      child.on('error', () => resolve(127));
    });
    if (code !== 0) store.log.warn(`${which} hook \`${cmd}\` failed with exit ${code}`);
  }
}

/** Where an agent team's demo scripts live: the folder of a member's demo_script, else scripts/ beside the layout. */
export function demoScriptDir(layout: NormalizedLayout, layoutFile: string): string {
  const explicit = [layout.lead, ...layout.teammates].find((m) => m.agent?.demoScript)?.agent?.demoScript;
  return explicit ? path.dirname(explicit) : path.join(path.dirname(layoutFile), 'scripts');
}

/** What a native lead's bridge process is started with (tmux backend): the lead as this screen launches it. */
export function nativeBridgeSpec(layout: NormalizedLayout, store: TeamStore, extraEnv: Record<string, string>, tmuxSocket: string): BridgeSpec {
  const { restartEnv: _again, argsAtStart: _resume, ...lead } = launchOf(layout.lead, layout, store.dir, extraEnv);
  return { lead, planRequired: layout.lead.claude!.nativeTeams!.planRequired, socket: tmuxShimPlace(store.paths).socket, tmuxSocket, team: layout.name, teamuxBin: path.join(BIN_DIR, 'teamux') };
}

/** Convert the config's main-size to the geometry's. */
export function mainSizeOf(layout: NormalizedLayout): MainSize {
  const s = layout.layout.mainSize;
  return s.unit === 'percent' ? { percent: s.value } : { cells: s.value };
}

/** Everything both `start` and `attach` give the multiplexer for a layout's team. */
export interface MuxSetup {
  layout: NormalizedLayout;
  layoutFile: string;
  keys: KeyTable;
  store: TeamStore;
  host: PaneHost;
  teamDir: string;
  extraEnv: Record<string, string>;
  demo: boolean;
  adopt?: PaneProcess[];
  /** Variables for one member only (the lead's one-time enrolment token). */
  memberEnv?: Record<string, Record<string, string>>;
  /** Per member, the environment each restart of its process adds (the lead's fresh enrolment token). */
  restartEnv?: Record<string, () => Record<string, string>>;
  /** Panes a native lead's bridge opened (tmux attach), shown after the layout's members. */
  teammates?: MemberLaunch[];
  /** How this screen's code was loaded (logged) and whom to tell once it is up (cli/code-cache.ts). */
  boot?: ScreenBoot;
  /** A line for the status line, worked out once the screen is up (`resumed run …`). */
  greeting?: () => Promise<string | null>;
  /** Members' worktrees (layout `worktrees:`): their panes start there, after setup. */
  worktrees?: Map<string, PreparedWorktree>;
  /** The web view's settings (the layout's, or --web); null: off. */
  web?: WebSettings | null;
}

/** Build the multiplexer for a team. */
export function muxFor(s: MuxSetup): Multiplexer {
  const { layout, store, teamDir, extraEnv } = s;
  // A remote: true member is started on its own machine: it has no pane here, only its sidebar line.
  let members = [layout.lead, ...layout.teammates].filter((m) => !m.remote).map((m) => {
    const plain = launchOf(m, layout, teamDir, { ...extraEnv, ...s.memberEnv?.[m.name] });
    const wt = s.worktrees?.get(m.name);
    const launch = wt ? launchInWorktree(plain, layout.root, wt, layout.worktrees?.setup ?? []) : plain;
    const again = s.restartEnv?.[m.name];
    return again ? { ...launch, restartEnv: again } : launch;
  });
  // Attaching: only members still in the session come back (a handshake closed the others' panes).
  if (s.adopt) members = [...members.filter((m) => s.adopt!.some((p) => p.id === m.name)), ...(s.teammates ?? [])];
  if (s.boot) store.log.info(s.boot.note);
  return new Multiplexer({
    ...(s.boot ? { onScreenUp: s.boot.up } : {}),
    web: s.web ?? null,
    store, host: s.host, team: layout.name, lead: layout.lead.name,
    layout: layout.layout.name as LayoutName, mainSize: mainSizeOf(layout), sidebar: layout.sidebar, attention: layout.attention,
    keys: s.keys, shutdownTimeoutMs: layout.shutdownTimeout * 1000, scrollback: layout.scrollback,
    members, adopt: s.adopt, demo: s.demo, ...(s.greeting ? { greeting: s.greeting } : {}),
    input: process.stdin, output: process.stdout,
    spawnLaunch: (req) => spawnLaunchOf(req, layout, teamDir, extraEnv),
    onShutdown: () => runHooks(store, 'on_shutdown', layout.hooks.onShutdown, layout.root, { TEAMUX_TEAM_DIR: teamDir }),
    ...(isNativeLead(layout.lead) ? { nativeTeams: { lead: layout.lead.name, planRequired: layout.lead.claude!.nativeTeams!.planRequired, socket: tmuxShimPlace(store.paths).socket } } : {}),
  });
}

/** The layout's key table, or a UsageError naming the file (the prefix must be typable as one key). */
export function keyTableOf(layout: NormalizedLayout, layoutFile: string): KeyTable {
  const keys = buildKeyTable(layout.keys.prefix, layout.keys.bindings, defaultBindings());
  if (!keys.ok) throw new UsageError(`${layoutFile}: keys.prefix: ${keys.message}`);
  return keys.table;
}

/** Fail unless stdin and stdout are a terminal. */
export function requireTty(verb: string): void {
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    throw new UsageError(`teamux ${verb} needs a terminal: stdin and stdout must be a TTY`, 'run it in a terminal (or inside tmux); to check a layout without one, use `teamux validate`');
  }
}

/** A team on a NATS store: its URL, its name and the environment holding the credentials. */
export interface RemoteTeam {
  url: string;
  team: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Open the team for the multiplexer, refusing if another teamux already owns it: the team folder, or
 * (`remote`) the team on a NATS store with `teamDir` as this machine's folder. Release closes it.
 */
export async function openForMux(teamDir: string, backend: 'pty' | 'tmux', remote?: RemoteTeam): Promise<{ store: TeamStore; release: () => Promise<void> }> {
  const opened = remote ? await openRemoteTeam(remote.url, remote.team, teamDir, remote.env, 'mux') : await TeamStore.open(teamDir, 'mux');
  if (!opened.ok) throw new UsageError(opened.error.message, opened.error.hint);
  const lock = await claimMuxLock(opened.store, backend);
  if (!lock.ok) {
    await opened.store.backend.close();
    throw new UsageError(lock.message, lock.hint);
  }
  return { store: opened.store, release: async () => { await lock.release(); await opened.store.backend.close(); } };
}

/**
 * On a shared store the team has one screen across machines, not one per machine: hold the store's
 * screen lease (on a connection of its own) before anything is written; refused while another holds it.
 */
export async function claimScreenSeat(remote: RemoteTeam): Promise<{ release(): Promise<void> }> {
  const b = await connectBackend(remote.url, remote.team, remote.env, 'screen');
  if (!b.ok) throw new UsageError(b.error.message, b.error.hint);
  const seat = (await b.backend.shared.claimScreen?.(`${hostname()} pid ${process.pid}`)) ?? { ok: true as const, release: async () => {} };
  if (!seat.ok) {
    await b.backend.close();
    throw new UsageError(`team ${remote.team} is already on a teamux screen (${seat.holder})`, 'quit that screen first; a screen that died is forgotten 30 s after it last renewed its lease');
  }
  return { release: async () => { await seat.release(); await b.backend.close(); } };
}

/**
 * The screen's hold on its team: the store's screen seat when the team is shared (`remote`), then
 * `prepare` (creating the team, for start), then the team opened for the multiplexer. If any step
 * fails the seat is let go; release lets go of both.
 */
export async function openScreen(teamDir: string, backend: 'pty' | 'tmux', remote: RemoteTeam | null, prepare: () => Promise<void> = async () => {}): Promise<{ store: TeamStore; release: () => Promise<void> }> {
  const seat = remote ? await claimScreenSeat(remote) : null;
  let opened: { store: TeamStore; release: () => Promise<void> };
  try {
    await prepare();
    opened = await openForMux(teamDir, backend, remote ?? undefined);
  } catch (err) {
    await seat?.release();
    throw err;
  }
  return {
    store: opened.store,
    release: async () => {
      await opened.release();
      await seat?.release();
    },
  };
}

/** Create or refresh the layout's team: in its folder, or on the NATS store `url` (the folder keeps what is this machine's). */
export async function initForStart(teamDir: string, spec: TeamSpec, remote: RemoteTeam | null): Promise<void> {
  if (!remote) {
    await initTeam(teamDir, spec);
    return;
  }
  const r = await initRemoteTeam(remote.url, teamDir, spec, remote.env);
  if (!r.ok) throw new UsageError(r.error.message, r.error.hint);
  await r.store.backend.close();
}
