/**
 * What each bound key does, as pure steps: like tmux's cmd-*.c entries, every action reports through
 * the status line and never throws at the user. Protocol work (approve, reject, broadcast, the
 * shutdown handshake) and pane work (restart, writes) leave here as effects for the runner. Owns no
 * data; the action table (actions.ts) names these.
 */
import { OPERATOR } from '../protocol/operator.js';
import type { ProtocolRequest } from '../protocol/types.js';
import { pendingRequests } from './sidebar-data.js';
import { openPrompt } from './prompt.js';
import { focusedPane, layoutOf, type MuxState } from './state.js';
import { finish, focus, same, say, startShutdown, type Step } from './transitions.js';

/** Focus the next pane. */
export function focusNext(s: MuxState): Step {
  return focus(s, (s.focused + 1) % Math.max(1, s.panes.length));
}

/** Focus the previous pane. */
export function focusPrev(s: MuxState): Step {
  return focus(s, (s.focused - 1 + s.panes.length) % Math.max(1, s.panes.length));
}

/** Focus the pane numbered `n` (numbers stay with their panes when others close). */
export function focusNumber(s: MuxState, n: number): Step {
  const index = s.panes.findIndex((p) => p.number === n);
  if (index < 0) return say(s, `there is no pane ${n}`);
  return focus(s, index);
}

/** Zoom the focused pane to the whole pane area, or back. */
export function zoom(s: MuxState): Step {
  return [{ ...s, zoomed: s.zoomed === null ? s.focused : null }, [{ kind: 'relayout' }]];
}

/** Enter scrollback mode in the focused pane. */
export function scrollback(s: MuxState): Step {
  const pane = focusedPane(s);
  if (!pane) return same(s);
  const panes = s.panes.map((p) => (p === pane ? { ...p, scrollMode: true } : p));
  const [said, fx] = say({ ...s, panes }, 'scrollback: ↑/↓ PgUp/PgDn g/G, q to leave');
  return [said, [{ kind: 'pane-dirty', pane: pane.id }, ...fx]];
}

/** Show or hide the sidebar, whatever the layout and the terminal width say. */
export function toggleSidebar(s: MuxState): Step {
  const shown = layoutOf(s).sidebar === null;
  const next = { ...s, sidebarShown: shown };
  const laid = layoutOf(next);
  if (shown && laid.sidebar === null) {
    const [said, fx] = say(next, 'the terminal is too narrow for the sidebar');
    return [said, [{ kind: 'relayout' }, ...fx]];
  }
  // Beside the sidebar every pane keeps a readable width, or the sidebar stays hidden (C-a z zooms one pane).
  const narrowest = Math.min(...laid.panes.filter((r) => r.width > 0).map((r) => r.width));
  if (shown && s.zoomed === null && narrowest < MIN_PANE_BESIDE_SIDEBAR) {
    return say(s, `too narrow for the sidebar beside ${s.panes.length} panes (the narrowest would be ${narrowest} columns); widen the terminal, or ${s.cfg.keys.prefix} z zooms one pane`);
  }
  const [said, fx] = say(next, shown ? 'sidebar shown' : `sidebar hidden (${s.cfg.keys.prefix} t shows it)`);
  return [said, [{ kind: 'relayout' }, ...fx]];
}

/** The narrowest a pane may become when the person shows the sidebar (columns). */
export const MIN_PANE_BESIDE_SIDEBAR = 20;

/** Select the next (step 1) or previous (-1) pending request. */
export function selectRequest(s: MuxState, step: number): Step {
  const pending = pendingRequests(s.snapshot);
  if (pending.length === 0) return say(s, 'no pending requests');
  const at = pending.findIndex((r) => r.id === s.selectedRequest);
  const next = pending[(at + step + pending.length) % pending.length]!;
  return [{ ...s, selectedRequest: next.id }, [{ kind: 'repaint' }]];
}

/** Open the selected request (else the oldest pending one, else the newest) in the reader. */
export function readRequest(s: MuxState): Step {
  const pending = pendingRequests(s.snapshot);
  const req = pending.find((r) => r.id === s.selectedRequest) ?? pending[0] ?? s.snapshot.requests[s.snapshot.requests.length - 1];
  if (!req) return say(s, 'no request to read');
  return [{ ...s, reader: { id: req.id, top: 0 } }, [{ kind: 'repaint' }]];
}

/** The selected plan or permission request (the ones the operator answers), or the oldest pending one. */
function selectedAnswerable(s: MuxState): ProtocolRequest | undefined {
  const pending = pendingRequests(s.snapshot).filter((r) => r.type === 'plan_approval' || r.type === 'permission');
  return pending.find((r) => r.id === s.selectedRequest) ?? pending[0];
}

/** "alice's plan", "alice's Bash". */
function what(req: ProtocolRequest): string {
  return req.type === 'permission' ? `${req.from}'s ${String(req.payload?.['tool'] ?? 'tool')}` : `${req.from}'s plan`;
}

/** Approve (allow) the selected plan or permission request; a plan decision is signed by the screen's store. */
export function approve(s: MuxState): Step {
  const req = selectedAnswerable(s);
  if (!req) return say(s, 'no pending plan or permission request to approve');
  const done = `${req.type === 'permission' ? 'allowed' : 'approved'} ${what(req)}`;
  return [s, [{ kind: 'answer', label: 'approve', request: req.id, to: req.to, approve: true, text: 'approved by the operator', done, failed: 'could not approve' }]];
}

/** Ask for feedback, then reject (deny) the selected plan or permission request. */
export function reject(s: MuxState): Step {
  const req = selectedAnswerable(s);
  if (!req) return say(s, 'no pending plan or permission request to reject');
  const verb = req.type === 'permission' ? 'deny' : 'reject';
  const edit = openPrompt(`${verb} ${what(req)} — feedback:`);
  return [{ ...s, prompt: { edit, purpose: { kind: 'reject', request: req.id, to: req.to, what: what(req), verb } } }, [{ kind: 'repaint' }]];
}

/** Ask for text, then broadcast it to every inbox (from the operator; it is never typed into panes). */
export function broadcast(s: MuxState): Step {
  return [{ ...s, prompt: { edit: openPrompt('broadcast:'), purpose: { kind: 'broadcast' } } }, [{ kind: 'repaint' }]];
}

/**
 * What the status line says after a broadcast: how many inboxes got it, and, when some recipients
 * are not running (exited, or not started), that only the running ones will read it now.
 */
export function broadcastReport(recipients: readonly string[], running: (member: string) => boolean): string {
  const idle = recipients.filter((n) => !running(n));
  const n = recipients.length;
  if (idle.length === 0) return `broadcast delivered to ${n} inbox${n === 1 ? '' : 'es'}`;
  const live = n - idle.length;
  return `broadcast delivered to ${live} running member${live === 1 ? '' : 's'}; ${idle.join(', ')} (not running) will find it in ${idle.length === 1 ? 'its' : 'their'} inbox`;
}

/** What a submitted prompt does. */
export function submitPrompt(s: MuxState, purpose: NonNullable<MuxState['prompt']>['purpose'], label: string, text: string): Step {
  const t = text.trim();
  if (purpose.kind === 'confirm-shutdown') return confirmedShutdown(s, purpose.panes, /^y(es)?$/i.test(t));
  if (purpose.kind === 'broadcast') {
    if (!t) return say(s, 'empty broadcast; nothing was sent');
    return [s, [{ kind: 'broadcast', label, text: t }]];
  }
  if (!t) return say(s, 'a rejection needs feedback; nothing was sent');
  const done = `${purpose.verb === 'deny' ? 'denied' : 'rejected'} ${purpose.what}`;
  return [s, [{ kind: 'answer', label, request: purpose.request, to: purpose.to, approve: false, text: t, done, failed: 'could not reject' }]];
}

/** Ask first (y/n), as tmux's kill-pane binding does; the exited pane stays for C-a R. */
function confirmShutdown(s: MuxState, panes: readonly string[]): Step {
  if (panes.length === 0) return say(s, 'no teammate to shut down');
  const edit = openPrompt(`shut down ${panes.join(', ')}? (y/n)`);
  return [{ ...s, prompt: { edit, purpose: { kind: 'confirm-shutdown', panes } } }, [{ kind: 'repaint' }]];
}

/** Shutdown handshake with the focused teammate, once confirmed. */
export function shutdownFocused(s: MuxState): Step {
  const pane = focusedPane(s);
  if (!pane) return same(s);
  if (pane.isLead) return say(s, 'the lead stops with quit; shutdown is for teammates');
  if (pane.life === 'exited') return say(s, `${pane.id} has already exited (${s.cfg.keys.prefix} R restarts it)`);
  return confirmShutdown(s, [pane.id]);
}

/** Shutdown handshake with every running teammate, once confirmed. */
export function shutdownAll(s: MuxState): Step {
  return confirmShutdown(s, s.panes.filter((p) => !p.isLead && p.life !== 'exited').map((p) => p.id));
}

/** The answer to a shutdown's y/n question: `y` starts the handshakes with the panes still running. */
export function confirmedShutdown(s: MuxState, panes: readonly string[], yes: boolean): Step {
  if (!yes) return say(s, 'cancelled');
  return startShutdown(s, 'manual', panes.filter((id) => s.panes.some((p) => p.id === id && p.life !== 'exited')));
}

/** Start the focused pane's command again after it exited. */
export function restart(s: MuxState): Step {
  return restartWith(s, false);
}

/** Restart the focused exited pane with a fresh conversation instead of the one it recorded. */
export function restartFresh(s: MuxState): Step {
  return restartWith(s, true);
}

function restartWith(s: MuxState, fresh: boolean): Step {
  const pane = focusedPane(s);
  if (!pane) return same(s);
  if (pane.life !== 'exited') return say(s, `${pane.id} is still running; restart is for exited panes`);
  const panes = s.panes.map((p) => (p === pane ? { ...p, life: 'starting' as const, exitText: '', note: null } : p));
  return [{ ...s, panes }, [{ kind: 'restart', pane: pane.id, ...(fresh ? { fresh } : {}) }]];
}

/** Open the help overlay. */
export function help(s: MuxState): Step {
  return [{ ...s, help: true }, [{ kind: 'repaint' }]];
}

/** Show the web view's link and QR code (the runner knows whether it is on). */
export function webLink(s: MuxState): Step {
  return [s, [{ kind: 'web-link' }]];
}

/** Let go of the terminal; under tmux the members keep running. */
export function detach(s: MuxState): Step {
  if (s.cfg.hostKind !== 'tmux') return say(s, 'detach needs the tmux backend (backend: tmux in the layout, or --backend tmux)');
  const farewell = `[detached from ${s.cfg.team}; members keep running: teamux attach ${s.cfg.team} to come back]`;
  const [next, fx] = finish(s, 0, false, farewell);
  return [next, [{ kind: 'log', text: 'detached; members keep running' }, ...fx]];
}

/** Send the prefix key itself to the focused pane. */
export function sendPrefix(s: MuxState): Step {
  const pane = focusedPane(s);
  return pane ? [s, [{ kind: 'write', pane: pane.id, data: s.cfg.keys.prefixBytes }]] : same(s);
}

/** First press: handshake with every teammate, then the leads, then exit. Second press: force. */
export function quit(s: MuxState): Step {
  if (s.quitting !== 'no') {
    const [said, fx] = say({ ...s, quitting: 'forced', shutdowns: [] }, 'forcing quit: SIGTERM, then SIGKILL');
    return [said, [...fx, { kind: 'terminate-all' }]];
  }
  const [said, fx] = say({ ...s, quitting: 'graceful' }, `quitting: shutdown handshake with everyone (press ${s.cfg.keys.prefix} q again to force)`);
  const teammates = said.panes.filter((p) => !p.isLead && p.life !== 'exited').map((p) => p.id);
  const [next, more] = startShutdown(said, 'quit-teammates', teammates);
  return [next, [...fx, ...more]];
}
