/**
 * `teamux archive [TEAM]`: move a finished team's folder to `.teamux/archive/<team>-<time>/`
 * (src/store/archive.ts). Refused (exit 3, reason `running`) while the team's screen runs or any
 * member is alive, with what to do about it; `teamux report --team-dir` still reads the archive.
 * `teamux start` archives a finished demo run the same way (archiveDemoRun).
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { NAME_PATTERN } from '../protocol/types.js';
import { visible } from '../protocol/visible.js';
import { archiveTeamFolder } from '../store/archive.js';
import { TeamStore } from '../store/team.js';
import { EXIT_OK, EXIT_REFUSED, openTeam, parse, TEAM_OPTIONS, UsageError } from './context.js';
import { liveMux } from './mux-lock.js';
import type { Verb } from './verb.js';

export const archiveVerb: Verb = {
  name: 'archive',
  usage: ['archive [TEAM] [--team-dir DIR]'],
  examples: ['teamux archive', 'teamux archive demo', 'teamux report --team-dir .teamux/archive/demo-20261201-154703'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, TEAM_OPTIONS, this.usage[0]!);
    if (positionals.length > 1) throw new UsageError(`expected at most one team name, got ${positionals.length}`, `usage: ${this.usage[0]!}`);
    const name = positionals[0];
    if (name !== undefined && values['team-dir'] !== undefined) throw new UsageError('give a team name or --team-dir, not both', `usage: ${this.usage[0]!}`);
    if (name !== undefined && !NAME_PATTERN.test(name)) throw new UsageError(`"${visible(name)}" is not a team name`, 'team names are lowercase letters, digits, "-" and "_", starting with a letter');
    const dir = name !== undefined ? path.join(ctx.cwd, '.teamux', name) : values['team-dir'];
    const store = await openTeam(ctx, dir);
    const team = (await store.config()).name;
    const refuse = (message: string, hint: string): number => {
      if (values.json) ctx.out(JSON.stringify({ ok: false, reason: 'running', message, hint }));
      else ctx.err(`teamux: refused (running): ${message}\n  hint: ${hint}`);
      return EXIT_REFUSED;
    };
    const mux = await liveMux(store);
    if (mux) return refuse(`team ${team} is still running in teamux (pid ${mux.pid}, ${mux.backend} backend, since ${mux.startedAt})`, mux.backend === 'tmux' ? `quit it (C-a q) or run \`teamux kill ${team}\`, then archive` : 'quit it (C-a q) first, then archive');
    const alive = (await store.roster()).filter((m) => m.reportedStatus !== 'exited');
    if (alive.length > 0) {
      const who = alive.map((m) => `${m.name}${m.pid !== null ? ` (pid ${m.pid})` : ''}`).join(', ');
      return refuse(`team ${team} is not finished: ${who} ${alive.length === 1 ? 'is' : 'are'} still running`, `stop ${alive.length === 1 ? 'it' : 'them'} first (\`teamux kill ${team}\` for a tmux team), then archive`);
    }
    const from = store.dir;
    store.log.info(`archiving the team folder to ${path.join(path.dirname(from), 'archive')}`);
    const to = await archiveTeamFolder(from, team);
    if (values.json) ctx.out(JSON.stringify({ ok: true, team, from, to }));
    const rel = path.relative(ctx.cwd, to);
    if (!values.json) ctx.out(`archived team ${team} to ${visible(rel.startsWith('..') ? to : rel)}`);
    return EXIT_OK;
  },
};

/**
 * The demo model is a script with no memory, so agents resuming an earlier demo's transcripts would
 * be out of step with it: a finished demo run's folder is archived (`.teamux/archive/<team>-<time>/`,
 * as `teamux archive` does) and the demo starts fresh. A team that is running is never touched. A
 * `<team>.previous` folder left by older versions (which made CLI discovery see two teams) is
 * archived too.
 */
export async function archiveDemoRun(teamDir: string): Promise<string | null> {
  const previous = `${teamDir}.previous`;
  if (existsSync(path.join(previous, 'team.json'))) await archiveTeamFolder(previous, `${path.basename(teamDir)}-previous`);
  if (!existsSync(path.join(teamDir, 'events.jsonl'))) return null;
  const opened = await TeamStore.open(teamDir, 'mux');
  if (opened.ok && (await liveMux(opened.store))) return null;
  if (opened.ok && (await opened.store.roster()).some((m) => m.reportedStatus !== 'exited')) return null;
  return archiveTeamFolder(teamDir, path.basename(teamDir));
}
