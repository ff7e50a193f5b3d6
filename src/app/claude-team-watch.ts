/**
 * Keeps a ClaudeTeamView of the native lead's Claude Code team: finds the team by the lead's session
 * id (from its SessionStart hook), re-reads its files through the store every few hundred ms, and
 * remembers each inbox message it has seen (Claude Code empties an inbox once the message is
 * delivered, so the traffic exists only as seen). Owns the timer; disposed with the screen.
 */
import { findClaudeTeam, readClaudeTeam, type ClaudeTeamMessage, type ClaudeTeamView } from '../store/claude-team-files.js';
import type { Log } from '../store/log.js';

/** How often the team files are read. */
export const CLAUDE_TEAM_POLL_MS = 250;
const TRAFFIC_KEPT = 100;

/** What the watch needs from its owner. */
export interface ClaudeTeamWatchOptions {
  /** The HOME the lead runs with. */
  home: string;
  /** The lead's Claude Code session id, once known. */
  leadSession: () => string | null;
  onChange: (view: ClaudeTeamView) => void;
  log: Log;
}

/** Start watching; returns a disposer. */
export function watchClaudeTeam(o: ClaudeTeamWatchOptions): { dispose(): void; view(): ClaudeTeamView | null } {
  let team: string | null = null;
  let view: ClaudeTeamView | null = null;
  let last = '';
  const seen = new Set<string>();
  const traffic: ClaudeTeamMessage[] = [];
  let busy = false;
  let stopped = false;
  const tick = async (): Promise<void> => {
    if (busy || stopped) return;
    busy = true;
    try {
      const session = o.leadSession();
      if (!team && session) team = await findClaudeTeam(o.home, session);
      if (!team) return;
      const files = await readClaudeTeam(o.home, team);
      if (!files) return;
      for (const m of files.inbox) {
        if (seen.has(m.id)) continue;
        seen.add(m.id);
        traffic.push(m);
      }
      traffic.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
      if (traffic.length > TRAFFIC_KEPT) traffic.splice(0, traffic.length - TRAFFIC_KEPT);
      const next: ClaudeTeamView = { name: files.name, members: files.members, tasks: files.tasks, traffic: [...traffic], problems: files.problems };
      const key = JSON.stringify(next);
      if (key === last) return;
      last = key;
      view = next;
      o.onChange(next);
    } catch (err) {
      o.log.error('reading the Claude Code team files failed', err);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), CLAUDE_TEAM_POLL_MS);
  return {
    dispose: () => {
      stopped = true;
      clearInterval(timer);
    },
    view: () => view,
  };
}
