// Every key action, driven through the prefix on a multiplexer with fake panes (FakePaneHost) and a
// fake terminal: what the person sees (titles, status line, sidebar) and what reaches the team folder.
import { afterEach, describe, expect, it } from 'vitest';
import { FakePaneHost } from '../helpers/fake-host.js';
import { startMux, type MuxHarness } from '../helpers/mux.js';
import { makeTeam, waitFor } from '../helpers/team.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function harness(names = ['alice', 'bob'], opts: Parameters<typeof startMux>[1] = {}): Promise<MuxHarness & { store: Awaited<ReturnType<typeof makeTeam>>['store'] }> {
  const t = await makeTeam(names);
  cleanups.push(t.cleanup);
  const h = await startMux(t.store, opts);
  cleanups.push(() => h.stop());
  return Object.assign(h, { store: t.store });
}

describe('focus, zoom, scrollback, help, send-prefix', () => {
  it('keys.focus-next-prev-and-by-number', async () => {
    const h = await harness();
    await h.see('→ lead');
    h.prefix('n');
    await h.see('→ alice');
    h.prefix('o');
    await h.see('→ bob');
    h.prefix('p');
    await h.see('→ alice');
    h.prefix('1');
    await h.see('→ lead');
    h.prefix('3');
    await h.see('→ bob');
    h.prefix('7');
    await h.see('there is no pane 7');
    // Keys typed now go to bob's process only.
    h.type('ls\r');
    await waitFor(() => h.host.proc('bob').input.includes('ls\r'), 'bob to get the keys');
    expect(h.host.proc('alice').input).not.toContain('ls');
  });

  it('keys.zoom-shows-one-pane-and-back', async () => {
    const h = await harness();
    await h.see(/2 alice/);
    h.prefix('z');
    await h.see(/1 lead .*\[zoom\]/);
    expect(await h.tty.text()).not.toMatch(/2 alice/);
    h.prefix('z');
    await h.see(/2 alice/);
  });

  it('keys.scrollback-mode-and-leaving-it', async () => {
    const h = await harness(['alice']);
    h.prefix('[');
    await h.see(/\[scroll\]/);
    await h.see('scrollback: ↑/↓ PgUp/PgDn g/G, q to leave');
    h.type('q');
    await waitFor(async () => !(await h.tty.text()).includes('[scroll]'), 'scroll mode to end');
    expect(h.host.proc('lead').input).not.toContain('q');
  });

  it('keys.help-opens-a-box-and-any-key-closes-it', async () => {
    const h = await harness(['alice'], { cols: 80, rows: 24 });
    h.prefix('?');
    const screen = await h.see('teamux keys: C-a, then');
    expect(screen).toMatch(/│ n o +focus the next pane +.*│/);
    expect(screen).toMatch(/└─+┘/);
    h.type('x');
    await waitFor(async () => !(await h.tty.text()).includes('teamux keys'), 'the help to close');
    expect(h.host.proc('lead').input, 'the closing key is not typed into the pane').not.toContain('x');
  });

  it('keys.prefix-twice-sends-the-prefix', async () => {
    const h = await harness(['alice']);
    h.prefix('\x01');
    await waitFor(() => h.host.proc('lead').input === '\x01', 'C-a to reach the pane');
  });

  it('keys.unbound-key-is-said', async () => {
    const h = await harness(['alice']);
    h.prefix('Y');
    await h.see('C-a Y is not bound (C-a ? lists the keys)');
  });
});

describe('requests: select, approve, reject, broadcast', () => {
  it('keys.select-approve-and-reject', async () => {
    const h = await harness();
    const a = await h.store.openRequest('plan_approval', 'alice', 'human', 'alice plan');
    const b = await h.store.openRequest('plan_approval', 'bob', 'human', 'bob plan');
    if (!a.ok || !b.ok) throw new Error('requests');
    await h.see('REQUESTS 2 pending');
    await h.see(/▶plan alice→human/);
    h.prefix('j');
    await h.see(/▶plan bob→human/);
    h.prefix('k');
    await h.see(/▶plan alice→human/);
    h.prefix('j');
    await h.see(/▶plan bob→human/);
    h.prefix('r');
    await h.see("reject bob's plan — feedback:");
    h.type('split it up\r');
    await h.see("rejected bob's plan");
    h.prefix('a');
    await h.see("approved alice's plan");
    const reqs = (await h.store.requests.list()).requests;
    // The keys' decisions are signed by the screen as the operator (what a plan gate checks).
    expect(reqs.find((r) => r.id === a.value.id)).toMatchObject({ status: 'approved', response: { by: 'human', signed: { claim: { approver: 'human', member: 'alice', decision: 'approve' } } } });
    expect(reqs.find((r) => r.id === b.value.id)).toMatchObject({ status: 'rejected', response: { text: 'split it up', signed: { claim: { approver: 'human', member: 'bob', decision: 'reject' } } } });
    h.prefix('a');
    await h.see('no pending plan or permission request to approve');
  });

  it('keys.allow-and-deny-a-permission-request', async () => {
    const h = await harness(['alice']);
    const first = await h.store.openPermission('alice', 'human', 'Bash', { command: 'ls' });
    if (!first.ok) throw new Error(first.message);
    await h.see(/▶permission alice→human: Bash/);
    await h.see(/● alice +waiting for permission/);
    h.prefix('a');
    await h.see("allowed alice's Bash");
    const second = await h.store.openPermission('alice', 'human', 'Write', { file_path: '/etc/passwd' });
    if (!second.ok) throw new Error(second.message);
    await h.see(/▶permission alice→human: Write/);
    h.prefix('r');
    await h.see("deny alice's Write — feedback:");
    h.type('not there\r');
    await h.see("denied alice's Write");
    const reqs = (await h.store.requests.list()).requests;
    // Permission answers are the operator's, signed by the screen's root key (what the hook checks).
    expect(reqs.find((r) => r.id === first.value.id)).toMatchObject({ status: 'approved', response: { by: 'human', approve: true, signed: { claim: { kind: 'permission', approver: 'human', member: 'alice', decision: 'allow' } } } });
    expect(reqs.find((r) => r.id === second.value.id)).toMatchObject({ status: 'rejected', response: { by: 'human', approve: false, text: 'not there', signed: { claim: { kind: 'permission', decision: 'deny' } } } });
  });

  it('keys.reject-needs-feedback-and-escape-cancels', async () => {
    const h = await harness(['alice']);
    await h.store.openRequest('plan_approval', 'alice', 'human', 'a plan');
    await h.see(/▶plan alice/);
    h.prefix('r');
    await h.see('feedback:');
    h.type('\r');
    await h.see('a rejection needs feedback; nothing was sent');
    h.prefix('r');
    await h.see('feedback:');
    h.type('\x1b');
    await h.see('cancelled');
    expect((await h.store.requests.list()).requests[0]).toMatchObject({ status: 'pending' });
  });

  it('keys.broadcast-reaches-every-inbox-never-a-pane', async () => {
    const h = await harness();
    h.prefix('b');
    await h.see('broadcast:');
    h.type('standup now\r');
    await h.see(/broadcast delivered to \d+ inboxes/);
    for (const m of ['lead', 'alice', 'bob']) {
      const inbox = await h.store.mail.read(m);
      expect(inbox.messages.map((x) => x.text), m).toContain('standup now');
    }
    for (const m of ['lead', 'alice', 'bob']) expect(h.host.proc(m).input).not.toContain('standup');
  });
});

describe('life: shutdown, restart, quit, detach', () => {
  it('keys.shutdown-the-focused-teammate-asks-then-keeps-its-exited-pane', async () => {
    const h = await harness(['alice'], { shutdownTimeoutMs: 300 });
    h.prefix('s');
    await h.see('the lead stops with quit; shutdown is for teammates');
    h.prefix('2');
    h.prefix('s');
    await h.see('shut down alice? (y/n)');
    h.type('y');
    await h.see('shut down alice');
    expect(h.host.proc('alice').signals).toContain('SIGTERM');
    // The pane stays with its exit status, and C-a R brings the member back.
    expect(h.mux.panes.map((p) => p.name)).toEqual(['lead', 'alice']);
    await h.see(/2 alice .*(exited|killed)/);
    const req = (await h.store.requests.list()).requests.find((r) => r.type === 'shutdown');
    expect(req).toMatchObject({ to: 'alice' });
    const first = h.host.proc('alice');
    h.prefix('R');
    await h.see('restarted alice');
    expect(h.host.proc('alice')).not.toBe(first);
  });

  it('keys.shutdown-all-teammates-after-y', async () => {
    const h = await harness(['alice', 'bob'], { shutdownTimeoutMs: 300 });
    h.prefix('S');
    await h.see('shut down alice, bob? (y/n)');
    h.type('y');
    await h.see(/shut down (alice, bob|bob, alice)/);
    expect(h.mux.panes.map((p) => p.name)).toEqual(['lead', 'alice', 'bob']);
  });

  it('keys.restart-an-exited-pane', async () => {
    const h = await harness(['alice']);
    h.prefix('R');
    await h.see('lead is still running; restart is for exited panes');
    const first = h.host.proc('lead');
    first.exit(3);
    await h.see(/1 lead .*exited 3/);
    h.prefix('R');
    await h.see('restarted lead');
    expect(h.host.proc('lead')).not.toBe(first);
  });

  it('keys.quit-twice-forces', async () => {
    const h = await harness(['alice'], { shutdownTimeoutMs: 5_000 });
    for (const p of h.host.procs.values()) p.exitOnSignal = true;
    h.prefix('q');
    await h.see('quitting: shutdown handshake with everyone');
    h.prefix('q');
    expect(await h.exit).toBe(0);
    expect(h.host.proc('alice').signals).toContain('SIGTERM');
    expect(h.tty.input.isRaw).toBe(false);
  });

  it('keys.detach-needs-tmux-and-says-detached', async () => {
    const pty = await harness(['alice']);
    pty.prefix('d');
    await pty.see('detach needs the tmux backend');
    const h = await harness(['alice'], { host: new FakePaneHost('tmux') });
    h.prefix('d');
    expect(await h.exit).toBe(0);
    expect(h.host.disposed).toEqual({ kill: false });
    expect(h.tty.raw).toMatch(/\[detached from test; members keep running: teamux attach test to come back\]/);
  });
});
