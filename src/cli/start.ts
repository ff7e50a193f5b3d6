/**
 * `teamux start LAYOUT.yaml`: validate the layout before anything is written, create or refresh the
 * team folder, start the offline demo model when agents need one and no API key is set, run the
 * on_start hooks, then hand the terminal to the multiplexer until it quits.
 */
import { takeWebFlag, webSettingsOf } from './web-flag.js';
import type { WebSettings } from '../app/web-view.js';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NormalizedLayout, NormalizedMember } from '../config/index.js';
import { splitCommand } from '../config/command-words.js';
import type { SpawnRequest } from '../protocol/spawn.js';
import { PtyHost } from '../host/pty.js';
import type { PaneHost, PaneProcess } from '../host/types.js';
import { buildKeyTable, type KeyTable } from '../keys/keymap.js';
import { initTeam, type TeamSpec } from '../store/init.js';
import { connectBackend, initRemoteTeam, openRemoteTeam } from '../store/select.js';
import { defaultBindings } from '../mux/actions.js';
import { TeamPaths } from '../store/paths.js';
import { Multiplexer, type MemberLaunch } from '../app/multiplexer.js';
import { TeamStore } from '../store/team.js';
import type { LayoutName, MainSize } from '../mux/geometry.js';
import { EXIT_REFUSED, onePositional, parse, storeOf, UsageError, type CliContext, type ScreenBoot } from './context.js';
import { loadLayoutOrFail, teamDirOf, teamSpecOf } from './layout-team.js';
import { planApproverOf } from '../config/index.js';
import { codexLaunchOf, prepareCodexMembers } from '../agents/codex/member-launch.js';
import { claudeLaunchOf, isNativeLead, kickoffClaudeLead, prepareClaudeMembers, tmuxShimPlace } from '../agents/claude/member-launch.js';
import { archiveIfChosen, chooseStart, resumeWish, takeRun } from './start-run.js';
import { claimMuxLock, liveMux, sayWhyDetached } from './mux-lock.js';
import type { BridgeSpec } from '../agents/claude/bridge-process.js';
import type { Verb } from './verb.js';
import { learnOuterTerminal } from '../ui/outer-query.js';
import { trustFor } from './screen-trust.js';
import { startupMark } from '../host/startup-marks.js';
import { launchInWorktree } from '../ops/worktree-setup.js';
import type { PreparedWorktree } from '../ops/worktree-prepare.js';
import { prepareRunWorktrees, retireRunWorktrees } from './worktrees-run.js';

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
    return { name: m.name, role: m.role, isLead: m.isLead, speaksProtocol: true, command: process.execPath, args: [path.join(BIN_DIR, 'teamux'), ...args], cwd: m.cwd, env };
  }
  if (m.host) return sshLaunchOf(m, [m.command!.program, ...m.command!.args], env);
  return { name: m.name, role: m.role, isLead: m.isLead, speaksProtocol: m.speaksProtocol, command: m.command!.program, args: m.command!.args, cwd: m.cwd, env };
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
  const base: NormalizedMember = { name: req.name, role: req.role, isLead: false, cwd: layout.root, worktree: false, env: { ...layout.env }, planRequired: false, speaksProtocol: false, mcp: false };
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
function demoScriptDir(layout: NormalizedLayout, layoutFile: string): string {
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
async function initForStart(teamDir: string, spec: TeamSpec, remote: RemoteTeam | null): Promise<void> {
  if (!remote) {
    await initTeam(teamDir, spec);
    return;
  }
  const r = await initRemoteTeam(remote.url, teamDir, spec, remote.env);
  if (!r.ok) throw new UsageError(r.error.message, r.error.hint);
  await r.store.backend.close();
}

export const startVerb: Verb = {
  name: 'start',
  usage: ['start LAYOUT.yaml [--backend pty|tmux] [--fresh | --resume] [--web[=PORT]]'],
  examples: ['teamux start examples/demo/team.yaml', 'teamux start layouts/tmux.yaml --backend tmux', 'teamux start examples/demo/team.yaml --fresh   # archive the earlier run, begin anew', 'teamux start examples/demo/team.yaml --web   # and C-a W for the link'],
  async run(ctx, allArgv) {
    const { argv, web } = takeWebFlag(allArgv);
    const { values, positionals } = parse(argv, { backend: { type: 'string' }, fresh: { type: 'boolean', default: false }, resume: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } }, this.usage[0]!);
    const wish = resumeWish(values);
    const file = path.resolve(ctx.cwd, onePositional(positionals, 'layout file', this.usage[0]!));
    if (values.backend !== undefined && values.backend !== 'pty' && values.backend !== 'tmux') throw new UsageError(`--backend "${values.backend}" is not a backend`, 'use pty or tmux');
    // Validate before anything is written or started.
    const { layout, warnings } = loadLayoutOrFail(file, ctx.env);
    startupMark('layout');
    const backend = (values.backend ?? layout.backend) as 'pty' | 'tmux';
    const teamDir = teamDirOf(layout);
    // With tmux, a team whose members still run is attached to, not started a second time.
    if (backend === 'tmux' && (await runsUnderTmux(ctx, layout.name, teamDir))) {
      if (wish === 'fresh') return refuseStart(ctx, `team ${layout.name} is still running under tmux`, `stop it with \`teamux kill ${layout.name}\` first, or leave out --fresh to attach to it`);
      return (await import('./attach.js')).attachVerb.run(ctx, [layout.name]);
    }
    // A NATS store: the shared state lives on the server; members started here are told where it is.
    const url = storeOf(ctx, layout.store);
    const remote: RemoteTeam | null = url ? { url, team: layout.name, env: ctx.env } : null;
    // Resume the earlier run or begin afresh: decided (and refused) before the terminal is taken.
    const choice = await chooseStart(teamDir, wish, remote !== null);
    if (choice.kind === 'refuse') return refuseStart(ctx, choice.message, choice.hint);
    requireTty('start');
    const keys = keyTableOf(layout, file);
    const elsewhere = [layout.lead, ...layout.teammates].find((m) => m.remote || m.host);
    if (elsewhere && !remote) throw new UsageError(`${file}: member ${elsewhere.name} runs on another machine (${elsewhere.remote ? 'remote: true' : `host: ${elsewhere.host}`}), but the team is kept in its folder, which other machines cannot share`, 'add store: nats://HOST:4222 to the layout (or pass --store), and start a NATS server: nats-server -js -sd DIR');
    if (layout.lead.remote || layout.lead.host) throw new UsageError(`${file}: lead.${layout.lead.remote ? 'remote' : 'host'}: the lead runs on this machine, beside the screen that enrols it`, `remove ${layout.lead.remote ? 'remote: true' : 'host:'} from the lead; teammates may run elsewhere`);
    const claudeAway = layout.teammates.find((m) => m.host && m.claude);
    if (claudeAway) throw new UsageError(`${file}: teammates: ${claudeAway.name} has host: and agent: { cli: claude }; a Claude Code member runs on the screen's machine (its hooks use this machine's folder)`, 'run it here (remove host:), or run teamux agent there (agent: true)');
    const hasKey = Boolean(ctx.env.ANTHROPIC_API_KEY || ctx.env.TEAMUX_API_KEY_FILE || ctx.env.TEAMUX_API_KEY_COMMAND || layout.apiKey);
    // Claude Code members without a key use the demo model only when the layout brings demo scripts;
    // otherwise Claude Code signs in its own way.
    const members = [layout.lead, ...layout.teammates];
    // A demo model already running (TEAMUX_DEMO_URL given, as the e2e tests do) is used as it is.
    const givenDemo = ctx.env.TEAMUX_DEMO_URL?.trim() || undefined;
    const needsModel = !givenDemo && !hasKey && (members.some((m) => m.agent) || (members.some((m) => m.claude || m.codex) && existsSync(demoScriptDir(layout, file))));
    // A finished run's folder (or any, with --fresh) is archived; on a NATS store the team's state is the server's to keep.
    const archive = await archiveIfChosen(teamDir, choice);
    if ('refused' in archive) return refuseStart(ctx, archive.refused, archive.hint);
    const archived = archive.archived;
    const { store, release } = await openScreen(teamDir, backend, remote, () => initForStart(teamDir, teamSpecOf(layout, file), remote));
    startupMark('team');
    // Ask the outer terminal its colours now and take the answer just before the screen opens: the
    // round trip (tens of ms over ssh) overlaps the run's set-up below. The query never rejects and
    // puts the terminal back as it found it when the answer (or its timeout) comes.
    const outer = learnOuterTerminal({ input: process.stdin, output: process.stdout }, layout.theme);
    if (archived) store.log.info(`the earlier run was archived to ${archived}`);
    if (remote) store.log.info(`team ${layout.name} on the NATS store ${store.backend.where}; this machine's folder is ${teamDir}`);
    let closeDemo: (() => Promise<void>) | null = null;
    const taken = await takeRun(store, choice, archived);
    const { run } = taken;
    if (choice.kind === 'resume') store.log.info(`resuming run ${run}`);
    for (const q of taken.expired) store.log.info(`request ${q.id} (${q.type} from ${q.from}) expired: ${q.expiredReason}`);
    for (const q of taken.askedAgain) store.log.info(`${q.from}'s plan, approved under the earlier screen's key, is asked again (${q.id})`);
    for (const q of taken.withdrawn) store.log.info(`request ${q.id} (permission from ${q.from}) ${q.response?.text ?? 'withdrawn'}`);
    // Cold recovery: claims of processes from an earlier run that are gone go back on the board (while
    // the run's trust root is made: neither waits for the other).
    const [staleRun, trustRun] = await Promise.allSettled([store.releaseStale(), trustFor(store, layout, run)]);
    if (staleRun.status === 'rejected') {
      if (trustRun.status === 'fulfilled') trustRun.value.dispose();
      throw staleRun.reason;
    }
    if (trustRun.status === 'rejected') throw trustRun.reason;
    const [stale, trust] = [staleRun.value, trustRun.value];
    for (const t of stale.released) store.log.info(`task ${t.id} released at start: ${t.attempts.at(-1)?.note ?? 'its owner is gone'}`);
    startupMark('run');
    try {
      for (const w of warnings) store.log.warn(w);
      // The tmux backend and the demo model are loaded only when the layout uses them: a layout of
      // plain commands starts without their module graphs (a smaller, faster start-up).
      const host = backend === 'pty' ? new PtyHost() : await (await import('./tmux-backend.js')).tmuxHostFor(layout, teamDir, ctx.env);
      const extraEnv: Record<string, string> = { ...trust.env };
      // Members started here open the same team on the same server (credentials stay in TEAMUX_NATS_*).
      if (remote) Object.assign(extraEnv, { TEAMUX_STORE: remote.url, TEAMUX_TEAM: remote.team });
      if (needsModel) {
        const dir = demoScriptDir(layout, file);
        if (!existsSync(dir)) throw new UsageError(`agents need a model: ANTHROPIC_API_KEY is not set and there are no demo scripts in ${dir}`, 'export ANTHROPIC_API_KEY=…, or give the agents demo_script files');
        if (backend === 'tmux') {
          const { startTmuxDemoModel } = await import('./tmux-backend.js');
          extraEnv.TEAMUX_DEMO_URL = await startTmuxDemoModel(layout.name, layout.root, teamDir, dir, path.join(BIN_DIR, 'teamux'), ctx.env);
        } else {
          const { runDemoServer } = await import('../demo/main.js');
          const server = await runDemoServer(dir);
          if (!server.ok) throw new UsageError(`the demo scripts in ${dir} are not valid:\n${server.errors.join('\n')}`);
          extraEnv.TEAMUX_DEMO_URL = server.server.url;
          closeDemo = () => server.server.close();
        }
        store.log.info(`no ANTHROPIC_API_KEY: agents use the demo model at ${extraEnv.TEAMUX_DEMO_URL} (scripts in ${dir})`);
      }
      if (givenDemo) extraEnv.TEAMUX_DEMO_URL = givenDemo;
      await prepareClaudeMembers(store, layout, path.join(BIN_DIR, 'teamux'), extraEnv.TEAMUX_DEMO_URL !== undefined);
      await prepareCodexMembers(store, layout, path.join(BIN_DIR, 'teamux'), extraEnv.TEAMUX_DEMO_URL);
      await kickoffClaudeLead(store, layout);
      await runHooks(store, 'on_start', layout.hooks.onStart, layout.root, { TEAMUX_TEAM_DIR: teamDir });
      const worktrees = await prepareRunWorktrees(layout, store, ctx.env);
      await outer;
      startupMark('set up');
      // With tmux, a native lead's stand-in is served beside the session, so it outlives this screen.
      if (backend === 'tmux' && isNativeLead(layout.lead)) await (await import('./tmux-bridge.js')).startTmuxBridge(teamDir, path.join(BIN_DIR, 'teamux'), nativeBridgeSpec(layout, store, extraEnv, (await import('./tmux-backend.js')).tmuxSocket(ctx.env)));
      const mux = muxFor({ layout, layoutFile: file, keys, store, host, teamDir, extraEnv, demo: extraEnv.TEAMUX_DEMO_URL !== undefined, memberEnv: trust.memberEnv, restartEnv: trust.restartEnv, boot: ctx.boot, greeting: taken.greeting, worktrees, web: webSettingsOf(layout, web) });
      trust.seePanes(() => mux.panes);
      const code = await mux.run();
      await retireRunWorktrees(store, ctx.env);
      await sayWhyDetached(ctx, store);
      return code;
    } finally {
      await outer;
      trust.dispose();
      await closeDemo?.();
      await release();
    }
  },
};

/** Whether the layout's team runs in the tmux server now, from this team folder. */
async function runsUnderTmux(ctx: CliContext, team: string, teamDir: string): Promise<boolean> {
  const [{ sessionTeamDir, tmuxSocket }, { TmuxHost }] = await Promise.all([import('./tmux-backend.js'), import('../host/tmux/index.js')]);
  return (await TmuxHost.hasSession(tmuxSocket(ctx.env), team)) && (await sessionTeamDir(team, ctx.env)) === teamDir;
}

/** A start refused (exit 3): what and what to do, as every refusal says it. */
function refuseStart(ctx: CliContext, message: string, hint: string): number {
  ctx.err(`teamux: refused: ${message}\n  hint: ${hint}`);
  return EXIT_REFUSED;
}
