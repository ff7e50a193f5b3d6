/**
 * What each bound key does. Like tmux's cmd-*.c entries, every action reports through the status
 * line and never throws at the user: protocol work goes through the TeamStore (approve, reject,
 * broadcast) or the shutdown handshake, and pane work through the Multiplexer.
 */
import { OPERATOR } from '../protocol/operator.js';
import { pendingRequests } from '../ui/sidebar.js';
import type { Multiplexer } from './multiplexer.js';
import type { Pane } from './pane.js';
import { openPrompt } from './prompt.js';
import { shutdownHandshake, terminate } from './shutdown.js';

/** Focus the next pane. */
export function focusNext(mux: Multiplexer): void {
  focus(mux, (mux.focused + 1) % Math.max(1, mux.panes.length));
}

/** Focus the previous pane. */
export function focusPrev(mux: Multiplexer): void {
  focus(mux, (mux.focused - 1 + mux.panes.length) % Math.max(1, mux.panes.length));
}

/** Zoom the focused pane to the whole pane area, or back. */
export function zoom(mux: Multiplexer): void {
  mux.zoomed = mux.zoomed === null ? mux.focused : null;
  mux.relayout();
}

/** Enter scrollback mode in the focused pane. */
export function scrollback(mux: Multiplexer): void {
  const pane = mux.panes[mux.focused];
  if (!pane) return;
  pane.scrollMode = true;
  pane.markDirty();
  mux.say('scrollback: ↑/↓ PgUp/PgDn g/G, q to leave');
}

/** Shutdown handshake with the focused teammate. */
export async function shutdownFocused(mux: Multiplexer): Promise<void> {
  const pane = mux.panes[mux.focused];
  if (!pane) return;
  if (pane.isLead) return mux.say('the lead stops with quit; shutdown is for teammates');
  await shutdownPanes(mux, [pane]);
}

/** Shutdown handshake with every running teammate. */
export async function shutdownAll(mux: Multiplexer): Promise<void> {
  await shutdownPanes(mux, mux.panes.filter((p) => !p.isLead && !p.exited()));
}

/** Start the focused pane's command again after it exited. */
export async function restart(mux: Multiplexer): Promise<void> {
  const pane = mux.panes[mux.focused];
  if (!pane) return;
  if (!pane.exited()) return mux.say(`${pane.name} is still running; restart is for exited panes`);
  pane.term.write('\r\n\x1b[0m[teamux: restarting]\r\n');
  await mux.startPane(pane);
  mux.say(`restarted ${pane.name}`);
}

/** Open the help overlay. */
export function help(mux: Multiplexer): void {
  mux.helpOpen = true;
  mux.invalidate();
}

/** Let go of the terminal; under tmux the members keep running. */
export async function detach(mux: Multiplexer): Promise<void> {
  if (mux.opts.host.kind !== 'tmux') return mux.say('detach needs the tmux backend (backend: tmux in the layout, or --backend tmux)');
  mux.opts.store.log.info('detached; members keep running');
  mux.farewell = `[detached from ${mux.opts.team}; members keep running: teamux attach ${mux.opts.team} to come back]`;
  await mux.finish(0, false);
}

/** Open the selected request (else the oldest pending one) in the reader. */
export function readRequest(mux: Multiplexer): void {
  const pending = pendingRequests(mux.snapshot);
  const req = pending.find((r) => r.id === mux.selectedRequest) ?? pending[0] ?? mux.snapshot.requests[mux.snapshot.requests.length - 1];
  if (!req) return mux.say('no request to read');
  mux.reader = { id: req.id, top: 0 };
  mux.invalidate();
}

/** Show or hide the sidebar, whatever the layout and the terminal width say. */
export function toggleSidebar(mux: Multiplexer): void {
  mux.sidebarShown = mux.geometry.sidebar === null;
  mux.relayout();
  if (mux.sidebarShown && mux.geometry.sidebar === null) mux.say('the terminal is too narrow for the sidebar');
  else mux.say(mux.sidebarShown ? 'sidebar shown' : `sidebar hidden (${mux.opts.keys.prefix} t shows it)`);
}

/** Send the prefix key itself to the focused pane. */
export function sendPrefix(mux: Multiplexer): void {
  mux.panes[mux.focused]?.write(mux.opts.keys.prefixBytes);
}

/** Focus the pane numbered `n` (numbers stay with their panes when others close). */
export function focusNumber(mux: Multiplexer, n: number): void {
  const index = mux.panes.findIndex((p) => mux.numbers.get(p) === n);
  if (index < 0) return mux.say(`there is no pane ${n}`);
  focus(mux, index);
}

/** Focus the pane at `index` in the layout order. */
export function focus(mux: Multiplexer, index: number): void {
  if (index < 0 || index >= mux.panes.length) return;
  if (index === mux.focused) return;
  mux.panes[mux.focused]?.reportFocus(false);
  mux.focused = index;
  mux.panes[index]!.reportFocus(true);
  if (mux.zoomed !== null) {
    mux.zoomed = index;
    mux.relayout();
  }
  mux.invalidate();
}

/** Select the next (step 1) or previous (-1) pending request. */
export function selectRequest(mux: Multiplexer, step: number): void {
  const pending = pendingRequests(mux.snapshot);
  if (pending.length === 0) return mux.say('no pending requests');
  const at = pending.findIndex((r) => r.id === mux.selectedRequest);
  const next = pending[(at + step + pending.length) % pending.length]!;
  mux.selectedRequest = next.id;
  mux.invalidate();
}

/** The selected plan or permission request (the ones the operator answers), or the oldest pending one. */
function selectedAnswerable(mux: Multiplexer) {
  const pending = pendingRequests(mux.snapshot).filter((r) => r.type === 'plan_approval' || r.type === 'permission');
  return pending.find((r) => r.id === mux.selectedRequest) ?? pending[0];
}

/** "alice's plan", "alice's Bash". */
function what(req: { type: string; from: string; payload?: Record<string, unknown> | undefined }): string {
  return req.type === 'permission' ? `${req.from}'s ${String(req.payload?.['tool'] ?? 'tool')}` : `${req.from}'s plan`;
}

/** Approve (allow) the selected plan or permission request; a plan decision is signed by the screen's store. */
export async function approve(mux: Multiplexer): Promise<void> {
  const req = selectedAnswerable(mux);
  if (!req) return mux.say('no pending plan or permission request to approve');
  const r = await mux.opts.store.answerRequest(req.id, req.to, true, 'approved by the operator');
  mux.say(r.ok ? `${req.type === 'permission' ? 'allowed' : 'approved'} ${what(req)}` : `could not approve: ${r.message}`);
}

/** Ask for feedback, then reject (deny) the selected plan or permission request. */
export function reject(mux: Multiplexer): void {
  const req = selectedAnswerable(mux);
  if (!req) return mux.say('no pending plan or permission request to reject');
  mux.prompt = openPrompt(`${req.type === 'permission' ? 'deny' : 'reject'} ${what(req)} — feedback:`);
  mux.promptSubmit = (text) => {
    if (!text.trim()) return mux.say('a rejection needs feedback; nothing was sent');
    return mux.opts.store.answerRequest(req.id, req.to, false, text.trim()).then((r) => mux.say(r.ok ? `${req.type === 'permission' ? 'denied' : 'rejected'} ${what(req)}` : `could not reject: ${r.message}`));
  };
  mux.invalidate();
}

/** Ask for text, then broadcast it to every inbox. */
export function broadcast(mux: Multiplexer): void {
  mux.prompt = openPrompt('broadcast:');
  mux.promptSubmit = (text) => {
    if (!text.trim()) return mux.say('empty broadcast; nothing was sent');
    return deliverBroadcast(mux, text.trim());
  };
  mux.invalidate();
}

/** The operator's broadcast reaches every member's inbox, the lead's included, from `human`; it is never typed into panes. */
async function deliverBroadcast(mux: Multiplexer, text: string): Promise<void> {
  const r = await mux.opts.store.broadcast(OPERATOR, text);
  mux.say(r.ok ? `broadcast delivered to ${r.value.length} inbox${r.value.length === 1 ? '' : 'es'}` : `broadcast failed: ${r.message}`);
}

/** Shut panes down by handshake, in parallel; each step shows in the pane title and the sidebar. */
export async function shutdownPanes(mux: Multiplexer, panes: Pane[]): Promise<boolean> {
  if (panes.length === 0) {
    mux.say('no teammate to shut down');
    return true;
  }
  const results = await Promise.all(panes.map(async (pane) => {
    const step = (text: string): void => {
      pane.note = text;
      mux.notices.set(pane.name, text);
      pane.markDirty();
      mux.invalidate();
      mux.opts.store.log.info(`shutdown ${pane.name}: ${text}`);
    };
    const outcome = await shutdownHandshake(mux.opts.store, OPERATOR, pane, mux.opts.shutdownTimeoutMs, step);
    mux.notices.delete(pane.name);
    if (outcome.kind === 'refused') {
      pane.note = `refused: ${outcome.reason}`;
      mux.say(`${pane.name} refused to shut down: ${outcome.reason}`);
      pane.markDirty();
      return false;
    }
    if (mux.quitting === 'no') mux.closePane(pane);
    else pane.note = null;
    mux.invalidate();
    return true;
  }));
  if (mux.quitting === 'no') mux.say(results.every(Boolean) ? `shut down ${panes.map((p) => p.name).join(', ')}` : 'some teammates refused to shut down');
  return results.every(Boolean);
}

/** First press: handshake with everyone, then exit. Second press: force. */
export async function quit(mux: Multiplexer): Promise<void> {
  if (mux.quitting !== 'no') {
    mux.quitting = 'forced';
    mux.say('forcing quit: SIGTERM, then SIGKILL');
    await Promise.all(mux.panes.map((p) => terminate(p, (t) => { p.note = t; p.markDirty(); }, 1_500)));
    await mux.finish(0, true);
    return;
  }
  mux.quitting = 'graceful';
  mux.say(`quitting: shutdown handshake with everyone (press ${mux.opts.keys.prefix} q again to force)`);
  const teammates = mux.panes.filter((p) => !p.isLead && !p.exited());
  const ok = await shutdownPanes(mux, teammates);
  if (mux.quitting !== 'graceful') return;
  if (!ok) {
    mux.say(`a teammate refused; press ${mux.opts.keys.prefix} q again to force the quit`);
    return;
  }
  const leads = mux.panes.filter((p) => p.isLead && !p.exited());
  await shutdownPanes(mux, leads);
  if (mux.quitting === 'graceful') await mux.finish(0, true);
}
