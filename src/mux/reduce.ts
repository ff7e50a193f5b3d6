/**
 * The multiplexer as a reducer: `reduce(state, event) → [state, effects]`. Pure: the same state and
 * event always give the same answer, and nothing here touches a process, a file, the terminal or a
 * timer; the runner (src/app/multiplexer.ts) executes the effects and turns what happens to them
 * into further events. Keys go through input.ts and the action table (actions.ts); this file handles
 * the rest: team changes, pane life, resizes, handshake progress, timers. Owns no data.
 */
import type { SidebarData } from './sidebar-data.js';
import { pendingRequests } from './sidebar-data.js';
import { runAction } from './actions.js';
import type { Effect, MuxEvent } from './events.js';
import { inputStep } from './input.js';
import { paneIndex, type MemberLaunch, type MuxState, type PaneState } from './state.js';
import { finish, focus, patchPane, removePane, same, say, shutdownDone, type Step } from './transitions.js';

/** The next state and the effects for one event. */
export function reduce(s: MuxState, e: MuxEvent): Step {
  // Once finishing, only exits are still recorded (the members being stopped).
  if (s.finished && e.kind !== 'pane-exit') return same(s);
  switch (e.kind) {
    case 'input':
      return inputStep(s, e.token, e.terms, e.readerRows ?? 0);
    case 'action':
      return runAction(s, e.action);
    case 'team':
      return teamChanged(s, e.snapshot);
    case 'resize':
      if (e.cols === s.cols && e.rows === s.rows) return same(s);
      return [{ ...s, cols: e.cols, rows: e.rows }, [{ kind: 'relayout' }]];
    case 'open-pane': {
      if (paneIndex(s, e.launch.name) >= 0) return say(s, `cannot open ${e.launch.name}: a pane of that name is open`);
      const pane: PaneState = { id: e.launch.name, number: s.nextNumber, role: e.launch.role, isLead: e.launch.isLead, life: 'starting', exitText: '', scrollMode: false, note: null, title: null };
      return [{ ...s, panes: [...s.panes, pane], nextNumber: s.nextNumber + 1 }, [{ kind: 'relayout' }, { kind: 'spawn', pane: pane.id, launch: e.launch }]];
    }
    case 'close-pane': {
      const [next, fx] = removePane(s, e.pane);
      const p = s.panes.find((x) => x.id === e.pane);
      return e.signal && p && p.life !== 'exited' ? [next, [{ kind: 'signal', pane: e.pane, signal: e.signal }, ...fx]] : [next, fx];
    }
    case 'replace-pane':
      return replacePane(s, e.pane, e.launch);
    case 'focus-pane': {
      const i = paneIndex(s, e.pane);
      return i < 0 ? same(s) : focus(s, i);
    }
    case 'set-pane-title':
      return [patchPane(s, e.pane, { title: e.title }), [{ kind: 'chrome' }]];
    case 'pane-started':
      return [patchPane(s, e.pane, e.error === null ? { life: 'running', note: null } : { note: `failed to start: ${e.error}` }), [{ kind: 'chrome' }]];
    case 'pane-exit':
      return paneExited(s, e.pane, e.exitText, e.code);
    case 'pane-note':
      return [patchPane(s, e.pane, { note: e.text }), [{ kind: 'pane-dirty', pane: e.pane }]];
    case 'scrolled':
      return [patchPane(s, e.pane, { scrollMode: e.scrolledBack }), [{ kind: 'pane-dirty', pane: e.pane }]];
    case 'shutdown-step': {
      const notices = new Map(s.notices).set(e.pane, e.text);
      return [{ ...patchPane(s, e.pane, { note: e.text }), notices }, [{ kind: 'log', text: `shutdown ${e.pane}: ${e.text}` }, { kind: 'pane-dirty', pane: e.pane }, { kind: 'repaint' }]];
    }
    case 'shutdown-done':
      return handshakeEnded(s, e.pane, e.refused);
    case 'terminated':
      return finish(s, 0, true);
    case 'say':
      return say(s, e.text);
    case 'show-panel':
      return [{ ...s, panel: { title: e.title, lines: e.lines, qr: e.qr }, help: false }, [{ kind: 'repaint' }]];
    case 'answered': {
      const requests = s.snapshot.requests.map((r) => (r.id === e.request && r.status === 'pending' ? { ...r, status: e.approve ? 'approved' as const : 'rejected' as const } : r));
      const [next, fx] = teamChanged(s, { ...s.snapshot, requests });
      const [said, sayFx] = say(next, e.text);
      return [said, [...fx, ...sayFx]];
    }
    case 'status-expired':
      return s.message?.serial === e.serial ? same({ ...s, message: null }) : same(s);
    case 'hangup':
      // Closing the terminal: under tmux the members keep running (that is the point of the backend);
      // with node-pty they are ours and go with us.
      return finish(s, 0, s.cfg.hostKind !== 'tmux');
  }
}

/**
 * A pane's slot gets a new launch (tmux respawn-pane: Claude Code's placeholder pane becomes the
 * teammate): same position, number and focus; the old pane is released (its process, if still
 * running, sent SIGKILL) and the new one spawned under the launch's name.
 */
function replacePane(s: MuxState, id: string, launch: MemberLaunch): Step {
  const i = paneIndex(s, id);
  if (i < 0) return say(s, `cannot replace ${id}: no such pane`);
  if (launch.name !== id && paneIndex(s, launch.name) >= 0) return say(s, `cannot open ${launch.name}: a pane of that name is open`);
  const old = s.panes[i]!;
  const pane: PaneState = { id: launch.name, number: old.number, role: launch.role, isLead: launch.isLead, life: 'starting', exitText: '', scrollMode: false, note: null, title: null };
  const panes = s.panes.slice();
  panes[i] = pane;
  const fx: Effect[] = old.life !== 'exited' ? [{ kind: 'signal', pane: id, signal: 'SIGKILL' }] : [];
  fx.push({ kind: 'dispose', pane: id }, { kind: 'relayout' }, { kind: 'spawn', pane: pane.id, launch });
  return [{ ...s, panes }, fx];
}

/** The team folder changed: keep the selection on a pending request, close a reader whose request went. */
function teamChanged(s: MuxState, snapshot: SidebarData): Step {
  const pending = pendingRequests(snapshot);
  const selectedRequest = pending.some((r) => r.id === s.selectedRequest) ? s.selectedRequest : pending.find((r) => r.type === 'plan_approval' || r.type === 'permission')?.id ?? pending[0]?.id ?? null;
  const reader = s.reader && snapshot.requests.some((r) => r.id === s.reader!.id) ? s.reader : null;
  const fx: Effect[] = [{ kind: 'attention' }, { kind: 'chrome' }];
  if (reader !== s.reader) fx.push({ kind: 'repaint' });
  return [{ ...s, snapshot, selectedRequest, reader }, fx];
}

/** A pane's process exited: record it; when quitting and every process is gone, finish. */
function paneExited(s: MuxState, id: string, exitText: string, code: number | null): Step {
  const next = patchPane(s, id, { life: 'exited', exitText });
  const fx: Effect[] = [{ kind: 'member-exited', pane: id, code, exitText }, { kind: 'chrome' }];
  if (next.quitting !== 'no' && next.panes.every((p) => p.life === 'exited')) {
    const [done, more] = finish(next, 0, true);
    return [done, [...fx, ...more]];
  }
  return [next, fx];
}

/** One handshake ended: a refusal is said; a closed pane leaves the screen unless a quit is under way. */
function handshakeEnded(s: MuxState, id: string, refused: string | null): Step {
  const notices = new Map(s.notices);
  notices.delete(id);
  let next: MuxState = { ...s, notices };
  const fx: Effect[] = [];
  if (refused !== null) {
    next = patchPane(next, id, { note: `refused: ${refused}` });
    const [said, more] = say(next, `${id} refused to shut down: ${refused}`);
    next = said;
    fx.push(...more, { kind: 'pane-dirty', pane: id });
  } else {
    // The pane stays with its exit status, as after `exit` typed in it: C-a R starts it again.
    next = patchPane(next, id, { note: null });
  }
  fx.push({ kind: 'repaint' });
  const [after, more] = shutdownDone(next, id, refused !== null);
  return [after, [...fx, ...more]];
}
