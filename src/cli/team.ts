/**
 * `teamux team show`: the roster from team.json with each member's liveness-checked status, so any
 * process can discover its teammates and see who has exited.
 */
import { memberState, type MemberState } from '../protocol/members.js';
import type { MemberView } from '../store/team.js';
import { EXIT_OK, openTeam, parse, TEAM_OPTIONS } from './context.js';
import { dispatch, table } from './task.js';
import type { SubVerb, Verb } from './verb.js';

const sub: SubVerb[] = [
  {
    name: 'show',
    usage: 'team show',
    async run(ctx, argv) {
      const { values } = parse(argv, TEAM_OPTIONS, this.usage);
      const store = await openTeam(ctx, values['team-dir']);
      const cfg = await store.config();
      const roster = await store.roster();
      const { requests } = await store.requests.list();
      const state = (m: MemberView): MemberState => memberState(m.name, m.reportedStatus, requests);
      if (values.json) {
        ctx.out(JSON.stringify({ ok: true, name: cfg.name, dir: store.dir, root: cfg.root, store: store.backend.kind === 'folder' ? 'folder' : store.backend.where, members: roster.map((m) => { const { reportedStatus, ...rest } = m; return { ...rest, status: reportedStatus, recordedStatus: m.status, state: state(m) }; }) }));
        return EXIT_OK;
      }
      ctx.out(`team ${cfg.name}  (${store.backend.kind === 'folder' ? store.dir : `${store.backend.where}, local folder ${store.dir}`})`);
      ctx.out(table(['NAME', 'KIND', 'STATUS', 'PID', 'ROLE'], roster.map((m) => [m.name, m.kind, state(m) + (m.reportedStatus === 'exited' && m.exitCode !== null ? ` (${m.exitCode})` : ''), m.pid === null ? '-' : String(m.pid), m.role])));
      return EXIT_OK;
    },
  },
];

export const teamVerb: Verb = {
  name: 'team',
  usage: sub.map((s) => s.usage),
  examples: ['teamux team show', 'teamux team show --json --team-dir .teamux/demo'],
  run: (ctx, argv) => dispatch('team', sub, ctx, argv),
};
