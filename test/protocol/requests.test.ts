// The request/response state machines for shutdown and plan approval: answers, self-approval,
// unsigned plan decisions, expiry of earlier runs, and the plan status of the current plan only.
import { describe, expect, it } from 'vitest';
import { checkOpen, currentPlan, expire, planStatus, resolve } from '../../src/protocol/requests.js';
import type { SignedDecision } from '../../src/protocol/trust.js';
import type { ProtocolRequest } from '../../src/protocol/types.js';

const NOW = '2026-01-01T00:00:00.000Z';
function req(patch: Partial<ProtocolRequest> = {}): ProtocolRequest {
  return { version: 2, id: 'req-abcd-1234', type: 'plan_approval', run: 'run-1', from: 'amy', to: 'lead', status: 'pending', body: 'plan', createdAt: NOW, resolvedAt: null, response: null, expiredReason: null, ...patch };
}
// The state machine only requires that a plan answer carries a signature; whether it counts is the gate's business.
const SIGNED = { claim: {}, signature: 'x', certificate: null } as unknown as SignedDecision;

describe('request state machine', () => {
  it('resolve.approves-pending-from-target', () => {
    const r = resolve(req(), { type: 'plan_approval_response', by: 'lead', approve: true, text: 'go', signed: SIGNED }, NOW);
    expect(r.ok && r.value).toMatchObject({ status: 'approved', resolvedAt: NOW, response: { by: 'lead', approve: true, text: 'go', signed: SIGNED } });
  });
  it('resolve.rejects', () => {
    const r = resolve(req({ type: 'shutdown', from: 'lead', to: 'amy' }), { type: 'shutdown_response', by: 'amy', approve: false, text: 'busy' }, NOW);
    expect(r.ok && r.value.status).toBe('rejected');
  });
  it('resolve.duplicate-changes-nothing', () => {
    const done = req({ status: 'approved', response: { by: 'lead', approve: true, text: '', at: NOW, signed: SIGNED } });
    expect(resolve(done, { type: 'plan_approval_response', by: 'lead', approve: false, text: 'no', signed: SIGNED }, NOW)).toMatchObject({ ok: false, reason: 'not_pending' });
  });
  it('resolve.wrong-type', () => {
    expect(resolve(req(), { type: 'shutdown_response', by: 'lead', approve: true, text: '' }, NOW)).toMatchObject({ ok: false, reason: 'type_mismatch' });
  });
  it('resolve.wrong-responder', () => {
    expect(resolve(req(), { type: 'plan_approval_response', by: 'bob', approve: true, text: '', signed: SIGNED }, NOW)).toMatchObject({ ok: false, reason: 'wrong_responder' });
  });
  it('resolve.plan-answer-must-be-signed', () => {
    expect(resolve(req(), { type: 'plan_approval_response', by: 'lead', approve: true, text: '' }, NOW)).toMatchObject({ ok: false, reason: 'unsigned' });
  });
  it('resolve.nobody-approves-their-own-plan', () => {
    expect(checkOpen('plan_approval', 'amy', 'amy')).toMatchObject({ ok: false, reason: 'self_approval' });
    expect(checkOpen('plan_approval', 'amy', 'lead')).toMatchObject({ ok: true });
    expect(checkOpen('shutdown', 'lead', 'amy')).toMatchObject({ ok: true });
    // A request file edited to be addressed to its author cannot be answered by the author either.
    expect(resolve(req({ to: 'amy' }), { type: 'plan_approval_response', by: 'amy', approve: true, text: '', signed: SIGNED }, NOW)).toMatchObject({ ok: false, reason: 'self_approval' });
  });
  it('expire.closes-pending-requests-of-earlier-runs-only', () => {
    expect(expire(req({ run: 'run-0' }), 'run-1', NOW)).toMatchObject({ status: 'expired', resolvedAt: NOW, expiredReason: expect.stringContaining('run-0') });
    expect(expire(req({ run: null, version: 1 }), 'run-1', NOW)).toMatchObject({ status: 'expired', expiredReason: expect.stringContaining('before runs') });
    expect(expire(req({ run: 'run-1' }), 'run-1', NOW)).toBeNull();
    expect(expire(req({ run: 'run-0', status: 'approved' }), 'run-1', NOW)).toBeNull();
  });
});

describe('plan gate status', () => {
  const trusted = () => true;
  it('plan-status.follows-the-current-plan-of-this-run', () => {
    const old = req({ id: 'req-abcd-0001', run: 'run-0', status: 'approved' });
    const mine = [old, req({ status: 'rejected' }), req({ id: 'req-abcd-5678' }), req({ id: 'req-abcd-9999', from: 'bob', status: 'approved' })];
    expect(currentPlan(mine, 'amy', 'run-1')?.id).toBe('req-abcd-5678');
    expect(currentPlan(mine, 'amy', 'run-2')).toBeUndefined();
    expect(planStatus(false, undefined, trusted)).toBe('not_required');
    expect(planStatus(true, undefined, trusted)).toBe('not_submitted');
    // An approval from an earlier run does not open this run's gate.
    expect(planStatus(true, currentPlan([old], 'amy', 'run-1'), trusted)).toBe('not_submitted');
    expect(planStatus(true, currentPlan(mine, 'amy', 'run-1'), trusted)).toBe('pending');
    expect(planStatus(true, req({ status: 'rejected' }), trusted)).toBe('rejected');
    expect(planStatus(true, req({ status: 'approved' }), trusted)).toBe('approved');
    // An earlier approval does not outlive a newer pending plan.
    expect(planStatus(true, currentPlan([req({ status: 'approved' }), req({ id: 'req-abcd-5678' })], 'amy', 'run-1'), trusted)).toBe('pending');
    expect(planStatus(true, req({ status: 'expired' }), trusted)).toBe('not_submitted');
  });
  it('plan-status.an-answer-that-does-not-verify-is-unverified', () => {
    expect(planStatus(true, req({ status: 'approved' }), () => false)).toBe('unverified');
    expect(planStatus(true, req({ status: 'rejected' }), () => false)).toBe('unverified');
  });
});
