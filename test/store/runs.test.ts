// Requests belong to a run: a new run closes the pending requests of earlier runs as expired (with a
// reason and an event), and a member's plan status looks only at its current plan of this run.
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { issueCertificate, leadSigner, newKeyPair } from '../../src/protocol/trust.js';
import { cli, makeTeam } from '../helpers/team.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('runs', () => {
  it('runs.a-new-run-expires-pending-requests-and-old-approvals-stop-counting', async () => {
    const t = await makeTeam(['amy', 'bob'], { planRequired: true });
    cleanup = t.cleanup;
    const store = t.store;
    const root = newKeyPair();
    const lead = newKeyPair();
    const signerFor = (run: string) => leadSigner(lead.privateKey, issueCertificate(root.privateKey, { team: 'test', run, member: 'lead', publicKey: lead.publicKey }));

    // Run 1: amy's plan is approved, a shutdown request and bob's plan stay pending.
    const run1 = (await store.startRun()).run;
    expect((await store.config()).run).toBe(run1);
    const amyPlan = await store.openRequest('plan_approval', 'amy', 'lead', 'plan of run 1');
    const bobPlan = await store.openRequest('plan_approval', 'bob', 'lead', 'bob plan');
    const shut = await store.openRequest('shutdown', 'lead', 'bob', 'stop');
    if (!amyPlan.ok || !bobPlan.ok || !shut.ok) throw new Error('open failed');
    expect(amyPlan.value.run).toBe(run1);
    expect((await store.answerRequest(amyPlan.value.id, 'lead', true, 'ok', undefined, signerFor(run1))).ok).toBe(true);
    // A version 1 request from before runs existed, pending.
    const legacy = { version: 1, id: 'req-legacy-0001', type: 'shutdown', from: 'lead', to: 'amy', status: 'pending', body: 'old', createdAt: '2026-01-01T00:00:00.000Z', resolvedAt: null, response: null };
    writeFileSync(store.paths.request(legacy.id), JSON.stringify(legacy));
    const keyed1 = { TEAMUX_TEAM_DIR: t.dir, TEAMUX_TRUST_KEY: root.publicKey, TEAMUX_RUN: run1 };
    expect((await cli(['plan', 'status', '--as', 'amy'], keyed1)).out).toBe('amy: plan approved — ok\n');

    // Run 2 (teamux started again).
    const { run: run2, expired } = await store.startRun();
    expect(run2).not.toBe(run1);
    expect(expired.map((q) => q.id).sort()).toEqual([bobPlan.value.id, shut.value.id, legacy.id].sort());
    for (const q of expired) expect(q).toMatchObject({ status: 'expired', expiredReason: expect.stringMatching(/teamux was started again/) });
    const after = await store.requests.get(shut.value.id);
    expect(after.ok && after.value).toMatchObject({ status: 'expired', expiredReason: expect.stringContaining(run1) });
    expect((await store.requests.get(amyPlan.value.id))).toMatchObject({ ok: true, value: { status: 'approved' } });
    const { events } = await store.events.read();
    expect(events.filter((e) => e.type === 'request_expired').map((e) => e.request_id).sort()).toEqual(expired.map((q) => q.id).sort());
    // An expired request cannot be answered any more.
    expect(await store.answerRequest(shut.value.id, 'bob', true, 'late')).toMatchObject({ ok: false, reason: 'not_pending' });

    // amy's approval of run 1 does not count in run 2: her plan is not submitted until she submits again.
    const keyed2 = { ...keyed1, TEAMUX_RUN: run2 };
    expect((await cli(['plan', 'status', '--as', 'amy'], keyed2)).out).toBe('amy: plan not_submitted\n');
    const again = await store.openRequest('plan_approval', 'amy', 'lead', 'plan of run 2');
    if (!again.ok) throw new Error(again.message);
    expect((await cli(['plan', 'status', '--as', 'amy'], keyed2)).out).toBe('amy: plan pending\n');
    // A signature from run 1's certificate does not approve run 2's plan.
    expect((await store.answerRequest(again.value.id, 'lead', true, 'replayed', undefined, signerFor(run1))).ok).toBe(true);
    expect((await cli(['plan', 'status', '--as', 'amy', '--json'], keyed2)).out).toMatch(/"status":"unverified"/);
    // Starting again changes nothing that is already closed.
    expect((await store.startRun()).expired).toEqual([]);
  });
});
