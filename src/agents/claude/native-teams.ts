/**
 * Claude Code's own agent teams in a running multiplexer (a `native_teams` lead): the tmux
 * stand-in's bridge, attached to the multiplexer's panes through PaneControl before any member
 * starts, so the lead's first `tmux` call finds the socket listening, and the watch on Claude
 * Code's team files that feeds the sidebar. Both are released with the screen.
 */
import type { Multiplexer } from '../../app/multiplexer.js';
import { multiplexerPanes } from './mux-pane-control.js';
import { TmuxBridge } from './tmux-bridge.js';
import { watchClaudeTeam } from './native-team-watch.js';
import { bridgeVerifyKeys } from './bridge-keys.js';

/** What the multiplexer is told about a native lead. */
export interface NativeTeamsOptions {
  lead: string;
  /** Hold the lead's Claude Code teammates to teamux's plan gate. */
  planRequired: boolean;
  /** The stand-in's unix socket. */
  socket: string;
}

/** Start the bridge for the native lead; returns its disposer (nothing when the lead is not in this screen). */
export async function attachTmuxBridge(mux: Multiplexer, native: NativeTeamsOptions): Promise<() => void> {
  const lead = mux.opts.members.find((m) => m.name === native.lead);
  if (!lead) return () => undefined;
  // With the tmux backend the stand-in is served by a process beside the session (bridge-process.ts),
  // which outlives this screen; the screen only follows Claude Code's team files.
  const bridge = mux.opts.host.kind === 'tmux' ? null : new TmuxBridge({ socket: native.socket, store: mux.opts.store, control: multiplexerPanes(mux), lead, planRequired: native.planRequired, session: mux.opts.team });
  try {
    await bridge?.listen();
  } catch (err) {
    // Without the socket the lead still runs; its teammates then fail to open, with the reason in the log.
    mux.opts.store.log.error(`the tmux stand-in cannot listen on ${native.socket}`, err);
    mux.dispatch({ kind: 'say', text: `Claude Code agent teams are off: cannot listen on ${native.socket} (${(err as Error).message})` });
    return () => undefined;
  }
  // Without a bridge here, the keys are the bridge process's: asked for over the socket.
  const remoteKeys = bridgeVerifyKeys(native.socket);
  // The sidebar follows Claude Code's own team files under the HOME the lead runs with.
  const home = lead.env.HOME;
  const watch = home
    ? watchClaudeTeam({
      home, log: mux.opts.store.log,
      verifyKey: (recipient) => (bridge ? bridge.leadVerifyKey(recipient) : remoteKeys.get(recipient)),
      leadSession: () => mux.snapshot.claude?.[native.lead]?.sessionId ?? null,
      onChange: (view) => {
        mux.claudeTeam = view;
        mux.dispatch({ kind: 'team', snapshot: { ...mux.snapshot, claudeTeam: view } });
      },
    })
    : null;
  return () => {
    watch?.dispose();
    bridge?.dispose();
  };
}
