/**
 * The plan gate under attack, with real `teamux agent` processes against the scripted Messages API
 * server: a teammate (or anything acting through its tools) tries every way past its gate that files,
 * the CLI and a forged key allow, and the agent's write_file stays blocked until an approval signed
 * by its configured approver arrives: the human's through the screen's store API, or the lead's
 * through approve_plan with a key the screen certified after a one-time enrolment.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { issueCertificate, leadSigner, planSignature, makeEnrolment, newKeyPair, OPERATOR, planDigest, rootSigner, type SignedDecision } from '../../src/protocol/trust.js';
import type { ProtocolRequest } from '../../src/protocol/types.js';
import type { TeamStore } from '../../src/store/team.js';
import { cliProcess } from '../helpers/team.js';
import { agentTeam, callsOf, contentText, lastUser, scripted, trustRoot, waitFor, waitForMessage } from './helpers.js';
import { startMember, teamuxBin, type MemberProcess } from './process.js';

const write = { tool_use: { name: 'write_file', input: { path: 'out/owned.txt', content: 'owned\n' } } };

/** Script steps: on "try NAME" the model calls write_file, then ends its turn with "attempt NAME over". */
function attempts(names: string[]) {
  return names.flatMap((a) => [{ when: { last_user_contains: `try ${a}` }, reply: [write] }, { reply: [{ text: `attempt ${a} over` }] }]);
}

/** Overwrite a request file by hand, as a teammate's bash could. */
function handEdit(store: TeamStore, req: ProtocolRequest, patch: Partial<ProtocolRequest>): void {
  writeFileSync(store.paths.request(req.id), JSON.stringify({ ...req, ...patch }, null, 2));
}

function answered(by: string, signed: SignedDecision | null): Partial<ProtocolRequest> {
  const at = new Date().toISOString();
  return { status: 'approved', resolvedAt: at, response: { by, approve: true, text: 'approved', at, signed } };
}

/** Ask the agent to write, wait for its turn to end, and return what its write_file got back. */
async function tryWrite(store: TeamStore, server: Awaited<ReturnType<typeof scripted>>, name: string, who: MemberProcess): Promise<string> {
  await store.send({ from: 'lead', to: 'alice', type: 'message', text: `try ${name}` });
  await waitForMessage(store, 'lead', (m) => m.type === 'result' && m.text === `attempt ${name} over`, `attempt ${name}`, 20_000).catch((err: Error) => {
    throw new Error(`${err.message}\n${who.out.slice(-3000)}`);
  });
  const calls = callsOf(server, 'alice');
  return contentText(lastUser(calls[calls.length - 1]).content);
}

describe('plan gate attacks', () => {
  it('attack.only-the-humans-signed-approval-opens-a-real-agents-gate', async () => {
    const { store, dir, root } = await agentTeam(['alice'], { alice: { planRequired: true, planApprover: OPERATOR } });
    const { screen, authority, run, env } = await trustRoot(dir);
    const tries = ['cli', 'hand-written', 'forged-key', 'earlier-run', 'other-text', 'forged-certificate'];
    const server = await scripted({
      alice: {
        steps: [
          { when: { last_user_contains: 'start' }, reply: [{ tool_use: { name: 'submit_plan', input: { plan: 'write out/owned.txt' } } }] },
          { reply: [{ text: 'Plan submitted.' }] },
          ...attempts([...tries, 'signed']),
        ],
      },
    });
    const alice = startMember(await teamuxBin(), ['agent', '--as', 'alice'], {
      ...env, TEAMUX_TEAM_DIR: dir, TEAMUX_DEMO_URL: server.url, TEAMUX_MEMBER: 'alice', TEAMUX_PLAN_REQUIRED: '1', TEAMUX_PLAN_APPROVER: OPERATOR,
    }, root, 'alice');
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'start' });
    await waitForMessage(store, 'lead', (m) => m.text === 'Plan submitted.', 'the plan', 20_000);
    const plan = (await store.requests.list()).requests.find((r) => r.type === 'plan_approval')!;
    expect(plan).toMatchObject({ from: 'alice', to: OPERATOR, run, status: 'pending' });
    const owned = path.join(root, 'out/owned.txt');
    const claim = { team: 't', run, requestId: plan.id, member: 'alice', approver: OPERATOR, decision: 'approve' as const, planSha256: planDigest(plan.body) };

    // The issue's reproduction: a plan sent to oneself is refused, and the CLI cannot answer a plan request.
    const teamEnv = { TEAMUX_TEAM_DIR: dir };
    const self = await cliProcess(['plan', 'submit', '--as', 'alice', '--to', 'alice', 'x', '--json'], teamEnv);
    expect(self.code).toBe(1);
    expect(self.err).toContain('plans go to the configured approver');
    const approve = await cliProcess(['request', 'approve', plan.id, '--json'], teamEnv);
    expect(approve.code).toBe(3);
    expect(JSON.parse(approve.out)).toMatchObject({ ok: false, reason: 'unsigned' });
    const asHuman = await cliProcess(['request', 'approve', plan.id, '--as', 'human'], { ...teamEnv, TEAMUX_MEMBER: 'alice' });
    expect(asHuman.code).not.toBe(0);
    expect(await tryWrite(store, server, 'cli', alice)).toMatch(/^blocked: plan status is pending/);

    // A request file edited to "approved" by hand, unsigned.
    handEdit(store, plan, answered(OPERATOR, null));
    expect(await tryWrite(store, server, 'hand-written', alice)).toMatch(/^blocked: plan status is unverified/);
    // Signed with a key the teammate made itself.
    handEdit(store, plan, answered(OPERATOR, rootSigner(newKeyPair().privateKey).sign(claim)));
    expect(await tryWrite(store, server, 'forged-key', alice)).toMatch(/^blocked: plan status is unverified/);
    // A real signature of this screen, replayed from an earlier run.
    handEdit(store, plan, answered(OPERATOR, authority.signer().sign({ ...claim, run: 'run-earlier' })));
    expect(await tryWrite(store, server, 'earlier-run', alice)).toMatch(/^blocked: plan status is unverified/);
    // A real signature of this screen over a different plan text.
    handEdit(store, plan, answered(OPERATOR, authority.signer().sign({ ...claim, planSha256: planDigest('a harmless plan') })));
    expect(await tryWrite(store, server, 'other-text', alice)).toMatch(/^blocked: plan status is unverified/);
    // A lead "certificate" made with a forged root, and team.json edited to make the lead alice's approver
    // and to drop her plan requirement: the gate keeps what it read at start.
    const mallory = newKeyPair();
    const cert = issueCertificate(mallory.privateKey, { team: 't', run, member: 'lead', publicKey: mallory.publicKey });
    handEdit(store, { ...plan, to: 'lead' }, answered('lead', leadSigner(mallory.privateKey, cert).sign({ ...claim, approver: 'lead' })));
    const cfg = JSON.parse(readFileSync(store.paths.config, 'utf8')) as { members: Array<{ name: string; planApprover: string | null; planRequired: boolean }> };
    for (const m of cfg.members) if (m.name === 'alice') Object.assign(m, { planApprover: 'lead', planRequired: false });
    writeFileSync(store.paths.config, JSON.stringify(cfg, null, 2));
    expect(await tryWrite(store, server, 'forged-certificate', alice)).toMatch(/^blocked: plan status is unverified/);
    expect(existsSync(owned)).toBe(false);

    // The real thing: the screen signs the human's approval.
    handEdit(store, plan, {});
    expect((await screen.answerRequest(plan.id, OPERATOR, true, 'go ahead')).ok).toBe(true);
    // The write's result (the approval message may ride along after it, when alice has not read it yet).
    expect(await tryWrite(store, server, 'signed', alice)).toMatch(/^wrote out\/owned\.txt \(6 bytes\)(\n<message from="[a-z]+" type="plan_approval_response" [^\n]*)?$/);
    expect(readFileSync(owned, 'utf8')).toBe('owned\n');
  });

  it('attack.the-lead-approves-with-its-enrolled-key-and-a-used-token-enrols-nobody', async () => {
    const { store, dir, root } = await agentTeam(['alice'], { alice: { planRequired: true, planApprover: 'lead' } });
    const { authority, run, env } = await trustRoot(dir);
    const plan = await store.openRequest('plan_approval', 'alice', 'lead', 'write out/owned.txt');
    if (!plan.ok) throw new Error(plan.message);
    const server = await scripted({
      lead: {
        steps: [
          { when: { last_user_contains: 'plan_approval_request' }, reply: [{ tool_use: { name: 'approve_plan', input: { request_id: plan.value.id, feedback: 'fine' } } }] },
          { reply: [{ text: 'Approved alice.' }] },
        ],
      },
      alice: { steps: attempts(['before', 'forged-certificate', 'after']) },
    });
    const bin = await teamuxBin();
    const base = { ...env, TEAMUX_TEAM_DIR: dir, TEAMUX_DEMO_URL: server.url };
    const alice = startMember(bin, ['agent', '--as', 'alice'], { ...base, TEAMUX_MEMBER: 'alice', TEAMUX_PLAN_REQUIRED: '1', TEAMUX_PLAN_APPROVER: 'lead' }, root, 'alice');
    expect(await tryWrite(store, server, 'before', alice)).toMatch(/^blocked: plan status is pending/);
    // A teammate's forged lead answer: its own key with a certificate it signed itself.
    const mallory = newKeyPair();
    const forged = issueCertificate(mallory.privateKey, { team: 't', run, member: 'lead', publicKey: mallory.publicKey });
    const claim = { team: 't', run, requestId: plan.value.id, member: 'alice', approver: 'lead', decision: 'approve' as const, planSha256: planDigest(plan.value.body) };
    handEdit(store, plan.value, answered('lead', leadSigner(mallory.privateKey, forged).sign(claim)));
    expect(await tryWrite(store, server, 'forged-certificate', alice)).toMatch(/^blocked: plan status is unverified/);
    handEdit(store, plan.value, {});

    // The lead enrols its in-memory key with the one-time token, then answers with approve_plan.
    const token = authority.issueToken('lead');
    const lead = startMember(bin, ['agent', '--as', 'lead'], { ...base, TEAMUX_MEMBER: 'lead', TEAMUX_ENROL_TOKEN: token }, root, 'lead');
    const approved = await waitFor(async () => {
      const r = await store.requests.get(plan.value.id);
      return r.ok && r.value.status === 'approved' ? r.value : undefined;
    }, 'the lead to approve', 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${lead.out.slice(-3000)}`);
    });
    expect(approved.response).toMatchObject({ by: 'lead', signed: { claim, certificate: { member: 'lead', run } } });
    expect(planSignature(approved.response!.signed)!.certificate!.publicKey).not.toBe(mallory.publicKey);
    // The write's result (the lead's approval message may ride along after it, when alice has not read it yet).
    expect(await tryWrite(store, server, 'after', alice)).toMatch(/^wrote out\/owned\.txt \(6 bytes\)(\n<message from="lead" type="plan_approval_response" [^\n]*)?$/);

    // The token, read later (say from /proc/PID/environ), enrols nobody: it was used.
    const again = await store.trust.submit(makeEnrolment(token, { team: 't', run, member: 'lead', publicKey: mallory.publicKey }));
    expect(await store.trust.waitForAnswer(again, 15_000)).toMatchObject({ refused: expect.stringContaining('already used') });
    // The lead enrolled without complaint.
    expect(lead.out).not.toContain('plan approvals disabled');
  });
});
