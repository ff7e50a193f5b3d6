/**
 * What each bound key does. Like tmux's cmd-*.c entries, every action reports through the status
 * line and never throws at the user: protocol work goes through the TeamStore (approve, reject,
 * broadcast) or the shutdown handshake, and pane work through the Multiplexer.
 */
import type { KeyAction } from '../config/keys-actions.js';
import { pendingRequests } from '../ui/sidebar.js';
import type { Multiplexer } from './multiplexer.js';
import type { Pane } from './pane.js';
import { openPrompt } from './prompt.js';
import { shutdownHandshake, terminate } from './shutdown.js';

/** Run one action. */
export async function runAction(mux: Multiplexer, action: KeyAction): Promise<void> {
  const pane = mux.panes[mux.focused];
  const focusNumber = /^focus_(\d)$/.exec(action);
  if (focusNumber) return focus(mux, Number(focusNumber[1]) - 1);
  switch (action) {
    case 'focus_next': return focus(mux, (mux.focused + 1) % Math.max(1, mux.panes.length));
    case 'focus_prev': return focus(mux, (mux.focused - 1 + mux.panes.length) % Math.max(1, mux.panes.length));
    case 'zoom':
      mux.zoomed = mux.zoomed === null ? mux.focused : null;
      mux.relayout();
      return;
    case 'scrollback':
      if (pane) {
        pane.scrollMode = true;
        pane.markDirty();
        mux.say('scrollback: ↑/↓ PgUp/PgDn g/G, q to leave');
      }
      return;
    case 'next_request':
    case 'prev_request': return selectRequest(mux, action === 'next_request' ? 1 : -1);
    case 'approve': return approve(mux);
    case 'reject': return reject(mux);
    case 'broadcast': return broadcast(mux);
    case 'shutdown':
      if (!pane) return;
      if (pane.isLead) return mux.say('the lead stops with quit; shutdown is for teammates');
      await shutdownPanes(mux, [pane]);
      return;
    case 'shutdown_all':
      await shutdownPanes(mux, mux.panes.filter((p) => !p.isLead && !p.exited()));
      return;
    case 'restart':
      if (!pane) return;
      if (!pane.exited()) return mux.say(`${pane.name} is still running; restart is for exited panes`);
      pane.term.write('\r\n\x1b[0m[teamux: restarting]\r\n');
      await mux.startPane(pane);
      mux.say(`restarted ${pane.name}`);
      return;
    case 'help':
      mux.helpOpen = true;
      mux.invalidate();
      return;
    case 'quit': return quit(mux);
    case 'detach':
      if (mux.opts.host.kind !== 'tmux') return mux.say('detach needs the tmux backend (backend: tmux in the layout, or --backend tmux)');
      mux.say('detached; members keep running (teamux attach to come back)');
      await mux.finish(0, false);
      return;
    case 'send_prefix':
      pane?.write(mux.opts.keys.prefixBytes);
      return;
  }
}

function focus(mux: Multiplexer, index: number): void {
  if (index < 0 || index >= mux.panes.length) return mux.say(`there is no pane ${index + 1}`);
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

function selectRequest(mux: Multiplexer, step: number): void {
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

async function approve(mux: Multiplexer): Promise<void> {
  const req = selectedAnswerable(mux);
  if (!req) return mux.say('no pending plan or permission request to approve');
  const r = await mux.opts.store.answerRequest(req.id, req.to, true, 'approved by the operator');
  mux.say(r.ok ? `${req.type === 'permission' ? 'allowed' : 'approved'} ${what(req)}` : `could not approve: ${r.message}`);
}

function reject(mux: Multiplexer): void {
  const req = selectedAnswerable(mux);
  if (!req) return mux.say('no pending plan or permission request to reject');
  mux.prompt = openPrompt(`${req.type === 'permission' ? 'deny' : 'reject'} ${what(req)} — feedback:`);
  mux.promptSubmit = (text) => {
    if (!text.trim()) return mux.say('a rejection needs feedback; nothing was sent');
    void mux.opts.store.answerRequest(req.id, req.to, false, text.trim()).then((r) => mux.say(r.ok ? `${req.type === 'permission' ? 'denied' : 'rejected'} ${what(req)}` : `could not reject: ${r.message}`));
  };
  mux.invalidate();
}

function broadcast(mux: Multiplexer): void {
  mux.prompt = openPrompt('broadcast:');
  mux.promptSubmit = (text) => {
    if (!text.trim()) return mux.say('empty broadcast; nothing was sent');
    void deliverBroadcast(mux, text.trim());
  };
  mux.invalidate();
}

/** The operator's broadcast reaches every inbox, the lead's included; it is never typed into panes. */
async function deliverBroadcast(mux: Multiplexer, text: string): Promise<void> {
  const store = mux.opts.store;
  const lead = mux.opts.lead;
  const r = await store.broadcast(lead, text);
  const self = await store.send({ from: lead, to: lead, type: 'broadcast', text, payload: { origin: 'operator' } });
  const n = (r.ok ? r.value.length : 0) + (self.ok ? 1 : 0);
  mux.say(r.ok ? `broadcast delivered to ${n} inboxes` : `broadcast failed: ${r.message}`);
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
    const outcome = await shutdownHandshake(mux.opts.store, mux.opts.lead, pane, mux.opts.shutdownTimeoutMs, step);
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
async function quit(mux: Multiplexer): Promise<void> {
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
