/** `teamux detach [TEAM]`: let go of the TUI attached to a tmux-backed team; every member keeps running. */
import { EXIT_OK, EXIT_REFUSED, parse } from './context.js';
import { detachMux, liveMux, ownTerminal } from './mux-lock.js';
import { pickTeam, openTeamStore, TEAM_OPTS } from './running-team.js';
import type { Verb } from './verb.js';

export const detachVerb: Verb = {
  name: 'detach',
  usage: ['detach [TEAM]'],
  examples: ['teamux detach', 'teamux detach demo'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, TEAM_OPTS, this.usage[0]!);
    const { team, dir } = await pickTeam(ctx, positionals[0], 'detach');
    const store = await openTeamStore(dir, ctx);
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
