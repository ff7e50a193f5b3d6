/** `teamux ls`: the teams running under tmux, with their members and states, and whether a TUI is attached. */
import { memberState, type MemberState } from '../protocol/members.js';
import { openTeamAt } from '../store/select.js';
import type { MemberView } from '../store/team.js';
import { closeAfterRun, EXIT_OK, parse } from './context.js';
import { liveMux } from './mux-lock.js';
import { TEAM_OPTS } from './running-team.js';
import { table } from './task.js';
import { bridgePanes, runningTeams, sessionTeamDir, tmuxSocket } from './tmux-backend.js';
import type { Verb } from './verb.js';

export const lsVerb: Verb = {
  name: 'ls',
  usage: ['ls'],
  examples: ['teamux ls', 'teamux ls --json'],
  async run(ctx, argv) {
    const { values } = parse(argv, TEAM_OPTS, this.usage[0]!);
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
