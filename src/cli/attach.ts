/**
 * The tmux backend's verbs: `attach` opens the TUI over a running team, `ls` lists running teams,
 * `kill` shuts a team down by handshake and removes its session, `detach` lets go of the TUI while
 * every member keeps running.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { shutdownHandshake, type ShutdownTarget } from '../app/shutdown.js';
import { sessionTarget, tmuxSessionName } from '../host/tmux/commands.js';
import { memberState, type MemberState } from '../protocol/members.js';
import { speaksProtocol } from '../protocol/types.js';
import { pidAlive } from '../store/liveness.js';
import { withdrawOrphanPermissions } from '../store/resume.js';
import { openTeamAt, readStoreMarker } from '../store/select.js';
import type { MemberView, TeamStore } from '../store/team.js';
import { closeAfterRun, EXIT_OK, EXIT_REFUSED, parse, UsageError, type CliContext } from './context.js';
import { loadLayoutOrFail } from './layout-team.js';
import { detachMux, liveMux, ownTerminal, sayWhyDetached } from './mux-lock.js';
import { BIN_DIR, keyTableOf, muxFor, nativeBridgeSpec, openScreen, requireTty } from './start.js';
import { trustFor } from './screen-trust.js';
import { isNativeLead } from './claude-member.js';
import { table } from './task.js';
import { attachTmux, bridgePanes, bridgeSlots, runningTeams, sessionTeamDir, tmuxRun, tmuxSocket } from './tmux-backend.js';
import { adoptedTeammates } from '../app/tmux-teammates.js';
import type { Verb } from './verb.js';
import { learnOuterTerminal } from '../ui/outer-query.js';

const OPTS = { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } as const;

/** The running team a verb is about: the named one, or the only one. */
async function pickTeam(ctx: CliContext, name: string | undefined, verb: string): Promise<{ team: string; dir: string }> {
  const teams = await runningTeams(ctx.env);
  const socket = tmuxSocket(ctx.env);
  if (name === undefined) {
    if (teams.length === 0) throw new UsageError(`no team is running under tmux (socket ${socket})`, 'start one with `teamux start LAYOUT --backend tmux`');
    if (teams.length > 1) throw new UsageError(`several teams are running: ${teams.join(', ')}`, `name one: teamux ${verb} TEAM`);
    name = teams[0]!;
  }
  if (!teams.includes(tmuxSessionName(name))) {
    throw new UsageError(`no team "${name}" is running under tmux (socket ${socket})`, teams.length ? `running: ${teams.join(', ')}` : 'start one with `teamux start LAYOUT --backend tmux`');
  }
  const dir = await sessionTeamDir(name, ctx.env);
  if (!dir || (!existsSync(path.join(dir, 'team.json')) && !readStoreMarker(dir))) throw new UsageError(`the tmux session "${name}" has no teamux team folder`, `it was not started by teamux; use tmux -L ${socket} directly`);
  return { team: name, dir };
}

async function openStore(dir: string, ctx: CliContext): Promise<TeamStore> {
  const r = await openTeamAt(dir, ctx.env, 'cli');
  if (!r.ok) throw new UsageError(r.error.message, r.error.hint);
  return closeAfterRun(ctx, r.store);
}

export const attachVerb: Verb = {
  name: 'attach',
  usage: ['attach [TEAM] [-d]'],
  examples: ['teamux attach', 'teamux attach demo', 'teamux attach -d demo   # take it over from another terminal'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, { ...OPTS, 'detach-other': { type: 'boolean', short: 'd', default: false } }, this.usage[0]!);
    const { team, dir } = await pickTeam(ctx, positionals[0], 'attach');
    requireTty('attach');
    const first = await openStore(dir, ctx);
    const cfg = await first.config();
    if (!cfg.layoutFile) throw new UsageError(`${dir}/team.json does not name its layout file`, 'start the team again with `teamux start LAYOUT --backend tmux`');
    const { layout } = loadLayoutOrFail(cfg.layoutFile, ctx.env);
    const keys = keyTableOf(layout, cfg.layoutFile);
    await takeOver(first, team, values['detach-other']);
    // A team on a NATS store: its local folder's marker says where (credentials come from the env).
    const marker = readStoreMarker(dir);
    const remote = marker ? { url: marker.store, team: marker.team, env: ctx.env } : undefined;
    const { store, release } = await openScreen(dir, 'tmux', remote ?? null);
    // The run goes on, but this screen has a new key: members still running from the screen that
    // started them trust that screen's key only, and take this one's decisions after a restart (C-a R).
    const run = cfg.run ?? (await store.startRun()).run;
    const trust = await trustFor(store, layout, run);
    for (const m of cfg.members) if (m.pid !== null) store.startedByEarlierScreen.set(m.name, m.pid);
    for (const q of await withdrawOrphanPermissions(store)) store.log.info(`request ${q.id} (permission from ${q.from}) ${q.response?.text ?? 'withdrawn'}`);
    store.log.warn('attached with a new trust key: plan decisions from this screen count for members started or restarted (C-a R) from it; members still running from the earlier screen must be restarted first');
    try {
      const { host, procs } = await attachTmux(team, layout.root, dir, ctx.env);
      const demoUrl = existsSync(path.join(dir, 'demo-url'));
      await learnOuterTerminal({ input: process.stdin, output: process.stdout }, layout.theme);
      // A native lead's bridge lives as long as the session; one that crashed is started again.
      if (isNativeLead(layout.lead)) await (await import('./tmux-bridge.js')).startTmuxBridge(dir, path.join(BIN_DIR, 'teamux'), nativeBridgeSpec(layout, store, { ...trust.env }, tmuxSocket(ctx.env)));
      const teammates = adoptedTeammates(procs, [layout.lead, ...layout.teammates].map((m) => m.name), await bridgeSlots(team, ctx.env), layout.lead.cwd);
      const mux = muxFor({ layout, layoutFile: cfg.layoutFile, keys, store, host, teamDir: dir, extraEnv: { ...trust.env }, demo: demoUrl && !ctx.env.ANTHROPIC_API_KEY, adopt: procs, teammates, memberEnv: trust.memberEnv, restartEnv: trust.restartEnv, boot: ctx.boot });
      trust.seePanes(() => mux.panes);
      const code = await mux.run();
      await sayWhyDetached(ctx, store);
      return code;
    } finally {
      trust.dispose();
      await release();
    }
  },
};

/** With another TUI attached: take over (-d), as tmux's `attach -d` does, or refuse with the way to. */
async function takeOver(store: TeamStore, team: string, detachOther: boolean): Promise<void> {
  const other = await liveMux(store);
  if (!other) return;
  if (!detachOther) {
    throw new UsageError(
      `team "${team}" is already attached in another terminal (teamux pid ${other.pid}, since ${other.startedAt})`,
      `take it over here with \`teamux attach -d ${team}\` (the other terminal is told and let go), or free it with \`teamux detach ${team}\``,
    );
  }
  if (other.backend !== 'tmux') throw new UsageError(`team "${team}" is run by a pty-backend teamux (pid ${other.pid}); its members live and die with it`, 'switch to that terminal, or quit it there first');
  const tty = ownTerminal();
  const why = `taken over by \`teamux attach -d\` from ${tty ?? 'another terminal'} (pid ${process.pid})`;
  if (!(await detachMux(store, other, why))) {
    throw new UsageError(`the teamux attached to "${team}" (pid ${other.pid}) did not let go within 10 s`, `stop it with kill ${other.pid}, then attach again`);
  }
}

export const lsVerb: Verb = {
  name: 'ls',
  usage: ['ls'],
  examples: ['teamux ls', 'teamux ls --json'],
  async run(ctx, argv) {
    const { values } = parse(argv, OPTS, this.usage[0]!);
    const out: Array<{ team: string; dir: string | null; attached: number | null; members: Array<Pick<MemberView, 'name' | 'reportedStatus' | 'pid'> & { state: MemberState }> }> = [];
    for (const team of await runningTeams(ctx.env)) {
      const dir = await sessionTeamDir(team, ctx.env);
      const opened = dir ? await openTeamAt(dir, ctx.env, 'cli') : null;
      if (opened?.ok) closeAfterRun(ctx, opened.store);
      const requests = opened?.ok ? (await opened.store.requests.list()).requests : [];
      const members = opened?.ok ? (await opened.store.roster()).map(({ name, reportedStatus, pid }) => ({ name, reportedStatus, pid, state: memberState(name, reportedStatus, requests) })) : [];
      // A native lead's teammates: their panes in the session say whether they still run.
      for (const pane of await bridgePanes(team, ctx.env)) {
        const m = members.find((x) => x.name === pane.member);
        if (!m) continue;
        if (pane.dead) m.state = 'exited';
        else if (m.state === 'exited') m.state = 'working';
      }
      const mux = opened?.ok ? await liveMux(opened.store) : null;
      out.push({ team, dir, attached: mux?.pid ?? null, members });
    }
    if (values.json) ctx.out(JSON.stringify({ ok: true, teams: out }));
    else if (out.length === 0) ctx.out(`no teams running (tmux socket ${tmuxSocket(ctx.env)})`);
    else ctx.out(table(['TEAM', 'ATTACHED', 'MEMBERS', 'FOLDER'], out.map((t) => [t.team, t.attached ? `pid ${t.attached}` : 'no', t.members.map((m) => `${m.name}:${m.state}`).join(', '), t.dir ?? '?'])));
    return EXIT_OK;
  },
};

/** A member process reached only by its pid (no TUI holds its pane). */
function pidTarget(m: Pick<MemberView, 'name' | 'runtime' | 'speaksProtocol'>, pid: number, pidStart: number | null): ShutdownTarget {
  const alive = (): boolean => pidAlive(pid, pidStart);
  return {
    name: m.name,
    speaksProtocol: speaksProtocol(m),
    exited: () => !alive(),
    waitExit: async (ms) => {
      const deadline = Date.now() + ms;
      while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      return !alive();
    },
    kill: (sig) => {
      try {
        process.kill(pid, sig);
      } catch {
        // already gone
      }
    },
  };
}

export const killVerb: Verb = {
  name: 'kill',
  usage: ['kill [TEAM] [--timeout SECONDS]'],
  examples: ['teamux kill demo', 'teamux kill demo --timeout 5'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, { ...OPTS, timeout: { type: 'string' } }, this.usage[0]!);
    const timeout = values.timeout === undefined ? 10 : Number(values.timeout);
    if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`--timeout "${values.timeout}" is not a number of seconds`);
    const { team, dir } = await pickTeam(ctx, positionals[0], 'kill');
    const store = await openStore(dir, ctx);
    // An attached TUI lets go first, so it does not show the panes dying.
    const mux = await liveMux(store);
    if (mux) await detachMux(store, mux, `the team was stopped by \`teamux kill\` (pid ${process.pid})`);
    const cfg = await store.config();
    const lead = cfg.members.find((m) => m.kind === 'lead')?.name ?? cfg.members[0]!.name;
    const live = (await store.roster()).filter((m) => m.pid !== null && m.reportedStatus !== 'exited');
    const order = [...live.filter((m) => m.kind !== 'lead'), ...live.filter((m) => m.kind === 'lead')];
    const steps: string[] = [];
    const refused: string[] = [];
    // Teammates in parallel, then the lead.
    for (const group of [order.filter((m) => m.kind !== 'lead'), order.filter((m) => m.kind === 'lead')]) {
      await Promise.all(group.map(async (m) => {
        const o = await shutdownHandshake(store, lead, pidTarget(m, m.pid!, m.pidStart), timeout * 1000, (t) => steps.push(`${m.name}: ${t}`));
        if (o.kind === 'refused') refused.push(`${m.name}: ${o.reason}`);
        await store.updateMember(m.name, { status: 'exited' });
      }));
    }
    await tmuxRun(['kill-session', '-t', sessionTarget(tmuxSessionName(team))], ctx.env);
    if ((await runningTeams(ctx.env)).length === 0) await tmuxRun(['kill-server'], ctx.env);
    if (values.json) ctx.out(JSON.stringify({ ok: true, team, steps, refused }));
    else {
      for (const s of steps) ctx.out(s);
      ctx.out(`team ${team} stopped${refused.length ? ` (refusals overridden: ${refused.join('; ')})` : ''}`);
    }
    return EXIT_OK;
  },
};

export const detachVerb: Verb = {
  name: 'detach',
  usage: ['detach [TEAM]'],
  examples: ['teamux detach', 'teamux detach demo'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, OPTS, this.usage[0]!);
    const { team, dir } = await pickTeam(ctx, positionals[0], 'detach');
    const store = await openStore(dir, ctx);
    const mux = await liveMux(store);
    if (!mux) {
      if (!values.json) ctx.err(`teamux: no TUI is attached to ${team}`);
      else ctx.out(JSON.stringify({ ok: false, reason: 'not_attached' }));
      return EXIT_REFUSED;
    }
    await detachMux(store, mux, `\`teamux detach\` from ${ownTerminal() ?? 'another terminal'} (pid ${process.pid})`);
    ctx.out(values.json ? JSON.stringify({ ok: true, team, pid: mux.pid }) : `detached ${team} (TUI pid ${mux.pid}); members keep running — teamux attach ${team} to come back`);
    return EXIT_OK;
  },
};
