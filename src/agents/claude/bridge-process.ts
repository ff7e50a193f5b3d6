/**
 * The tmux stand-in's bridge as a process of its own, beside the team's tmux session (tmux backend):
 * it serves the stand-in's socket for the life of the session, so a native Claude Code lead opens
 * teammates whether or not a screen is attached. It runs the same TmuxBridge as the screen does
 * (one request intake for both), on a PaneControl acting on the session itself (tmux-pane-control.ts).
 * It owns the lock that makes it the team's only bridge, the socket, and the watch on the session:
 * when the session is gone (the team closed or killed), it removes the socket and the lock and ends.
 * What it is started with (the lead's environment, which carries credentials) comes on its stdin,
 * never through a file.
 */
import { sessionTarget, tmuxSessionName } from '../../host/tmux/commands.js';
import { ExecTmuxRunner, type TmuxRunner } from '../../host/tmux/runner.js';
import { globalArgs } from '../../host/tmux/commands.js';
import { claimBridgeLock } from '../../store/bridge-lock.js';
import type { TeamStore } from '../../store/team.js';
import type { MemberLaunch } from '../../app/multiplexer.js';
import { TmuxBridge } from './tmux-bridge.js';
import { timedOut, TMUX_DEADLINE_MS, withDeadline } from './tmux-deadline.js';
import { tmuxPaneControl } from './tmux-pane-control.js';

/** What the bridge process is told on its stdin (one JSON object). */
export interface BridgeSpec {
  /** The native lead as the screen launches it: its env is the teammates' base. */
  lead: MemberLaunch;
  planRequired: boolean;
  /** The stand-in's unix socket. */
  socket: string;
  /** The backend's private tmux server (`tmux -L`). */
  tmuxSocket: string;
  /** The team's name (its tmux session, as formats show it). */
  team: string;
  /** bin/teamux, which a teammate's own MCP config runs. */
  teamuxBin?: string;
}

const str = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** The spec from its JSON text, or what is wrong with it. */
export function parseBridgeSpec(text: string): BridgeSpec | { error: string } {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { error: 'the bridge spec on stdin is not JSON' };
  }
  const lead = v.lead as Record<string, unknown> | undefined;
  const env = lead?.env as Record<string, unknown> | undefined;
  if (!lead || !str(lead.name) || !str(lead.command) || !Array.isArray(lead.args) || !str(lead.cwd) || !env || typeof env !== 'object' || !Object.values(env).every((x) => typeof x === 'string')) {
    return { error: 'the bridge spec on stdin has no valid lead (name, command, args, cwd, env)' };
  }
  if (!str(v.socket) || !str(v.tmuxSocket) || !str(v.team) || typeof v.planRequired !== 'boolean') return { error: 'the bridge spec on stdin needs socket, tmuxSocket, team and planRequired' };
  return {
    lead: { name: lead.name, role: str(lead.role) ? lead.role : 'lead', isLead: true, speaksProtocol: true, command: lead.command, args: (lead.args as unknown[]).map(String), cwd: lead.cwd, env: env as Record<string, string> },
    planRequired: v.planRequired, socket: v.socket, tmuxSocket: v.tmuxSocket, team: v.team, ...(str(v.teamuxBin) ? { teamuxBin: v.teamuxBin } : {}),
  };
}

/** How the process watches its session. */
export interface BridgeProcessOptions {
  runner?: TmuxRunner;
  /** How often the session is looked for (default 1 s). */
  pollMs?: number;
  /** How long a session that does not exist yet is waited for (default 60 s: `teamux start` creates it). */
  appearMs?: number;
  /** Resolves when the process is asked to stop (a signal). */
  stop?: Promise<unknown>;
  /** The deadline of each tmux command (default TMUX_DEADLINE_MS); a command past it is logged and fails. */
  tmuxDeadlineMs?: number;
  /** How long a tmux server that answers nothing is waited for before the bridge gives up (default 10 min). */
  wedgedMs?: number;
}

/** Serve the stand-in until the session is gone (or `stop`); resolves with the exit code. */
export async function runBridgeProcess(store: TeamStore, spec: BridgeSpec, o: BridgeProcessOptions = {}): Promise<number> {
  const log = store.log;
  const lock = await claimBridgeLock(store.paths.tmuxBridgeLock);
  if (!lock.ok) {
    log.info(`tmux stand-in bridge: pid ${lock.holder.pid} already serves this team`);
    return 0;
  }
  const deadline = o.tmuxDeadlineMs ?? TMUX_DEADLINE_MS;
  const runner = withDeadline(o.runner ?? new ExecTmuxRunner({ timeoutMs: deadline }), log, deadline);
  const session = tmuxSessionName(spec.team);
  const panes = tmuxPaneControl({ runner, socket: spec.tmuxSocket, session, log });
  // No screen records a teammate's start here: its pane's process is the teammate's (ls and kill use it).
  const control: typeof panes = {
    ...panes,
    async replace(id, launch) {
      const h = await panes.replace(id, launch);
      const pid = panes.facts(h)?.pid;
      if (pid && !launch.name.startsWith('%')) await store.memberStarted(launch.name, pid).catch((err: unknown) => log.error(`recording ${launch.name}'s start failed`, err));
      return h;
    },
  };
  // A bridge started again (the last one crashed) goes on with the panes the tags name; their keys are lost.
  await panes.refresh();
  const known = panes.tagged().filter((p) => p.shim !== '').map((p) => ({ id: p.shim, handle: p.paneId, title: p.member, cwd: spec.lead.cwd, command: p.member.startsWith('%') ? 'cat' : 'claude' }));
  if (known.length > 0) log.warn(`tmux stand-in bridge: taking over ${known.map((k) => `${k.id} (${k.title})`).join(', ')} from an earlier bridge; their lead messages stay unverified`);
  const bridge = new TmuxBridge({ socket: spec.socket, store, control, lead: spec.lead, planRequired: spec.planRequired, session: spec.team, known, ...(spec.teamuxBin ? { teamuxBin: spec.teamuxBin } : {}) });
  try {
    await bridge.listen();
  } catch (err) {
    log.error(`tmux stand-in bridge: cannot listen on ${spec.socket}`, err);
    await lock.release();
    return 1;
  }
  // A has-session past its deadline says nothing about the session: 'unknown', polled again.
  const exists = async (): Promise<'yes' | 'no' | 'unknown'> => {
    const r = await runner.run([...globalArgs(spec.tmuxSocket), 'has-session', '-t', sessionTarget(session)]);
    return timedOut(r) ? 'unknown' : r.code === 0 ? 'yes' : 'no';
  };
  let stopped = false;
  void o.stop?.then(() => (stopped = true));
  const poll = o.pollMs ?? 1_000;
  const appearBy = Date.now() + (o.appearMs ?? 60_000);
  // Looked for at once: a session killed before the first poll must still end the bridge (not wait appearMs).
  const wedgedMs = o.wedgedMs ?? 600_000;
  let answeredAt = Date.now();
  const first = await exists();
  let seen = first === 'yes';
  // Said once the session has been looked for, so a reader of the log knows what the bridge knew.
  const state = first === 'yes' ? 'there' : first === 'no' ? 'not there yet' : 'not answered yet';
  log.info(`tmux stand-in bridge: pid ${process.pid} serves session ${session} on tmux -L ${spec.tmuxSocket} (session ${state})`);
  let why = 'asked to stop';
  while (!stopped) {
    await Promise.race([new Promise((r) => setTimeout(r, poll)), o.stop ?? new Promise(() => undefined)]);
    if (stopped) break;
    const now = await exists();
    if (now === 'unknown') {
      if (Date.now() - answeredAt > wedgedMs) {
        why = `the tmux server answered nothing for ${Math.round((Date.now() - answeredAt) / 1000)} s`;
        break;
      }
      continue;
    }
    answeredAt = Date.now();
    if (now === 'yes') {
      seen = true;
      continue;
    }
    if (seen) {
      why = 'the session is gone';
      break;
    }
    if (Date.now() > appearBy) {
      why = `the session did not appear within ${Math.round((o.appearMs ?? 60_000) / 1000)} s`;
      break;
    }
  }
  bridge.dispose();
  await lock.release();
  log.info(`tmux stand-in bridge: pid ${process.pid} ends (${why})`);
  return 0;
}
