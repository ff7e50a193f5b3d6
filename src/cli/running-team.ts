/**
 * What the tmux backend's verbs (attach, ls, kill, detach) share: the options every one takes, and
 * finding the running team a verb is about (the named one, or the only one) with its team folder.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { tmuxSessionName } from '../host/tmux/commands.js';
import { openTeamAt, readStoreMarker } from '../store/select.js';
import type { TeamStore } from '../store/team.js';
import { closeAfterRun, UsageError, type CliContext } from './context.js';
import { runningTeams, sessionTeamDir, tmuxSocket } from './tmux-backend.js';

/** The options every tmux backend verb takes. */
export const TEAM_OPTS = { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } as const;

/** The running team a verb is about: the named one, or the only one. */
export async function pickTeam(ctx: CliContext, name: string | undefined, verb: string): Promise<{ team: string; dir: string }> {
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

/** The team folder's store, closed when the verb ends. */
export async function openTeamStore(dir: string, ctx: CliContext): Promise<TeamStore> {
  const r = await openTeamAt(dir, ctx.env, 'cli');
  if (!r.ok) throw new UsageError(r.error.message, r.error.hint);
  return closeAfterRun(ctx, r.store);
}
