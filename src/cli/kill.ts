/** `teamux kill [TEAM]`: shut a tmux-backed team down by handshake (teammates, then the lead), then remove its session. */
import { shutdownHandshake, type ShutdownTarget } from '../app/shutdown.js';
import { sessionTarget, tmuxSessionName } from '../host/tmux/commands.js';
import { speaksProtocol } from '../protocol/types.js';
import { pidAlive } from '../store/liveness.js';
import type { MemberView } from '../store/team.js';
import { EXIT_OK, parse, UsageError } from './context.js';
import { detachMux, liveMux } from './mux-lock.js';
import { pickTeam, openTeamStore, TEAM_OPTS } from './running-team.js';
import { runningTeams, tmuxRun } from './tmux-backend.js';
import type { Verb } from './verb.js';

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
    const { values, positionals } = parse(argv, { ...TEAM_OPTS, timeout: { type: 'string' } }, this.usage[0]!);
    const timeout = values.timeout === undefined ? 10 : Number(values.timeout);
    if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`--timeout "${values.timeout}" is not a number of seconds`);
    const { team, dir } = await pickTeam(ctx, positionals[0], 'kill');
    const store = await openTeamStore(dir, ctx);
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
