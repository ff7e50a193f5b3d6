// The screen's side of trust (TrustAuthority): enrolments are answered from the trust/ folder, a
// certificate only for the first valid use of a token given to that member; the root signs the
// operator's answers; members an earlier screen started are not answered with this screen's key.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { certificateValid, makeEnrolment, newKeyPair, OPERATOR } from '../../src/protocol/trust.js';
import { TrustAuthority } from '../../src/store/trust.js';
import { makeTeam } from '../helpers/team.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('trust authority', () => {
  it('trust-authority.certifies-the-first-valid-enrolment-of-a-token-only', async () => {
    const t = await makeTeam(['amy']);
    cleanups.push(t.cleanup);
    const { run } = await t.store.startRun();
    const authority = new TrustAuthority(t.store.paths, 'test', run, t.store.log);
    await authority.serve();
    cleanups.push(() => authority.dispose());
    const token = authority.issueToken('lead');
    const ask = async (tok: string, patch: Partial<{ member: string; run: string }> = {}) => {
      const id = await t.store.trust.submit(makeEnrolment(tok, { team: 'test', run, member: 'lead', publicKey: newKeyPair().publicKey, ...patch }));
      return t.store.trust.waitForAnswer(id, 15_000);
    };
    expect(await ask('a token nobody gave out')).toMatchObject({ refused: expect.stringContaining('not authenticated') });
    expect(await ask(token, { member: 'amy' })).toMatchObject({ refused: expect.stringContaining('not given to amy') });
    expect(await ask(token, { run: 'run-other' })).toMatchObject({ refused: expect.stringContaining('not test run') });
    const first = await ask(token);
    if (!first || !('certificate' in first)) throw new Error(`no certificate: ${JSON.stringify(first)}`);
    expect(certificateValid(authority.publicKey, first.certificate, { team: 'test', run, member: 'lead' })).toBe(true);
    expect(await ask(token)).toMatchObject({ refused: expect.stringContaining('already used') });
    // Refusals are logged; the token and the private key never are.
    const log = readFileSync(t.store.paths.log, 'utf8');
    expect(log).toMatch(/refused the enrolment/);
    expect(log).not.toContain(token);
  });

  it('trust-authority.hands-a-token-out-once-per-start', () => {
    const authority = new TrustAuthority({} as never, 'test', 'run-1', { warn: () => undefined, info: () => undefined } as never);
    expect(authority.handOut('lead')).toMatchObject({ refused: expect.stringContaining('no unused enrolment token') });
    const token = authority.issueToken('lead');
    expect(authority.handOut('amy')).toMatchObject({ refused: expect.stringContaining('amy has no unused enrolment token') });
    expect(authority.handOut('lead')).toEqual({ token });
    expect(authority.handOut('lead')).toMatchObject({ refused: expect.stringContaining('already handed out') });
    // A restart (C-a R) issues a fresh token, handed out once again.
    const next = authority.issueToken('lead');
    expect(next).not.toBe(token);
    expect(authority.handOut('lead')).toEqual({ token: next });
  });

  it('trust-authority.does-not-answer-for-members-an-earlier-screen-started', async () => {
    const t = await makeTeam(['amy'], { planRequired: true, planApprover: OPERATOR });
    cleanups.push(t.cleanup);
    const { run } = await t.store.startRun();
    await t.store.updateMember('amy', { pid: process.pid });
    const plan = await t.store.openRequest('plan_approval', 'amy', OPERATOR, 'my plan');
    if (!plan.ok) throw new Error(plan.message);
    const authority = new TrustAuthority(t.store.paths, 'test', run, t.store.log);
    t.store.decisionSigner = authority.signer();
    t.store.startedByEarlierScreen.set('amy', process.pid);
    expect(await t.store.answerRequest(plan.value.id, OPERATOR, true, 'ok')).toMatchObject({ ok: false, reason: 'untrusted_screen', message: expect.stringContaining('C-a R') });
    // Once amy runs as another process (restarted from this screen), the answer goes through, signed.
    await t.store.updateMember('amy', { pid: process.pid + 1 });
    const r = await t.store.answerRequest(plan.value.id, OPERATOR, true, 'ok');
    expect(r).toMatchObject({ ok: true, value: { status: 'approved', response: { by: OPERATOR, signed: { claim: { approver: OPERATOR, member: 'amy', run } } } } });
  });
});
