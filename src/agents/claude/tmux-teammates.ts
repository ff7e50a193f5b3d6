/**
 * The panes the tmux stand-in's bridge process opens in the team's session (tmux backend), shown in
 * this screen: adopted when the screen attaches (in their slots' order, after the layout's members),
 * and followed while it runs: a pane that appears opens, one respawned under a teammate's name takes
 * the placeholder's place, one that goes closes; a focus request (select-pane) moves the focus when
 * the operator allows. The processes are tmux's; this file owns the subscription to the host's
 * reports and the focus requests waiting for the operator, both released with the screen.
 */
import type { PaneAppearance, PaneProcess } from '../../host/types.js';
import type { MemberLaunch, Multiplexer } from '../../app/multiplexer.js';
import { multiplexerPanes } from './mux-pane-control.js';

/** The launch a bridge pane is shown with: its process already runs, so this only names it. */
export function teammateLaunch(name: string, cwd: string): MemberLaunch {
  // A restart from the screen cannot rebuild a Claude Code teammate's command line: its lead can.
  const why = `teamux: ${name} was started by its Claude Code lead; ask the lead to start it again`;
  return { name, role: name.startsWith('%') ? 'pane opened by Claude Code' : 'Claude Code teammate', isLead: false, speaksProtocol: false, command: '/bin/sh', args: ['-c', `echo '${why}'`], cwd, env: {} };
}

/** The bridge panes among the processes found at attach, as launches in slot order (layout members left out). */
export function adoptedTeammates(procs: readonly PaneProcess[], layoutMembers: readonly string[], slots: ReadonlyMap<string, number>, cwd: string): MemberLaunch[] {
  return procs
    .filter((p) => !layoutMembers.includes(p.id) && slots.has(p.id))
    .sort((a, b) => slots.get(a.id)! - slots.get(b.id)!)
    .map((p) => teammateLaunch(p.id, cwd));
}

/** Follow the bridge's panes in a running screen; returns the release. */
export async function followTeammates(mux: Multiplexer): Promise<() => void> {
  const host = mux.opts.host;
  if (!host.follow) return () => undefined;
  const cwd = mux.opts.members.find((m) => m.isLead)?.cwd ?? process.cwd();
  const adopt = (mux.opts.adopt ??= []);
  const take = (proc: PaneProcess): void => {
    // The screen's spawn finds a running process here by name (a name respawned again replaces the older one).
    for (let i = adopt.length - 1; i >= 0; i--) if (adopt[i]!.id === proc.id) adopt.splice(i, 1);
    adopt.push(proc);
  };
  // tmux's select-pane asks; the operator comes first (pane-focus.ts). Requests from before this
  // screen attached are dropped: focus means nothing without a screen.
  const control = multiplexerPanes(mux);
  const since = Date.now();
  const sub = await host.follow((c: PaneAppearance) => {
    const exists = (id: string): boolean => mux.state.panes.some((p) => p.id === id);
    if (c.kind === 'focus') {
      if (c.at >= since && exists(c.id)) control.focus(c.id);
      else mux.opts.store.log.info(`tmux stand-in: focus request for ${c.id} from ${new Date(c.at).toISOString()} dropped (made before this screen attached, or no such pane)`);
      return;
    }
    mux.opts.store.log.info(c.kind === 'gone' ? `tmux: the stand-in's pane ${c.id} is gone` : `tmux: the stand-in's pane ${c.proc.id} ${c.kind === 'renamed' ? `(was ${c.from}) ` : ''}is shown (slot ${c.slot}, ${c.proc.initialScreen?.length ?? 0} bytes of screen)`);
    if (c.kind === 'gone') return mux.dispatch({ kind: 'close-pane', pane: c.id });
    take(c.proc);
    if (c.kind === 'renamed' && exists(c.from)) return mux.dispatch({ kind: 'replace-pane', pane: c.from, launch: teammateLaunch(c.proc.id, cwd) });
    if (!exists(c.proc.id)) mux.dispatch({ kind: 'open-pane', launch: teammateLaunch(c.proc.id, cwd) });
  });
  return () => {
    sub.dispose();
    control.dispose?.();
  };
}
