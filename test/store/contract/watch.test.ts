// The screen's picture of a team fed by its backend, run unchanged on the team folder and on NATS
// JetStream: watchState() hears each change to tasks, requests, the config and heartbeats (with the
// id that changed), and BackendWatch (store/backend-watch.ts) keeps the board, requests, traffic and
// roster current while a second handle (another process's view) writes, without re-reading the board.
import { afterEach, describe, expect, it } from 'vitest';
import type { StateChange } from '../../../src/store/backend.js';
import { BackendWatch } from '../../../src/store/backend-watch.js';
import { waitFor } from '../../helpers/team.js';
import { contractBackends, type ContractTeam } from './backends.js';

const backends = contractBackends();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.each(backends)('backend watch on $name', (backend) => {
  async function make(names = ['amy', 'bob']): Promise<ContractTeam> {
    const t = await backend.make(names);
    cleanups.push(() => t.cleanup());
    return t;
  }

  it('contract.watch.state-changes-name-what-changed', async () => {
    const t = await make();
    const heard: StateChange[] = [];
    const sub = t.store.backend.watchState((c) => heard.push(c));
    cleanups.push(() => sub.dispose());
    const other = await t.open('other');
    const has = (want: Partial<StateChange> & { kind: StateChange['kind'] }): boolean => heard.some((c) => Object.entries(want).every(([k, v]) => (c as Record<string, unknown>)[k] === v));
    // A watch is armed once it hears a change; keep poking until it does (fs.watch and KV watch start asynchronously).
    const created = await other.tasks.create({ subject: 'first' });
    expect(created.ok).toBe(true);
    await waitFor(() => has({ kind: 'task', id: '1' }), 'the task change', 20_000);
    expect((await other.claim('amy', '1')).ok).toBe(true);
    const req = await other.openRequest('shutdown', 'amy', 'bob', 'stop please');
    expect(req.ok).toBe(true);
    await waitFor(() => req.ok && has({ kind: 'request', id: req.value.id }), 'the request change', 20_000);
    await other.updateMember('bob', { status: 'idle' });
    await waitFor(() => has({ kind: 'config' }), 'the config change', 20_000);
    await other.heartbeat('bob');
    await waitFor(() => has({ kind: 'heartbeat', member: 'bob' }), 'the heartbeat', 20_000);
  }, 60_000);

  it('contract.watch.the-backend-fed-view-follows-another-handle', async () => {
    const t = await make(['amy', 'bob']);
    for (const n of ['lead', 'amy', 'bob']) await t.store.updateMember(n, { status: 'working', pid: process.pid });
    const view = new BackendWatch(t.store);
    await view.start();
    cleanups.push(() => view.dispose());
    expect(view.state().tasks).toEqual([]);
    expect(view.state().traffic).toEqual([]);
    expect(view.state().roster.map((m) => m.name)).toEqual(['lead', 'amy', 'bob']);
    let pushed = 0;
    const sub = view.onChange(() => pushed++);
    cleanups.push(() => sub.dispose());

    const other = await t.open('other');
    for (const subject of ['one', 'two']) expect((await other.tasks.create({ subject })).ok).toBe(true);
    expect((await other.tasks.addDependency('2', '1')).ok).toBe(true);
    await waitFor(() => view.state().board.size === 2, 'both tasks on the board', 20_000);
    await waitFor(() => view.state().board.stateOf('2') === 'waiting' && view.state().board.stateOf('1') === 'ready', 'task 2 waiting on task 1', 20_000);
    expect((await other.claim('amy', '1')).ok).toBe(true);
    expect((await other.complete('amy', '1', 'done')).ok).toBe(true);
    await waitFor(() => view.state().board.stateOf('2') === 'ready', 'task 2 ready once 1 is completed', 20_000);
    expect(view.state().board.counts()).toEqual({ in_progress: 0, ready: 1, waiting: 0, completed: 1 });

    for (let i = 1; i <= 3; i++) expect((await other.send({ from: 'amy', to: 'bob', type: 'message', text: `hello ${i}` })).ok).toBe(true);
    await waitFor(() => view.state().traffic.length === 3, 'three messages in the traffic', 20_000);
    expect(view.state().traffic.map((e) => e.excerpt)).toEqual(['hello 1', 'hello 2', 'hello 3']);

    const req = await other.openRequest('shutdown', 'amy', 'bob', 'stop please');
    if (!req.ok) throw new Error(req.message);
    await waitFor(() => view.state().requests.some((r) => r.id === req.value.id && r.status === 'pending'), 'the pending request', 20_000);
    expect((await other.answerRequest(req.value.id, 'bob', true, 'ok')).ok).toBe(true);
    await waitFor(() => view.state().requests.find((r) => r.id === req.value.id)?.status === 'approved', 'the answered request', 20_000);

    await other.updateMember('bob', { status: 'exited', exitCode: 0 });
    await waitFor(() => view.state().roster.find((m) => m.name === 'bob')?.reportedStatus === 'exited', 'bob exited in the roster', 20_000);
    expect(pushed).toBeGreaterThan(0);
    // The connection rides along for the status line: a NATS team has one, the folder none.
    expect(view.state().store?.state ?? null).toBe(backend.name === 'nats' ? 'connected' : null);
  }, 90_000);
});
