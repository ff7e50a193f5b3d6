// The request/response state machines for shutdown and plan approval.
import { describe, expect, it } from 'vitest';
import { planStatus, resolve } from '../../src/protocol/requests.js';
import type { ProtocolRequest } from '../../src/protocol/types.js';

const NOW = '2026-01-01T00:00:00.000Z';
function req(patch: Partial<ProtocolRequest> = {}): ProtocolRequest {
  return { version: 1, id: 'req-abcd-1234', type: 'plan_approval', from: 'amy', to: 'lead', status: 'pending', body: 'plan', createdAt: NOW, resolvedAt: null, response: null, ...patch };
}

describe('request state machine', () => {
  it('resolve.approves-pending-from-target', () => {
    const r = resolve(req(), { type: 'plan_approval_response', by: 'lead', approve: true, text: 'go' }, NOW);
    expect(r.ok && r.value).toMatchObject({ status: 'approved', resolvedAt: NOW, response: { by: 'lead', approve: true, text: 'go' } });
  });
  it('resolve.rejects', () => {
    const r = resolve(req({ type: 'shutdown', from: 'lead', to: 'amy' }), { type: 'shutdown_response', by: 'amy', approve: false, text: 'busy' }, NOW);
    expect(r.ok && r.value.status).toBe('rejected');
  });
  it('resolve.duplicate-changes-nothing', () => {
    const done = req({ status: 'approved', response: { by: 'lead', approve: true, text: '', at: NOW } });
    expect(resolve(done, { type: 'plan_approval_response', by: 'lead', approve: false, text: 'no' }, NOW)).toMatchObject({ ok: false, reason: 'not_pending' });
  });
  it('resolve.wrong-type', () => {
    expect(resolve(req(), { type: 'shutdown_response', by: 'lead', approve: true, text: '' }, NOW)).toMatchObject({ ok: false, reason: 'type_mismatch' });
  });
  it('resolve.wrong-responder', () => {
    expect(resolve(req(), { type: 'plan_approval_response', by: 'bob', approve: true, text: '' }, NOW)).toMatchObject({ ok: false, reason: 'wrong_responder' });
  });
});

describe('plan gate status', () => {
  it('plan-status.follows-latest-request', () => {
    expect(planStatus(false, [])).toBe('not_required');
    expect(planStatus(true, [])).toBe('not_submitted');
    expect(planStatus(true, [req()])).toBe('pending');
    expect(planStatus(true, [req({ status: 'rejected' })])).toBe('rejected');
    expect(planStatus(true, [req({ status: 'rejected' }), req({ id: 'req-abcd-5678' })])).toBe('pending');
    expect(planStatus(true, [req({ status: 'rejected' }), req({ id: 'req-abcd-5678', status: 'approved' })])).toBe('approved');
  });
});
