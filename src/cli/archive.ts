/**
 * `teamux archive [TEAM]`: move a finished team's folder to `.teamux/archive/<team>-<time>/`
 * (src/store/archive.ts). Refused (exit 3, reason `running`) while the team's screen runs or any
 * member is alive, with what to do about it; `teamux report --team-dir` still reads the archive.
 * `teamux start` archives a finished run (or one started `--fresh`) the same way (archiveEarlierRun).
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { NAME_PATTERN } from '../protocol/types.js';
import { visible } from '../protocol/visible.js';
import { archiveTeamFolder } from '../store/archive.js';
import { TeamStore } from '../store/team.js';
import { EXIT_OK, EXIT_REFUSED, openTeam, parse, TEAM_OPTIONS, UsageError } from './context.js';
import { liveMux } from './mux-lock.js';
import { retireWorktrees } from '../ops/worktree-merge.js';
import { WorktreeRecord } from '../store/worktrees.js';
import { cliGit } from './worktrees-run.js';
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
    // Worktrees go (work committed on its branch first); branches stay unless base has them.
    const retired = await retireWorktrees(cliGit(ctx.env), new WorktreeRecord(from));
    if (!retired.ok) return refuse(`the worktrees of team ${team} could not be removed: ${retired.message}`, 'fix worktrees.json (or remove it to leave the worktrees alone), then archive');
    const stuck = retired.value.filter((r) => !r.removed);
    if (stuck.length > 0) return refuse(`the worktree of ${stuck.map((r) => `${r.member} (${r.problem ?? 'unknown'})`).join(', ')} could not be removed; nothing was archived`, 'see git worktree list; fix it, then archive again');
    for (const r of retired.value) if (!values.json) ctx.out(`removed the worktree of ${r.member}${r.committedFirst ? ' (its uncommitted work committed first)' : ''}; branch ${visible(r.branch)} ${r.branchKept ? 'kept' : 'deleted (base has it)'}`);
    store.log.info(`archiving the team folder to ${path.join(path.dirname(from), 'archive')}`);
    const to = await archiveTeamFolder(from, team);
    if (values.json) ctx.out(JSON.stringify({ ok: true, team, from, to, worktrees: retired.value }));
    const rel = path.relative(ctx.cwd, to);
    if (!values.json) ctx.out(`archived team ${team} to ${visible(rel.startsWith('..') ? to : rel)}`);
    return EXIT_OK;
  },
};

/**
 * The folder of an earlier run that `teamux start` does not resume (a finished run, or `--fresh`) is
 * archived (`.teamux/archive/<team>-<time>/`, as `teamux archive` does) and the team starts fresh. A
 * team whose screen runs is never touched (null: opening it then refuses); one with a member still
 * alive is refused with who. A `<team>.previous` folder left by older versions (which made CLI
 * discovery see two teams) is archived too.
 */
export async function archiveEarlierRun(teamDir: string): Promise<{ archived: string | null } | { refused: string; hint: string }> {
  const previous = `${teamDir}.previous`;
  if (existsSync(path.join(previous, 'team.json'))) await archiveTeamFolder(previous, `${path.basename(teamDir)}-previous`);
  if (!existsSync(path.join(teamDir, 'team.json')) && !existsSync(path.join(teamDir, 'events.jsonl'))) return { archived: null };
  const opened = await TeamStore.open(teamDir, 'mux');
  if (opened.ok) {
    try {
      if (await liveMux(opened.store)) return { archived: null };
      const alive = (await opened.store.roster()).filter((m) => m.reportedStatus !== 'exited');
      if (alive.length > 0) return { refused: `team ${path.basename(teamDir)} cannot start afresh: ${alive.map((m) => `${m.name}${m.pid !== null ? ` (pid ${m.pid})` : ''}`).join(', ')} still running`, hint: 'stop them first (`teamux kill TEAM` for a tmux team), or leave out --fresh to resume the run' };
    } finally {
      await opened.store.backend.close();
    }
  }
  return { archived: await archiveTeamFolder(teamDir, path.basename(teamDir)) };
}
