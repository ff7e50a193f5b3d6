/**
 * Keeps a ClaudeTeamView of the native lead's Claude Code team: finds the team by the lead's session
 * id (from its SessionStart hook), re-reads its files through the store every few hundred ms, and
 * remembers each inbox message it has seen. Claude Code empties an inbox once the message is
 * delivered, so the traffic exists only as seen: besides the poll, the inboxes folder is watched
 * (inotify through fs.watch) and a changed inbox is read at once, in the change event, before its
 * reader can empty it. A message's lead_sig is checked with the recipient's verify key once one is
 * known. Owns the timer, the folder watch and the seen ids; disposed with the screen.
 */
import type { KeyObject } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { claudeInboxDir, findClaudeTeam, readClaudeInboxesSync, readClaudeTeam, type ClaudeTeamFiles, type ClaudeTeamMessage, type ClaudeTeamView } from '../../store/claude-team-files.js';
import type { Log } from '../../store/log.js';
import { leadSigOf } from './lead-sig.js';

/** How often the team files are read (members, tasks; inboxes too, behind the folder watch). */
export const CLAUDE_TEAM_POLL_MS = 250;
const TRAFFIC_KEPT = 100;
/** Message ids remembered so a message still in its inbox is not shown twice (oldest forgotten first). */
const SEEN_KEPT = 10_000;

/** What the watch needs from its owner. */
export interface ClaudeTeamWatchOptions {
  /** The HOME the lead runs with. */
  home: string;
  /** The lead's Claude Code session id, once known. */
  leadSession: () => string | null;
  onChange: (view: ClaudeTeamView) => void;
  log: Log;
  /** The key a recipient's lead messages are verified with (the tmux bridge knows it), or null. */
  verifyKey?: (recipient: string) => KeyObject | null;
}

/** Start watching; returns a disposer. */
export function watchClaudeTeam(o: ClaudeTeamWatchOptions): { dispose(): void; view(): ClaudeTeamView | null } {
  let team: string | null = null;
  let files: ClaudeTeamFiles | null = null;
  let view: ClaudeTeamView | null = null;
  let last = '';
  const seen = new Set<string>();
  const traffic: ClaudeTeamMessage[] = [];
  let inboxWatch: FSWatcher | null = null;
  let publishing: NodeJS.Immediate | null = null;
  let busy = false;
  let stopped = false;

  const take = (messages: readonly ClaudeTeamMessage[]): boolean => {
    let added = false;
    for (const m of messages) {
      if (seen.has(m.id)) continue;
      seen.add(m.id);
      if (seen.size > SEEN_KEPT) seen.delete(seen.values().next().value!);
      traffic.push(m);
      added = true;
    }
    if (!added) return false;
    traffic.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    if (traffic.length > TRAFFIC_KEPT) traffic.splice(0, traffic.length - TRAFFIC_KEPT);
    return true;
  };

  /** Check lead_sig on messages not checked yet (a key may have come with a later respawn). */
  const verify = (): void => {
    for (let i = 0; i < traffic.length; i++) {
      const m = traffic[i]!;
      if (m.sig !== 'unverified') continue;
      const sig = leadSigOf(m.signing, o.verifyKey?.(m.to) ?? null);
      if (sig === 'unverified') continue;
      traffic[i] = { ...m, sig };
      if (sig === 'forged') o.log.warn(`Claude Code inbox of ${m.to}: message ${m.id} from ${m.from} carries a lead_sig that does not verify with the key the lead gave ${m.to}; shown as FORGED`);
    }
  };

  const publish = (): void => {
    publishing = null;
    if (stopped || !files) return;
    verify();
    const next: ClaudeTeamView = { name: files.name, members: files.members, tasks: files.tasks, traffic: [...traffic], problems: files.problems };
    const key = JSON.stringify(next);
    if (key === last) return;
    last = key;
    view = next;
    o.onChange(next);
  };
  // Changes that arrive together (a burst of inbox events) make one view.
  const schedule = (): void => {
    publishing ??= setImmediate(publish);
  };

  /** An inbox changed: read it now (the file named, or every inbox when the event names none). */
  const inboxChanged = (name: string | null): void => {
    if (stopped || !team) return;
    // Claude Code's temp files are skipped: their rename to <member>.json is an event of its own.
    if (name !== null && !name.endsWith('.json')) return;
    try {
      if (take(readClaudeInboxesSync(o.home, team, name).messages)) schedule();
    } catch (err) {
      o.log.error('reading a Claude Code inbox failed', err);
    }
  };

  const watchInboxes = (): void => {
    if (inboxWatch || !team) return;
    const dir = claudeInboxDir(o.home, team);
    try {
      inboxWatch = watch(dir, { persistent: false }, (_event, name) => inboxChanged(name === null ? null : String(name)));
      inboxWatch.on('error', (err) => {
        // The folder went (the team was deleted); the poll sets the watch up again if it comes back.
        o.log.warn(`the watch on ${dir} stopped: ${err.message}`);
        inboxWatch?.close();
        inboxWatch = null;
      });
    } catch {
      // Not there yet: the next poll tries again.
      inboxWatch = null;
    }
  };

  const tick = async (): Promise<void> => {
    if (busy || stopped) return;
    busy = true;
    try {
      const session = o.leadSession();
      if (!team && session) team = await findClaudeTeam(o.home, session);
      if (!team) return;
      watchInboxes();
      const read = await readClaudeTeam(o.home, team);
      if (!read || stopped) return;
      files = read;
      take(read.inbox);
      publish();
    } catch (err) {
      o.log.error('reading the Claude Code team files failed', err);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), CLAUDE_TEAM_POLL_MS);
  void tick();
  return {
    dispose: () => {
      stopped = true;
      clearInterval(timer);
      if (publishing) clearImmediate(publishing);
      inboxWatch?.close();
      inboxWatch = null;
    },
    view: () => view,
  };
}
