// The rest of the store's contract, run unchanged on the team folder and on NATS JetStream: inboxes
// (cursor moves only on commit, a crashed reader gets its messages again, broadcast is one message
// per recipient, waiting wakes on a send), events and the sidebar's feed, requests answered exactly
// once, the roster and heartbeat liveness, and stale claims released.
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/team.js';
import { contractBackends, type ContractTeam } from './backends.js';

const backends = contractBackends();
let team: ContractTeam | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

describe.each(backends)('team store on $name', (backend) => {
  async function make(names = ['amy', 'bob']): Promise<ContractTeam> {
    team = await backend.make(names);
    return team;
  }

  it('contract.inbox.unread-moves-nothing-until-commit', async () => {
    const { store: s } = await make();
    for (const text of ['one', 'two', 'three']) expect((await s.send({ from: 'amy', to: 'bob', type: 'message', text })).ok).toBe(true);
    const first = await s.mail.unread('bob');
    expect(first.messages.map((m) => m.text)).toEqual(['one', 'two', 'three']);
    // A reader that dies before committing gets the same messages again.
    expect((await s.mail.unread('bob')).messages.map((m) => m.text)).toEqual(['one', 'two', 'three']);
    await s.mail.commit('bob', 'bob', first.next);
    expect((await s.mail.unread('bob')).messages).toEqual([]);
    await s.send({ from: 'amy', to: 'bob', type: 'message', text: 'four' });
    expect((await s.mail.read('bob')).messages.map((m) => m.text)).toEqual(['four']);
    expect((await s.mail.read('bob')).messages).toEqual([]);
    // Another reader of the same inbox has its own cursor.
    expect((await s.mail.unread('bob', 'amy')).messages.map((m) => m.text)).toEqual(['one', 'two', 'three', 'four']);
  });

  it('contract.inbox.a-second-handle-sees-the-committed-cursor', async () => {
    const t = await make();
    await t.store.send({ from: 'amy', to: 'bob', type: 'message', text: 'x' });
    await t.store.send({ from: 'amy', to: 'bob', type: 'message', text: 'y' });
    const other = await t.open('bob');
    const r = await other.mail.unread('bob');
    expect(r.messages.map((m) => m.text)).toEqual(['x', 'y']);
    await other.mail.commit('bob', 'bob', r.next);
    expect((await t.store.mail.unread('bob')).messages).toEqual([]);
  });

  it('contract.inbox.unknown-members-refused-broadcast-one-per-recipient', async () => {
    const { store: s } = await make(['amy', 'bob', 'cat']);
    expect(await s.send({ from: 'amy', to: 'zed', type: 'message', text: 'x' })).toMatchObject({ ok: false, reason: 'unknown_member' });
    expect(await s.send({ from: 'zed', to: 'amy', type: 'message', text: 'x' })).toMatchObject({ ok: false, reason: 'unknown_member' });
    const b = await s.broadcast('amy', 'all hands');
    expect(b.ok && b.value.map((m) => m.to).sort()).toEqual(['bob', 'cat', 'lead']);
    for (const who of ['bob', 'cat', 'lead']) expect((await s.mail.read(who)).messages.map((m) => [m.type, m.text])).toEqual([['broadcast', 'all hands']]);
    expect((await s.mail.read('amy')).messages).toEqual([]);
  });

  it('contract.inbox.wait-wakes-on-a-send-and-times-out-when-quiet', async () => {
    const t = await make();
    const started = Date.now();
    expect(await t.store.mail.waitForUnread('bob', 'bob', 300)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const other = await t.open('amy');
    const waiting = t.store.mail.waitForUnread('bob', 'bob', 30_000);
    await other.send({ from: 'amy', to: 'bob', type: 'message', text: 'wake' });
    expect(await waiting).toBe(true);
    const abort = new AbortController();
    const aborted = t.store.mail.waitForUnread('amy', 'amy', 30_000, abort.signal);
    abort.abort();
    expect(await aborted).toBe(false);
  });

  it('contract.events.read-limit-and-feed-gets-each-event-once', async () => {
    const t = await make();
    const feed = t.store.backend.eventFeed();
    for (let i = 0; i < 5; i++) await t.store.events.record('task_created', { task: String(i + 1), subject: `s${i}` });
    expect((await t.store.events.read()).events.filter((e) => e.type === 'task_created')).toHaveLength(5);
    expect((await t.store.events.read(2)).events.map((e) => e.task)).toEqual(['4', '5']);
    const seen: string[] = [];
    await waitFor(async () => {
      seen.push(...(await feed.readNew()).events.map((e) => String(e.task)));
      return seen.length >= 5;
    }, 'the feed to catch up', 20_000);
    const other = await t.open('amy');
    await other.events.record('task_claimed', { task: '9', by: 'amy' });
    await waitFor(async () => {
      seen.push(...(await feed.readNew()).events.map((e) => String(e.task)));
      return seen.includes('9');
    }, 'the feed to see another handle\'s event', 20_000);
    expect(seen).toEqual(['1', '2', '3', '4', '5', '9']);
    feed.close?.();
  });

  it('contract.requests.answered-exactly-once-and-expired-by-a-new-run', async () => {
    const t = await make();
    const s = t.store;
    const q = await s.openRequest('shutdown', 'lead', 'bob', 'please stop');
    expect(q.ok).toBe(true);
    const id = q.ok ? q.value.id : '';
    expect((await s.mail.read('bob')).messages.map((m) => [m.type, m.request_id])).toEqual([['shutdown_request', id]]);
    const other = await t.open('bob');
    const answers = await Promise.all([s.answerRequest(id, 'bob', true, 'ok'), other.answerRequest(id, 'bob', false, 'no')]);
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    expect(answers.filter((a) => !a.ok)).toHaveLength(1);
    expect((await s.requests.get(id))).toMatchObject({ ok: true, value: { status: expect.stringMatching(/approved|rejected/) } });
    expect(await s.requests.get('req-nope-0000')).toMatchObject({ ok: false, reason: 'not_found' });
    const pending = await s.openRequest('shutdown', 'lead', 'amy', 'stop too');
    const { expired } = await other.startRun();
    expect(expired.map((x) => x.id)).toEqual([pending.ok ? pending.value.id : '']);
    const statuses = (await s.requests.list()).requests.map((x) => x.status);
    expect(statuses).toHaveLength(2);
    expect(statuses).toContain('expired');
    expect(statuses.filter((x) => x === 'approved' || x === 'rejected')).toHaveLength(1);
  });

  it('contract.roster.member-updates-from-two-handles-are-all-kept', async () => {
    const t = await make(['amy', 'bob', 'cat', 'dan']);
    const other = await t.open('x');
    await Promise.all(['amy', 'bob', 'cat', 'dan'].map((n, i) => (i % 2 ? other : t.store).updateMember(n, { status: 'idle', exitCode: i })));
    const cfg = await t.store.config();
    expect(cfg.members.filter((m) => m.name !== 'lead').map((m) => [m.name, m.status, m.exitCode])).toEqual([['amy', 'idle', 0], ['bob', 'idle', 1], ['cat', 'idle', 2], ['dan', 'idle', 3]]);
    expect(await t.store.updateMember('zed', { status: 'idle' })).toMatchObject({ ok: false, reason: 'unknown_member' });
    expect((await other.addMember({ ...cfg.members[1]!, name: 'eve' })).ok).toBe(true);
    expect((await t.store.member('eve')).ok).toBe(true);
  });

  it('contract.liveness.a-heartbeat-makes-a-member-alive-and-its-absence-releases-its-claims', async () => {
    const t = await make();
    const s = t.store;
    await s.tasks.create({ subject: 'a' });
    await s.updateMember('bob', { status: 'working' });
    await s.heartbeat('bob');
    const view = (await s.roster()).find((m) => m.name === 'bob')!;
    expect(view.reportedStatus).toBe('working');
    expect(view.heartbeatAt).not.toBeNull();
    expect((await s.roster()).find((m) => m.name === 'amy')!.reportedStatus).toBe('exited');
    // A claim by a member that has exited is stale, on either backend.
    await s.tasks.claim('amy', '1');
    const r = await s.releaseStale();
    expect(r.released.map((x) => x.id)).toEqual(['1']);
    expect(await s.tasks.get('1')).toMatchObject({ ok: true, value: { owner: null, status: 'pending' } });
  });
});
