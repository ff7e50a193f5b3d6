// Signed plan decisions: the verifier the gate uses accepts exactly a decision signed by the
// configured approver for this team, run, request, member and plan text; forgeries and replays fail.
import { describe, expect, it } from 'vitest';
import {
  answerTrusted, checkDecision, enrolmentValid, issueCertificate, leadSigner, makeEnrolment, newKeyPair, OPERATOR, parsePublicKey, planDigest, rootSigner,
  type DecisionClaim, type TrustAnchor,
} from '../../src/protocol/trust.js';
import type { ProtocolRequest } from '../../src/protocol/types.js';

const root = newKeyPair();
const anchor: TrustAnchor = { trustKey: root.publicKey, team: 't', run: 'run-1' };
const PLAN = '1. write the parser\n2. test it';
const claim = (patch: Partial<DecisionClaim> = {}): DecisionClaim => ({
  team: 't', run: 'run-1', requestId: 'req-abcd-1234', member: 'alice', approver: OPERATOR, decision: 'approve', planSha256: planDigest(PLAN), ...patch,
});
const target = { requestId: 'req-abcd-1234', member: 'alice', approver: OPERATOR, planText: PLAN };

describe('trust (pure)', () => {
  it('trust.keys-are-ed25519-text', () => {
    expect(root.publicKey).toMatch(/^ed25519:[A-Za-z0-9_-]{43}$/);
    expect(parsePublicKey(root.publicKey)).not.toBeNull();
    expect(parsePublicKey('ed25519:short')).toBeNull();
    expect(parsePublicKey('')).toBeNull();
  });

  it('trust.operator-decision-signed-by-the-root-counts', () => {
    expect(checkDecision(anchor, target, rootSigner(root.privateKey).sign(claim()))).toEqual({ ok: true, decision: 'approve' });
    expect(checkDecision(anchor, target, rootSigner(root.privateKey).sign(claim({ decision: 'reject' })))).toEqual({ ok: true, decision: 'reject' });
  });

  it('trust.forgeries-and-replays-do-not-count', () => {
    const other = newKeyPair();
    const cases: Array<[string, ReturnType<typeof checkDecision>]> = [
      ['unsigned', checkDecision(anchor, target, null)],
      ['another key', checkDecision(anchor, target, rootSigner(other.privateKey).sign(claim()))],
      ['earlier run', checkDecision(anchor, target, rootSigner(root.privateKey).sign(claim({ run: 'run-0' })))],
      ['other plan text', checkDecision(anchor, { ...target, planText: PLAN + ' and delete everything' }, rootSigner(root.privateKey).sign(claim()))],
      ['other request', checkDecision(anchor, { ...target, requestId: 'req-abcd-9999' }, rootSigner(root.privateKey).sign(claim()))],
      ['other member', checkDecision(anchor, { ...target, member: 'bob' }, rootSigner(root.privateKey).sign(claim()))],
      ['other team', checkDecision(anchor, target, rootSigner(root.privateKey).sign(claim({ team: 'u' })))],
      ['approver is the lead', checkDecision(anchor, { ...target, approver: 'lead' }, rootSigner(root.privateKey).sign(claim()))],
    ];
    for (const [what, r] of cases) expect(r.ok, what).toBe(false);
    // A signature over one claim, pasted onto an edited claim.
    const good = rootSigner(root.privateKey).sign(claim());
    const edited = { ...good, claim: { ...good.claim, member: 'bob' } };
    expect(checkDecision(anchor, { ...target, member: 'bob' }, edited)).toMatchObject({ ok: false, why: 'bad signature' });
    const flipped = { ...rootSigner(root.privateKey).sign(claim({ decision: 'reject' })) };
    expect(checkDecision(anchor, target, { ...flipped, claim: { ...flipped.claim, decision: 'approve' } })).toMatchObject({ ok: false });
  });

  it('trust.lead-decisions-count-through-a-root-certificate-only', () => {
    const lead = newKeyPair();
    const cert = issueCertificate(root.privateKey, { team: 't', run: 'run-1', member: 'lead', publicKey: lead.publicKey });
    const toLead = { ...target, approver: 'lead' };
    expect(checkDecision(anchor, toLead, leadSigner(lead.privateKey, cert).sign(claim({ approver: 'lead' })))).toEqual({ ok: true, decision: 'approve' });
    // A certificate a teammate made with its own key, or one of an earlier run, or for another member.
    const mallory = newKeyPair();
    const forged = issueCertificate(mallory.privateKey, { team: 't', run: 'run-1', member: 'lead', publicKey: mallory.publicKey });
    expect(checkDecision(anchor, toLead, leadSigner(mallory.privateKey, forged).sign(claim({ approver: 'lead' })))).toMatchObject({ ok: false, why: expect.stringContaining('certificate') });
    const oldCert = issueCertificate(root.privateKey, { team: 't', run: 'run-0', member: 'lead', publicKey: lead.publicKey });
    expect(checkDecision(anchor, toLead, leadSigner(lead.privateKey, oldCert).sign(claim({ approver: 'lead' })))).toMatchObject({ ok: false });
    const bobCert = issueCertificate(root.privateKey, { team: 't', run: 'run-1', member: 'bob', publicKey: mallory.publicKey });
    expect(checkDecision(anchor, toLead, leadSigner(mallory.privateKey, bobCert).sign(claim({ approver: 'lead' })))).toMatchObject({ ok: false });
    // The real certificate with someone else's key swapped in.
    const swapped = { ...cert, publicKey: mallory.publicKey };
    expect(checkDecision(anchor, toLead, leadSigner(mallory.privateKey, swapped).sign(claim({ approver: 'lead' })))).toMatchObject({ ok: false });
    // When the human approves, a lead's signature does not count, and the reverse.
    expect(checkDecision(anchor, target, leadSigner(lead.privateKey, cert).sign(claim({ approver: 'lead' })))).toMatchObject({ ok: false });
    expect(checkDecision(anchor, toLead, rootSigner(root.privateKey).sign(claim()))).toMatchObject({ ok: false });
  });

  it('trust.enrolment-mac-needs-the-token', () => {
    const lead = newKeyPair();
    const e = makeEnrolment('token-1', { team: 't', run: 'run-1', member: 'lead', publicKey: lead.publicKey });
    expect(enrolmentValid('token-1', e)).toBe(true);
    expect(enrolmentValid('token-2', e)).toBe(false);
    expect(enrolmentValid('token-1', { ...e, publicKey: newKeyPair().publicKey })).toBe(false);
    expect(enrolmentValid('token-1', { ...e, mac: 'garbage!' })).toBe(false);
  });

  it('trust.answer-trusted-matches-the-recorded-status', () => {
    const base: ProtocolRequest = {
      version: 2, id: 'req-abcd-1234', type: 'plan_approval', run: 'run-1', from: 'alice', to: OPERATOR, status: 'approved', body: PLAN,
      createdAt: '', resolvedAt: '', expiredReason: null,
      response: { by: OPERATOR, approve: true, text: '', at: '', signed: rootSigner(root.privateKey).sign(claim()) },
    };
    expect(answerTrusted(anchor, OPERATOR, base)).toBe(true);
    expect(answerTrusted(null, OPERATOR, base)).toBe(false);
    // A signed rejection edited into "approved".
    const rejected = rootSigner(root.privateKey).sign(claim({ decision: 'reject' }));
    expect(answerTrusted(anchor, OPERATOR, { ...base, response: { ...base.response!, signed: rejected } })).toBe(false);
    // The plan text edited after the approval.
    expect(answerTrusted(anchor, OPERATOR, { ...base, body: PLAN + '\n3. rm -rf /' })).toBe(false);
  });
});
