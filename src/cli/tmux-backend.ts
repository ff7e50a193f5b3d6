/**
 * The tmux backend as the CLI uses it: which private socket teams live on, the team folder recorded
 * on each session (`@teamux_dir`) so `attach`, `ls` and `kill` can find it, and a TmuxHost for a team.
 * Teams share one private server (`tmux -L teamux`, or $TEAMUX_TMUX_SOCKET), one session per team,
 * so the user's own tmux sessions are never touched.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { NormalizedLayout } from '../config/index.js';
import { globalArgs, sessionTarget, tmuxSessionName } from '../host/tmux/commands.js';
import { ExecTmuxRunner, TmuxHost } from '../host/tmux/index.js';
import { listTaggedArgv, parseTagged, type TaggedPane } from '../host/tmux/pane-control.js';
import type { Disposable, PaneAppearance, PaneHost, PaneProcess, PaneSpec } from '../host/types.js';
import { UsageError } from './context.js';

/** The tmux server teams live on. */
export function tmuxSocket(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEAMUX_TMUX_SOCKET || 'teamux';
}

/** Run one tmux command on the teams' server. */
export async function tmuxRun(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ ok: boolean; out: string }> {
  const r = await new ExecTmuxRunner().run([...globalArgs(tmuxSocket(env)), ...args]);
  return { ok: r.code === 0, out: r.stdout };
}

/** The team folder recorded on a running team's session, or null. */
export async function sessionTeamDir(team: string, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const r = await tmuxRun(['show-options', '-v', '-t', `${sessionTarget(tmuxSessionName(team))}:`, '@teamux_dir'], env);
  const dir = r.out.trim();
  return r.ok && dir ? dir : null;
}

/** The panes a native lead's bridge opened in a team's session (tagged with a slot). */
export async function bridgePanes(team: string, env: NodeJS.ProcessEnv = process.env): Promise<TaggedPane[]> {
  const r = await new ExecTmuxRunner().run(listTaggedArgv(tmuxSocket(env), tmuxSessionName(team)));
  return parseTagged(r.code === 0 ? r.stdout : '').filter((p) => p.slot !== null);
}

/** Those panes' slots by member name. */
export async function bridgeSlots(team: string, env: NodeJS.ProcessEnv = process.env): Promise<Map<string, number>> {
  return new Map((await bridgePanes(team, env)).map((p) => [p.member, p.slot!]));
}

/** Running teams on the server. */
export function runningTeams(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  return TmuxHost.listSessions(tmuxSocket(env));
}

/** A TmuxHost that records the team folder on the session once it exists. */
class TeamTmuxHost implements PaneHost {
  readonly kind = 'tmux' as const;
  private recorded = false;

  constructor(private readonly host: TmuxHost, private readonly team: string, private readonly teamDir: string, private readonly env: NodeJS.ProcessEnv) {}

  async spawn(spec: PaneSpec): Promise<PaneProcess> {
    // tmux 3.3a replaces a PATH given with -e by its client's PATH, and sets TMUX/TMUX_PANE itself. So
    // the member's PATH (which puts teamux's bin/ first), and the TMUX a native Claude Code lead is given
    // to reach teamux's stand-in (not one inherited from the user's own tmux), go through env(1), which
    // execs the member: the pane pid stays its pid.
    const ownTmux = spec.env.TMUX !== undefined && spec.env.TMUX !== process.env.TMUX;
    const set = [...(spec.env.PATH ? [`PATH=${spec.env.PATH}`] : []), ...(ownTmux ? [`TMUX=${spec.env.TMUX}`, `TMUX_PANE=${spec.env.TMUX_PANE ?? ''}`] : [])];
    const wrapped = set.length > 0 ? { command: 'env', args: [...set, spec.command, ...spec.args] } : {};
    const p = await this.host.spawn({ ...spec, ...wrapped, env: { TERM: 'tmux-256color', ...spec.env } });
    if (!this.recorded) {
      this.recorded = true;
      await tmuxRun(['set-option', '-t', `${sessionTarget(tmuxSessionName(this.team))}:`, '@teamux_dir', this.teamDir], this.env);
    }
    return p;
  }

  attach(): Promise<PaneProcess[]> {
    this.recorded = true;
    return this.host.attach();
  }

  follow(listener: (change: PaneAppearance) => void): Promise<Disposable> {
    return this.host.follow(listener);
  }

  dispose(options?: { kill?: boolean }): Promise<void> {
    return this.host.dispose(options);
  }
}

function hostFor(team: string, root: string, teamDir: string, env: NodeJS.ProcessEnv): TeamTmuxHost {
  const output = tmuxOutput(env);
  const host = new TmuxHost({ socket: tmuxSocket(env), session: team, cwd: root, env: {}, configFile: '/dev/null', output });
  return new TeamTmuxHost(host, team, teamDir, env);
}

/**
 * How pane bytes reach teamux: through a pipe-pane FIFO per pane (the default; tmux 3.3a's %output
 * escapes them one by one), or TEAMUX_TMUX_OUTPUT=control for control mode's %output.
 */
export function tmuxOutput(env: NodeJS.ProcessEnv): 'pipe' | 'control' {
  const value = env.TEAMUX_TMUX_OUTPUT;
  if (value === undefined || value === '' || value === 'pipe') return 'pipe';
  if (value === 'control') return 'control';
  throw new UsageError(`TEAMUX_TMUX_OUTPUT=${JSON.stringify(value)} is not an output mode`, 'use TEAMUX_TMUX_OUTPUT=pipe (the default) or TEAMUX_TMUX_OUTPUT=control');
}

/** A host for starting a team under tmux; refuses when the team's session already runs. */
export async function tmuxHostFor(layout: NormalizedLayout, teamDir: string, env: NodeJS.ProcessEnv = process.env): Promise<PaneHost> {
  if (await TmuxHost.hasSession(tmuxSocket(env), layout.name)) {
    const dir = await sessionTeamDir(layout.name, env);
    throw new UsageError(
      `team "${layout.name}" is already running under tmux${dir && dir !== teamDir ? ` (from ${dir})` : ''}`,
      dir === teamDir ? `open it with \`teamux attach ${layout.name}\`, or stop it with \`teamux kill ${layout.name}\`` : 'rename this team (name:) or stop the other one',
    );
  }
  return hostFor(layout.name, layout.root, teamDir, env);
}

/** A host attached to a running team's session, and the processes in it. */
export async function attachTmux(team: string, root: string, teamDir: string, env: NodeJS.ProcessEnv = process.env): Promise<{ host: PaneHost; procs: PaneProcess[] }> {
  const host = hostFor(team, root, teamDir, env);
  const procs = await host.attach();
  return { host, procs };
}

/**
 * Start the offline demo model in a window of the team's (new) session, so it outlives the TUI like
 * the agents that use it; returns its URL. The window has no @teamux_member, so attach leaves it be.
 */
export async function startTmuxDemoModel(team: string, root: string, teamDir: string, scriptDir: string, teamuxBin: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const urlFile = path.join(teamDir, 'demo-url');
  await fsp.rm(urlFile, { force: true });
  const session = tmuxSessionName(team);
  const made = await tmuxRun([
    'set-option', '-gw', 'remain-on-exit', 'on', ';',
    'new-session', '-d', '-s', session, '-n', 'demo-model', '-x', '80', '-y', '24', '-c', root, '--',
    process.execPath, teamuxBin, 'demo-server', scriptDir, '--url-file', urlFile, ';',
    'set-option', '-t', `${sessionTarget(session)}:`, '@teamux_dir', teamDir,
  ], env);
  if (!made.ok) throw new UsageError(`could not start the demo model in tmux session "${session}"`, 'see `tmux -L ' + tmuxSocket(env) + ' ls`');
  const deadline = Date.now() + 15_000;
  for (;;) {
    const text = await fsp.readFile(urlFile, 'utf8').catch(() => '');
    if (text.trim()) return text.trim();
    if (Date.now() > deadline) throw new UsageError('the demo model did not start within 15 s', `look at its window: tmux -L ${tmuxSocket(env)} attach -t ${session}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
