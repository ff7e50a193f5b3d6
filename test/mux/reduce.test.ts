// The multiplexer's reducer on its own: every key action and every rule as state in, event in, state
// and effects out. No terminal, no processes, no timers: each case runs in well under a millisecond.
import { describe, expect, it } from 'vitest';
import { KEY_ACTIONS } from '../../src/config/keys-actions.js';
import { buildKeyTable } from '../../src/keys/keymap.js';
import { defaultBindings, runAction } from '../../src/mux/actions.js';
import type { Effect, MuxEvent, TermFacts } from '../../src/mux/events.js';
import { reduce } from '../../src/mux/reduce.js';
import { quittingNote } from '../../src/mux/transitions.js';
import { badge, initialState, layoutOf, readerSize, type MemberLaunch, type MuxConfig, type MuxState } from '../../src/mux/state.js';
import { readerTextRows } from '../../src/ui/reader.js';
import type { ProtocolRequest } from '../../src/protocol/types.js';
import type { SidebarData } from '../../src/mux/sidebar-data.js';

const keys = (() => {
  const t = buildKeyTable('C-a', {}, defaultBindings());
  if (!t.ok) throw new Error(t.message);
  return t.table;
})();

function config(over: Partial<MuxConfig> = {}): MuxConfig {
  return {
    team: 'crew', keys, layout: 'main-vertical', mainSize: { percent: 50 }, hostKind: 'pty', demo: false, messageMs: 6_000,
    sidebar: { position: 'right', width: { cells: 30 }, minWidth: 20, maxWidth: 40, hideBelow: 0, hidden: false, sections: ['requests'] },
    ...over,
  };
}

function snapshot(requests: ProtocolRequest[] = []): SidebarData {
  return { team: 'crew', roster: [], tasks: [], traffic: [], requests, problems: [] };
}

function request(id: string, over: Partial<ProtocolRequest> = {}): ProtocolRequest {
  return { version: 1, id, type: 'plan_approval', run: null, from: 'alice', to: 'human', status: 'pending', body: 'my plan', createdAt: `2026-01-01T00:00:0${id.length % 10}Z`, resolvedAt: null, ...over } as ProtocolRequest;
}

function launch(name: string, isLead = false): MemberLaunch {
  return { name, role: isLead ? 'lead' : 'dev', isLead, speaksProtocol: true, command: 'x', args: [], cwd: '/', env: {} };
}

/** Run events in order; the final state and every effect, in order. Input comes with the open reader's text rows, as the screen gives it. */
function run(s: MuxState, ...events: MuxEvent[]): { s: MuxState; fx: Effect[] } {
  const fx: Effect[] = [];
  for (const e of events) {
    const req = s.reader ? s.snapshot.requests.find((r) => r.id === s.reader!.id) : undefined;
    const [next, more] = reduce(s, e.kind === 'input' && req ? { ...e, readerRows: readerTextRows(req, readerSize(s).width) } : e);
    s = next;
    fx.push(...more);
  }
  return { s, fx };
}

const facts: TermFacts = { rows: 20, applicationCursorKeys: false, bracketedPaste: false, mouse: false };
const terms = (over: Partial<TermFacts> = {}): Record<string, TermFacts> => ({ lead: { ...facts, ...over }, alice: { ...facts, ...over }, bob: { ...facts, ...over } });
const key = (raw: string, name: string | null = raw): MuxEvent => ({ kind: 'input', token: { kind: 'key', raw, name }, terms: terms() });
const prefix = (k: string, name: string | null = k): MuxEvent[] => [key('\x01', 'C-a'), key(k, name)];
const kinds = (fx: Effect[]): string[] => fx.map((f) => f.kind);

/** A 120x36 screen with running panes lead, alice, bob (lead focused). */
function team(over: Partial<MuxConfig> = {}, names = ['alice', 'bob']): MuxState {
  const members = [launch('lead', true), ...names.map((n) => launch(n))];
  return run(
    initialState(config(over), snapshot(), 120, 36),
    ...members.map((m): MuxEvent => ({ kind: 'open-pane', launch: m })),
    ...members.map((m): MuxEvent => ({ kind: 'pane-started', pane: m.name, error: null })),
  ).s;
}

describe('focus, zoom, scrollback', () => {
  it('reduce.focus-next-prev-and-by-number-with-focus-reports', () => {
    let { s, fx } = run(team(), ...prefix('n'));
    expect(s.focused).toBe(1);
    expect(fx).toContainEqual({ kind: 'report-focus', pane: 'lead', focused: false });
    expect(fx).toContainEqual({ kind: 'report-focus', pane: 'alice', focused: true });
    ({ s } = run(s, ...prefix('o'), ...prefix('n')));
    expect(s.focused).toBe(0);
    ({ s } = run(s, ...prefix('p')));
    expect(s.focused).toBe(2);
    ({ s } = run(s, ...prefix('2')));
    expect(s.panes[s.focused]!.id).toBe('alice');
    ({ s } = run(s, ...prefix('7')));
    expect(s.message?.text).toBe('there is no pane 7');
    expect(s.panes[s.focused]!.id).toBe('alice');
  });

  it('reduce.zoom-toggles-and-follows-focus', () => {
    let { s, fx } = run(team(), ...prefix('z'));
    expect(s.zoomed).toBe(0);
    expect(kinds(fx)).toContain('relayout');
    expect(layoutOf(s).panes.filter((r) => r.width > 0)).toHaveLength(1);
    ({ s } = run(s, ...prefix('n')));
    expect(s.zoomed).toBe(1);
    ({ s } = run(s, ...prefix('z')));
    expect(s.zoomed).toBeNull();
    expect(layoutOf(s).panes.filter((r) => r.width > 0)).toHaveLength(3);
  });

  it('reduce.scrollback-keys-scroll-and-q-leaves-without-typing', () => {
    let { s, fx } = run(team(), ...prefix('['));
    expect(s.panes[0]!.scrollMode).toBe(true);
    expect(s.message?.text).toBe('scrollback: ↑/↓ PgUp/PgDn g/G, q to leave');
    ({ s, fx } = run(s, key('\x1b[A', 'up'), key('\x1b[6~', 'pagedown'), key('g'), key('G')));
    expect(fx.filter((f) => f.kind === 'scroll')).toEqual([
      { kind: 'scroll', pane: 'lead', by: -1 }, { kind: 'scroll', pane: 'lead', by: 19 }, { kind: 'scroll', pane: 'lead', by: 'top' }, { kind: 'scroll', pane: 'lead', by: 'bottom' },
    ]);
    ({ s, fx } = run(s, key('q')));
    expect(s.panes[0]!.scrollMode).toBe(false);
    expect(kinds(fx)).not.toContain('type');
    ({ fx } = run(s, key('q')));
    expect(fx).toEqual([{ kind: 'type', pane: 'lead', raw: 'q' }]);
  });
});

describe('typing, pasting, the mouse', () => {
  it('reduce.keys-go-to-the-focused-pane-and-an-exited-pane-gives-a-hint', () => {
    const before = team();
    let { s, fx } = run(before, key('l'), key('\x1b[A', 'up'));
    expect(fx).toEqual([{ kind: 'type', pane: 'lead', raw: 'l' }, { kind: 'type', pane: 'lead', raw: '\x1b[A' }]);
    // Typing changes no screen state, so the runner draws no frame until the echo comes back.
    expect(s).toBe(before);
    ({ s, fx } = run(s, { kind: 'pane-exit', pane: 'lead', exitText: 'exited 1', code: 1 }, key('x')));
    expect(kinds(fx)).not.toContain('type');
    expect(fx).toContainEqual({ kind: 'member-exited', pane: 'lead', code: 1, exitText: 'exited 1' });
    expect(s.message?.text).toBe('lead: exited 1; keys go nowhere (C-a R restarts it)');
  });

  it('reduce.prefix-twice-sends-the-prefix-and-unbound-keys-are-said', () => {
    let { s, fx } = run(team(), ...prefix('\x01', 'C-a'));
    expect(fx).toEqual([{ kind: 'write', pane: 'lead', data: '\x01' }]);
    ({ s } = run(s, key('\x01', 'C-a')));
    expect(s.mode).toBe('prefix');
    ({ s } = run(s, key('Y')));
    expect(s.mode).toBe('attach');
    expect(s.message?.text).toBe('C-a Y is not bound (C-a ? lists the keys)');
  });

  it('reduce.paste-leaves-scroll-mode-and-goes-to-the-pane', () => {
    const { s, fx } = run(team(), ...prefix('['), { kind: 'input', token: { kind: 'paste', text: 'hi\nthere' }, terms: terms() });
    expect(s.panes[0]!.scrollMode).toBe(false);
    expect(fx).toContainEqual({ kind: 'paste', pane: 'lead', text: 'hi\nthere' });
  });

  it('reduce.click-focuses-wheel-scrolls-or-reaches-a-mouse-app', () => {
    const s0 = team();
    const alice = layoutOf(s0).panes[1]!;
    const at = { x: alice.left + 2, y: alice.top + 3 };
    const click = (over: Partial<TermFacts> = {}, code = 0): MuxEvent => ({ kind: 'input', token: { kind: 'mouse', raw: '', code, ...at, release: false }, terms: terms(over) });
    let { s, fx } = run(s0, click());
    expect(s.focused).toBe(1);
    expect(fx).toContainEqual({ kind: 'report-focus', pane: 'alice', focused: true });
    ({ s, fx } = run(s, click({}, 64)));
    expect(fx).toEqual([{ kind: 'scroll', pane: 'alice', by: -3, report: true }]);
    ({ s } = run(s, { kind: 'scrolled', pane: 'alice', scrolledBack: true }));
    expect(s.panes[1]!.scrollMode).toBe(true);
    ({ fx } = run({ ...s, panes: s.panes.map((p) => ({ ...p, scrollMode: false })) }, click({ mouse: true }, 65)));
    expect(fx).toEqual([{ kind: 'report-mouse', pane: 'alice', report: { col: 2, row: 2, button: 'wheel', action: 'down', shift: false, alt: false, ctrl: false } }]);
  });
});

describe('overlays', () => {
  it('reduce.help-opens-and-any-key-closes-it-without-typing', () => {
    let { s } = run(team(), ...prefix('?'));
    expect(s.help).toBe(true);
    let fx: Effect[];
    ({ s, fx } = run(s, { kind: 'input', token: { kind: 'mouse', raw: '', code: 0, x: 1, y: 1, release: true }, terms: terms() }));
    expect(s.help).toBe(true);
    ({ s, fx } = run(s, key('x')));
    expect(s.help).toBe(false);
    expect(kinds(fx)).not.toContain('type');
  });

  it('reduce.sidebar-toggle-and-too-narrow', () => {
    let { s, fx } = run(team(), ...prefix('t'));
    expect(layoutOf(s).sidebar).toBeNull();
    expect(s.message?.text).toBe('sidebar hidden (C-a t shows it)');
    expect(kinds(fx)).toContain('relayout');
    ({ s } = run(s, ...prefix('t')));
    expect(layoutOf(s).sidebar).not.toBeNull();
    expect(s.message?.text).toBe('sidebar shown');
    ({ s } = run(team(), { kind: 'resize', cols: 28, rows: 20 }, ...prefix('t')));
    expect(s.message?.text).toBe('the terminal is too narrow for the sidebar');
  });

  it('reduce.sidebar-toggle-refuses-to-squeeze-panes-at-80x24', () => {
    // The demo's shape: three panes, a 46-column sidebar hidden below 90 columns; C-a t at 80x24.
    const sidebar = { ...config().sidebar, width: { cells: 46 }, hideBelow: 90 };
    let { s, fx } = run(team({ sidebar }), { kind: 'resize', cols: 80, rows: 24 });
    expect(layoutOf(s).sidebar).toBeNull();
    ({ s, fx } = run(s, ...prefix('t')));
    expect(layoutOf(s).sidebar).toBeNull();
    expect(kinds(fx)).not.toContain('relayout');
    expect(s.message?.text).toMatch(/^too narrow for the sidebar beside 3 panes \(the narrowest would be \d+ columns\); widen the terminal, or C-a z zooms one pane$/);
    // Zoomed, one pane has the room: the sidebar shows.
    ({ s } = run(s, ...prefix('z'), ...prefix('t')));
    expect(layoutOf(s).sidebar).not.toBeNull();
  });

  it('reduce.reader-opens-scrolls-within-the-text-and-closes', () => {
    const long = request('req-long', { body: Array.from({ length: 80 }, (_, i) => `line ${i}`).join('\n') });
    let { s } = run(team(), ...prefix('v'));
    expect(s.message?.text).toBe('no request to read');
    ({ s } = run(s, { kind: 'team', snapshot: snapshot([long]) }, ...prefix('v')));
    expect(s.reader).toEqual({ id: 'req-long', top: 0 });
    ({ s } = run(s, key('G')));
    const bottom = s.reader!.top;
    expect(bottom).toBeGreaterThan(40);
    ({ s } = run(s, key('j')));
    expect(s.reader!.top).toBe(bottom);
    let fx: Effect[];
    ({ s, fx } = run(s, key('g'), key(' ', 'space')));
    expect(s.reader!.top).toBe(32);
    expect(kinds(fx)).not.toContain('type');
    // The prefix still answers from the reader.
    ({ s, fx } = run(s, ...prefix('a')));
    expect(kinds(fx)).toContain('answer');
    ({ s } = run(s, { kind: 'team', snapshot: snapshot([]) }));
    expect(s.reader).toBeNull();
  });
});

describe('requests', () => {
  const plan = request('req-plan-1');
  const perm = request('req-perm-22', { type: 'permission', from: 'bob', payload: { tool: 'Bash', input: { command: 'ls' } } });

  it('reduce.selection-stays-on-a-pending-request-and-j-k-cycle', () => {
    let { s } = run(team(), { kind: 'team', snapshot: snapshot([plan, perm]) });
    expect(s.selectedRequest).toBe('req-plan-1');
    expect(badge(s)).toBe('⚑ 2 requests awaiting C-a a');
    ({ s } = run(s, ...prefix('j')));
    expect(s.selectedRequest).toBe('req-perm-22');
    ({ s } = run(s, ...prefix('k'), ...prefix('k')));
    expect(s.selectedRequest).toBe('req-perm-22');
    ({ s } = run(s, { kind: 'team', snapshot: snapshot([plan, { ...perm, status: 'approved' }]) }));
    expect(s.selectedRequest).toBe('req-plan-1');
    expect(badge(s)).toBe('⚑ 1 plan awaiting C-a a');
  });

  it('reduce.approve-answers-the-selected-request-as-the-operator', () => {
    let { s, fx } = run(team(), ...prefix('a'));
    expect(s.message?.text).toBe('no pending plan or permission request to approve');
    ({ s, fx } = run(s, { kind: 'team', snapshot: snapshot([plan, perm]) }, ...prefix('j'), ...prefix('a')));
    expect(fx.filter((f) => f.kind === 'answer')).toEqual([{ kind: 'answer', label: 'approve', request: 'req-perm-22', to: 'human', approve: true, text: 'approved by the operator', done: "allowed bob's Bash", failed: 'could not approve' }]);
  });

  it('reduce.an-answered-request-is-not-answered-again-before-the-team-is-read-again', () => {
    // C-a a right after a rejection was written, before the folder is read again: the answer goes to
    // the next pending request, not to the one just rejected.
    let { s, fx } = run(team(), { kind: 'team', snapshot: snapshot([plan, perm]) }, ...prefix('j'));
    expect(s.selectedRequest).toBe('req-perm-22');
    ({ s, fx } = run(s, { kind: 'answered', request: 'req-perm-22', approve: false, text: "denied bob's Bash" }));
    expect(s.message?.text).toBe("denied bob's Bash");
    expect(s.selectedRequest).toBe('req-plan-1');
    expect(badge(s)).toBe('⚑ 1 plan awaiting C-a a');
    expect(kinds(fx)).toContain('log');
    ({ s, fx } = run(s, ...prefix('a')));
    expect(fx.filter((f) => f.kind === 'answer').map((f) => (f as { request: string }).request)).toEqual(['req-plan-1']);
  });

  it('reduce.reject-asks-for-feedback-and-needs-some', () => {
    let { s, fx } = run(team(), { kind: 'team', snapshot: snapshot([plan]) }, ...prefix('r'));
    expect(s.prompt?.edit.label).toBe("reject alice's plan — feedback:");
    ({ s, fx } = run(s, key('\r', 'enter')));
    expect(s.prompt).toBeNull();
    expect(s.message?.text).toBe('a rejection needs feedback; nothing was sent');
    ({ s, fx } = run(s, ...prefix('r'), key('n'), key('o'), key('\r', 'enter')));
    expect(fx.filter((f) => f.kind === 'answer')).toEqual([{ kind: 'answer', label: "reject alice's plan", request: 'req-plan-1', to: 'human', approve: false, text: 'no', done: "rejected alice's plan", failed: 'could not reject' }]);
    ({ s, fx } = run(s, ...prefix('r'), key('\x1b', 'escape')));
    expect(s.message?.text).toBe('cancelled');
    expect(kinds(fx)).not.toContain('answer');
  });

  it('reduce.broadcast-prompt-sends-from-the-operator-never-into-panes', () => {
    let { s, fx } = run(team(), ...prefix('b'), key('h'), key('i'), key('\r', 'enter'));
    expect(fx.filter((f) => f.kind === 'broadcast')).toEqual([{ kind: 'broadcast', label: 'broadcast', text: 'hi' }]);
    expect(kinds(fx)).not.toContain('type');
    ({ s } = run(s, ...prefix('b'), key(' ', 'space'), key('\r', 'enter')));
    expect(s.message?.text).toBe('empty broadcast; nothing was sent');
  });
});

describe('shutdown and quit', () => {
  it('reduce.shutdown-focused-teammate-asks-first-then-keeps-the-exited-pane-for-restart', () => {
    let { s, fx } = run(team(), ...prefix('s'));
    expect(s.message?.text).toBe('the lead stops with quit; shutdown is for teammates');
    // C-a s asks, as tmux's kill-pane binding does; any key but y cancels.
    ({ s, fx } = run(s, ...prefix('n'), ...prefix('s')));
    expect(s.prompt?.edit.label).toBe('shut down alice? (y/n)');
    expect(kinds(fx)).not.toContain('shutdown');
    ({ s, fx } = run(s, key('n')));
    expect(s.prompt).toBeNull();
    expect(s.message?.text).toBe('cancelled');
    expect(kinds(fx)).not.toContain('shutdown');
    ({ s, fx } = run(s, ...prefix('s'), key('y')));
    expect(fx).toContainEqual({ kind: 'shutdown', panes: ['alice'] });
    ({ s } = run(s, { kind: 'shutdown-step', pane: 'alice', text: 'shutdown requested; waiting for shutdown_response' }));
    expect(s.notices.get('alice')).toMatch(/waiting/);
    expect(s.panes[1]!.note).toMatch(/waiting/);
    ({ s, fx } = run(s, { kind: 'pane-exit', pane: 'alice', exitText: 'exited 0', code: 0 }, { kind: 'shutdown-done', pane: 'alice', refused: null }));
    // The pane stays, exited, with its output: C-a R brings it back.
    expect(s.panes.map((p) => p.id)).toEqual(['lead', 'alice', 'bob']);
    expect(s.panes[1]!.life).toBe('exited');
    expect(kinds(fx)).not.toContain('dispose');
    expect(s.notices.size).toBe(0);
    expect(s.message?.text).toBe('shut down alice');
    ({ s, fx } = run(s, ...prefix('R')));
    expect(fx).toContainEqual({ kind: 'restart', pane: 'alice' });
  });

  it('reduce.shutdown-all-asks-then-reports-a-refusal', () => {
    let { s, fx } = run(team(), ...prefix('S'));
    expect(s.prompt?.edit.label).toBe('shut down alice, bob? (y/n)');
    ({ s, fx } = run(s, key('y')));
    expect(fx).toContainEqual({ kind: 'shutdown', panes: ['alice', 'bob'] });
    ({ s } = run(s, { kind: 'shutdown-done', pane: 'alice', refused: 'busy' }));
    expect(s.message?.text).toBe('alice refused to shut down: busy');
    expect(s.panes[1]!.note).toBe('refused: busy');
    ({ s } = run(s, { kind: 'shutdown-done', pane: 'bob', refused: null }));
    expect(s.message?.text).toBe('some teammates refused to shut down');
    expect(s.panes.map((p) => p.id)).toEqual(['lead', 'alice', 'bob']);
  });

  it('reduce.quit-with-no-teammates-keeps-its-hint-and-says-whom-it-waits-for', () => {
    let { s, fx } = run(team({}, []), ...prefix('q'));
    expect(fx).toContainEqual({ kind: 'shutdown', panes: ['lead'] });
    expect(s.message?.text).toBe('quitting: shutdown handshake with everyone (press C-a q again to force)');
    // Once that message has expired, the status line still says what the quit waits for.
    ({ s } = run(s, { kind: 'status-expired', serial: s.message!.serial }));
    expect(s.message).toBeNull();
    expect(quittingNote(s)).toBe('quitting: waiting for lead to shut down (press C-a q again to force)');
    expect(quittingNote(team())).toBeNull();
  });

  it('reduce.quit-shuts-down-teammates-then-leads-then-finishes', () => {
    let { s, fx } = run(team(), ...prefix('q'));
    expect(s.quitting).toBe('graceful');
    expect(fx).toContainEqual({ kind: 'shutdown', panes: ['alice', 'bob'] });
    ({ s, fx } = run(s, { kind: 'shutdown-done', pane: 'alice', refused: null }));
    expect(kinds(fx)).not.toContain('shutdown');
    // During a quit, closed panes stay on screen until the end.
    expect(s.panes).toHaveLength(3);
    ({ s, fx } = run(s, { kind: 'shutdown-done', pane: 'bob', refused: null }));
    expect(fx).toContainEqual({ kind: 'shutdown', panes: ['lead'] });
    ({ s, fx } = run(s, { kind: 'shutdown-done', pane: 'lead', refused: null }));
    expect(fx).toContainEqual({ kind: 'finish', code: 0, kill: true, farewell: null });
    expect(s.finished).toBe(true);
  });

  it('reduce.quit-stops-at-a-refusal-and-a-second-press-forces', () => {
    let { s, fx } = run(team(), ...prefix('q'), { kind: 'shutdown-done', pane: 'alice', refused: 'busy' }, { kind: 'shutdown-done', pane: 'bob', refused: null });
    expect(s.message?.text).toBe('a teammate refused; press C-a q again to force the quit');
    expect(kinds(fx)).not.toContain('finish');
    ({ s, fx } = run(s, ...prefix('q')));
    expect(s.quitting).toBe('forced');
    expect(kinds(fx)).toContain('terminate-all');
    ({ fx } = run(s, { kind: 'terminated' }));
    expect(fx).toEqual([{ kind: 'finish', code: 0, kill: true, farewell: null }]);
  });

  it('reduce.quitting-finishes-once-every-process-is-gone', () => {
    let { s, fx } = run(team(), ...prefix('q'));
    for (const pane of ['alice', 'bob']) ({ s, fx } = run(s, { kind: 'pane-exit', pane, exitText: 'exited 0', code: 0 }));
    expect(kinds(fx)).not.toContain('finish');
    ({ s, fx } = run(s, { kind: 'pane-exit', pane: 'lead', exitText: 'exited 0', code: 0 }));
    expect(fx).toContainEqual({ kind: 'finish', code: 0, kill: true, farewell: null });
    // Later events change nothing but still record exits.
    expect(run(s, ...prefix('n')).s).toBe(s);
  });

  it('reduce.hangup-keeps-tmux-members-and-ends-pty-members', () => {
    expect(run(team(), { kind: 'hangup' }).fx).toEqual([{ kind: 'finish', code: 0, kill: true, farewell: null }]);
    expect(run(team({ hostKind: 'tmux' }), { kind: 'hangup' }).fx).toEqual([{ kind: 'finish', code: 0, kill: false, farewell: null }]);
  });

  it('reduce.detach-needs-tmux', () => {
    expect(run(team(), ...prefix('d')).s.message?.text).toMatch(/^detach needs the tmux backend/);
    const { fx } = run(team({ hostKind: 'tmux' }), ...prefix('d'));
    expect(fx).toContainEqual({ kind: 'finish', code: 0, kill: false, farewell: '[detached from crew; members keep running: teamux attach crew to come back]' });
  });

  it('reduce.restart-only-an-exited-pane', () => {
    let { s, fx } = run(team(), ...prefix('R'));
    expect(s.message?.text).toBe('lead is still running; restart is for exited panes');
    ({ s, fx } = run(s, { kind: 'pane-exit', pane: 'lead', exitText: 'exited 2', code: 2 }, ...prefix('R')));
    expect(fx).toContainEqual({ kind: 'restart', pane: 'lead' });
    expect(s.panes[0]!.life).toBe('starting');
    ({ s } = run(s, { kind: 'pane-started', pane: 'lead', error: null }));
    expect(s.panes[0]!.life).toBe('running');
  });
});

describe('panes opened, closed and titled at run time', () => {
  it('reduce.open-close-and-title-keep-numbers-stable', () => {
    let { s, fx } = run(team(), { kind: 'open-pane', launch: launch('carol') });
    expect(fx).toEqual([{ kind: 'relayout' }, { kind: 'spawn', pane: 'carol', launch: launch('carol') }]);
    ({ s, fx } = run(s, { kind: 'close-pane', pane: 'alice', signal: 'SIGHUP' }));
    expect(fx).toEqual([{ kind: 'signal', pane: 'alice', signal: 'SIGHUP' }, { kind: 'dispose', pane: 'alice' }, { kind: 'relayout' }]);
    ({ s } = run(s, { kind: 'open-pane', launch: launch('dave') }, { kind: 'set-pane-title', pane: 'dave', title: 'vim main.ts' }));
    expect(s.panes.map((p) => `${p.number} ${p.id}`)).toEqual(['1 lead', '3 bob', '4 carol', '5 dave']);
    expect(s.panes[3]!.title).toBe('vim main.ts');
    ({ s } = run(s, { kind: 'open-pane', launch: launch('dave') }));
    expect(s.message?.text).toBe('cannot open dave: a pane of that name is open');
    // Closing the focused last pane keeps focus in range.
    ({ s } = run(s, ...prefix('4'), { kind: 'close-pane', pane: 'dave' }, { kind: 'close-pane', pane: 'carol' }));
    expect(s.focused).toBe(1);
  });
});

describe('a pane replaced or focused at run time', () => {
  it('reduce.replace-pane-keeps-position-number-and-focus', () => {
    let { s } = run(team(), { kind: 'open-pane', launch: launch('%1') }, { kind: 'open-pane', launch: launch('carol') }, { kind: 'focus-pane', pane: '%1' });
    expect(s.focused).toBe(3);
    let fx: Effect[];
    ({ s, fx } = run(s, { kind: 'replace-pane', pane: '%1', launch: launch('amy') }));
    expect(s.panes.map((p) => `${p.number} ${p.id}`)).toEqual(['1 lead', '2 alice', '3 bob', '4 amy', '5 carol']);
    expect(s.panes[3]!.life).toBe('starting');
    expect(s.focused).toBe(3);
    expect(fx).toEqual([{ kind: 'signal', pane: '%1', signal: 'SIGKILL' }, { kind: 'dispose', pane: '%1' }, { kind: 'relayout' }, { kind: 'spawn', pane: 'amy', launch: launch('amy') }]);
    expect(run(s, { kind: 'replace-pane', pane: 'amy', launch: launch('bob') }).s.message?.text).toBe('cannot open bob: a pane of that name is open');
    expect(run(s, { kind: 'replace-pane', pane: 'zed', launch: launch('zoe') }).s.message?.text).toBe('cannot replace zed: no such pane');
    expect(run(s, { kind: 'focus-pane', pane: 'zed' }).s.focused).toBe(3);
  });
});

describe('the status line', () => {
  it('reduce.messages-expire-by-their-own-timer', () => {
    let { s, fx } = run(team(), { kind: 'say', text: 'first' });
    expect(fx).toContainEqual({ kind: 'timer', name: 'status', ms: 6_000, event: { kind: 'status-expired', serial: s.serial } });
    const first = s.serial;
    ({ s } = run(s, { kind: 'say', text: 'second' }, { kind: 'status-expired', serial: first }));
    expect(s.message?.text).toBe('second');
    ({ s } = run(s, { kind: 'status-expired', serial: s.serial }));
    expect(s.message).toBeNull();
  });
});

describe('the action table', () => {
  it('actions.every-action-runs-as-a-pure-step', () => {
    const s = team();
    for (const name of KEY_ACTIONS) {
      const [next, fx] = runAction(s, name);
      expect(next.cfg, name).toBe(s.cfg);
      expect(Array.isArray(fx), name).toBe(true);
    }
    // The input state is never changed in place.
    expect(s.focused).toBe(0);
    expect(s.help).toBe(false);
  });
});
