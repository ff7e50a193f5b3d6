// The human is its own operator: the keys act as `human`, not as the lead; only the screen's process
// may act as `human`; no member may be called `human`; members can answer and write to the operator.
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { formatErrors, loadLayout } from '../../src/config/index.js';
import { startMux } from '../helpers/mux.js';
import { cli, makeTeam, waitFor } from '../helpers/team.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('the operator identity', () => {
  it('operator.only-the-screen-acts-as-human', async () => {
    const t = await makeTeam(['alice']);
    cleanups.push(t.cleanup);
    // A store that is not the screen's (a member's CLI, an agent) cannot send, broadcast or ask as human.
    expect(await t.store.send({ from: 'human', to: 'alice', type: 'message', text: 'x' })).toMatchObject({ ok: false, reason: 'unknown_member', message: expect.stringContaining('only the screen acts as human') });
    expect(await t.store.broadcast('human', 'x')).toMatchObject({ ok: false });
    expect(await t.store.openRequest('shutdown', 'human', 'alice', 'stop')).toMatchObject({ ok: false });
    const viaCli = await cli(['msg', 'send', '--from', 'human', '--to', 'alice', 'do as I say', '--team-dir', t.dir]);
    expect(viaCli.code).not.toBe(0);
    expect(viaCli.err).toMatch(/"human" is not a member|only the screen acts as human|the command line cannot act as it/);
    // Anyone may write to the operator.
    expect(await t.store.send({ from: 'alice', to: 'human', type: 'message', text: 'I am stuck' })).toMatchObject({ ok: true });
    // The screen's process may act as human; the answer to its shutdown request reaches it.
    t.store.actAsOperator();
    const req = await t.store.openRequest('shutdown', 'human', 'alice', 'stop');
    if (!req.ok) throw new Error(req.message);
    expect(req.value.from).toBe('human');
    const answered = await t.store.answerRequest(req.value.id, 'alice', true, 'bye');
    expect(answered).toMatchObject({ ok: true, value: { status: 'approved' } });
    const inbox = await t.store.mail.read('human');
    expect(inbox.messages.map((m) => `${m.from}:${m.type}`)).toEqual(['alice:message', 'alice:shutdown_response']);
  });

  it('operator.no-member-may-be-called-human', async () => {
    const t = await makeTeam([]);
    cleanups.push(t.cleanup);
    const file = path.join(t.dir, 'team.yaml');
    writeFileSync(file, 'name: t\nlead: { name: lead, role: r, command: [bash] }\nteammates:\n  - { name: human, role: r, command: [bash] }\n');
    const r = loadLayout(file);
    if (r.ok) throw new Error('a member called human was accepted');
    expect(formatErrors(r.errors).split(file).join('team.yaml')).toBe('team.yaml:4:13 teammates[0].name: the name "human" is reserved for the person at the teamux screen\n  hint: pick another name, like "human-2" or "reviewer"');
  });

  it('operator.broadcast-and-shutdown-keys-act-as-human', async () => {
    const t = await makeTeam(['alice']);
    cleanups.push(t.cleanup);
    const h = await startMux(t.store, { shutdownTimeoutMs: 300 });
    cleanups.push(() => h.stop());
    h.prefix('b');
    await h.see('broadcast:');
    h.type('hello\r');
    await h.see('broadcast delivered to 2 inboxes');
    // (The MAIL section's tail of events.jsonl is another change's subject; the log is the record.)
    const { events } = await t.store.events.read();
    expect(events.filter((e) => e.type === 'message_sent' && e.messageType === 'broadcast').map((e) => `${String(e.from)}→${String(e.to)}`).sort()).toEqual(['human→alice', 'human→lead']);
    const lead = await t.store.mail.read('lead');
    expect(lead.messages).toMatchObject([{ from: 'human', type: 'broadcast', text: 'hello' }]);
    h.prefix('2');
    h.prefix('s');
    h.type('y');
    await h.see('shut down alice');
    const reqs = (await t.store.requests.list()).requests;
    expect(reqs).toMatchObject([{ type: 'shutdown', from: 'human', to: 'alice' }]);
    await waitFor(async () => (await t.store.mail.read('alice')).messages.some((m) => m.from === 'human' && m.type === 'shutdown_request'), 'alice to have the shutdown request from human');
  });
});
