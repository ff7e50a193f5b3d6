/**
 * The plan gate: the pure decision, and the whole protocol through a running agent — a member with
 * planRequired is blocked from mutating tools while its plan is missing or pending, a rejection
 * arrives as a user turn with the feedback, the model resubmits, and after the approval the same
 * tool call goes through.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gateDecision, memberPlanStatus, MUTATING_TOOLS, toolPermitted, type GateAnchor } from '../../src/agent/gate.js';
import { newKeyPair, OPERATOR, planDigest, rootSigner } from '../../src/protocol/trust.js';
import type { ProtocolRequest } from '../../src/protocol/types.js';
import { agentTeam, callsOf, contentText, endpointOf, lastUser, scripted, startAgent, trustRoot, waitFor, waitForMessage } from './helpers.js';

const root = newKeyPair();
const anchor: GateAnchor = { member: 'alice', planRequired: true, approver: OPERATOR, run: 'run-1', trust: { trustKey: root.publicKey, team: 't', run: 'run-1' } };
const req = (from: string, status: ProtocolRequest['status'], type: ProtocolRequest['type'] = 'plan_approval', run = 'run-1'): ProtocolRequest => {
  const id = `req-${from}-${status}-${run}`;
  const signed = rootSigner(root.privateKey).sign({ team: 't', run, requestId: id, member: from, approver: OPERATOR, decision: status === 'approved' ? 'approve' : 'reject', planSha256: planDigest('') });
  const response = status === 'pending' ? null : { by: OPERATOR, approve: status === 'approved', text: '', at: '', signed };
  return { version: 2, id, type, run, from, to: OPERATOR, status, body: '', createdAt: '', resolvedAt: null, response, expiredReason: null };
};

describe('gate (pure)', () => {
  it('gate.mutating-tools-wait-for-an-approved-plan', () => {
    expect([...MUTATING_TOOLS]).toEqual(['bash', 'write_file', 'edit_file']);
    for (const status of ['not_submitted', 'pending', 'rejected'] as const) {
      expect(gateDecision('write_file', status)).toMatchObject({ allow: false, reason: expect.stringMatching(new RegExp(`^blocked: plan status is ${status}`)) });
      expect(gateDecision('read_file', status)).toEqual({ allow: true });
      expect(gateDecision('submit_plan', status)).toEqual({ allow: true });
    }
    expect(gateDecision('bash', 'approved')).toEqual({ allow: true });
    expect(gateDecision('bash', 'not_required')).toEqual({ allow: true });
  });

  it('gate.only-the-members-own-current-signed-plan-counts', () => {
    expect(memberPlanStatus(anchor, [])).toBe('not_submitted');
    expect(memberPlanStatus(anchor, [req('bob', 'approved'), req('alice', 'approved', 'shutdown')])).toBe('not_submitted');
    expect(memberPlanStatus(anchor, [req('alice', 'rejected'), req('alice', 'pending')])).toBe('pending');
    expect(memberPlanStatus(anchor, [req('alice', 'rejected')])).toBe('rejected');
    expect(memberPlanStatus(anchor, [req('alice', 'approved')])).toBe('approved');
    // Approvals of an earlier run do not count in this one.
    expect(memberPlanStatus(anchor, [req('alice', 'approved', 'plan_approval', 'run-0')])).toBe('not_submitted');
    // Without the trust key from its start, a member cannot tell a real approval from a forged one.
    expect(memberPlanStatus({ ...anchor, trust: null }, [req('alice', 'approved')])).toBe('unverified');
    expect(gateDecision('write_file', 'unverified')).toMatchObject({ allow: false, reason: expect.stringMatching(/^blocked: plan status is unverified/) });
    expect(memberPlanStatus({ ...anchor, planRequired: false }, [])).toBe('not_required');
  });

  it('gate.tool-permissions-by-kind-and-allowlist', () => {
    expect(toolPermitted({ name: 'create_task', leadOnly: true }, { kind: 'teammate', tools: null }).allow).toBe(false);
    expect(toolPermitted({ name: 'create_task', leadOnly: true }, { kind: 'lead', tools: null }).allow).toBe(true);
    expect(toolPermitted({ name: 'create_task', leadOnly: true }, { kind: 'lead', tools: ['bash'] }).allow).toBe(false);
    expect(toolPermitted({ name: 'bash', leadOnly: false }, { kind: 'teammate', tools: ['bash'] }).allow).toBe(true);
  });
});

describe('gate (agent)', () => {
  it('gate.blocks-until-approval-then-allows', async () => {
    const { store, dir, root } = await agentTeam(['alice'], { alice: { planRequired: true, planApprover: OPERATOR } });
    const { screen, env } = await trustRoot(dir);
    const write = { tool_use: { name: 'write_file', input: { path: 'out/design.md', content: '# design\n' } } };
    const server = await scripted({
      alice: {
        steps: [
          { when: { last_user_contains: 'start' }, reply: [{ text: 'Writing first.' }, write] },
          { reply: [{ tool_use: { name: 'submit_plan', input: { plan: 'write out/design.md' } } }] },
          { reply: [write] },
          { reply: [{ text: 'Waiting for approval.' }] },
          { when: { last_user_contains: 'approve="true"' }, reply: [write] },
          { reply: [{ text: 'Design written.' }] },
        ],
      },
    });
    const alice = startAgent(store, 'alice', endpointOf(server, 'alice'), root, {}, env);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'start' });
    await waitForMessage(store, 'lead', (m) => m.type === 'result' && m.text === 'Waiting for approval.', 'waiting result');

    const calls = callsOf(server, 'alice');
    expect(contentText(lastUser(calls[1]).content)).toMatch(/^blocked: plan status is not_submitted/);
    expect(contentText(lastUser(calls[2]).content)).toMatch(/^plan submitted to human as req-/);
    expect(contentText(lastUser(calls[3]).content)).toMatch(/^blocked: plan status is pending/);
    expect(lastUser(calls[3]).content).toMatchObject([{ type: 'tool_result', is_error: true }]);
    expect(existsSync(path.join(root, 'out/design.md'))).toBe(false);
    await waitFor(() => alice.output().includes('waiting for approval'), 'the pane to say waiting for approval');

    const pending = (await store.requests.list()).requests.find((r) => r.type === 'plan_approval' && r.status === 'pending')!;
    expect(pending).toMatchObject({ from: 'alice', to: OPERATOR, body: 'write out/design.md' });
    // The screen's store API signs the human's answer with its root key.
    expect((await screen.answerRequest(pending.id, OPERATOR, true, 'go ahead')).ok).toBe(true);
    await waitForMessage(store, 'lead', (m) => m.type === 'result' && m.text === 'Design written.', 'final result');
    expect(readFileSync(path.join(root, 'out/design.md'), 'utf8')).toBe('# design\n');
    const after = callsOf(server, 'alice');
    expect(contentText(lastUser(after[4]).content)).toBe(`<message from="human" type="plan_approval_response" request_id="${pending.id}" approve="true">go ahead</message>`);
  });

  it('gate.rejection-then-resubmission-then-approval', async () => {
    const { store, dir, root } = await agentTeam(['alice'], { alice: { planRequired: true, planApprover: OPERATOR } });
    const { screen, env } = await trustRoot(dir);
    const server = await scripted({
      alice: {
        steps: [
          { when: { last_user_contains: 'start' }, reply: [{ tool_use: { name: 'submit_plan', input: { plan: 'plan v1' } } }] },
          { reply: [{ text: 'Plan v1 submitted.' }] },
          { when: { last_user_contains: 'approve="false"' }, reply: [{ text: 'Adding tests to the plan.' }, { tool_use: { name: 'submit_plan', input: { plan: 'plan v2, with tests' } } }] },
          { reply: [{ text: 'Plan v2 submitted.' }] },
          { when: { last_user_contains: 'approve="true"' }, reply: [{ tool_use: { name: 'bash', input: { command: 'echo approved > ok.txt' } } }] },
          { reply: [{ text: 'Done.' }] },
        ],
      },
    });
    startAgent(store, 'alice', endpointOf(server, 'alice'), root, {}, env);
    await store.send({ from: 'lead', to: 'alice', type: 'message', text: 'start' });
    const first = await waitFor(async () => (await store.requests.list()).requests.find((r) => r.body === 'plan v1'), 'plan v1');
    await waitForMessage(store, 'lead', (m) => m.text === 'Plan v1 submitted.', 'v1 result');
    await screen.answerRequest(first.id, OPERATOR, false, 'add tests first');

    const second = await waitFor(async () => (await store.requests.list()).requests.find((r) => r.body === 'plan v2, with tests'), 'plan v2');
    const rejectionTurn = lastUser(callsOf(server, 'alice')[2]);
    expect(contentText(rejectionTurn.content)).toBe(`<message from="human" type="plan_approval_response" request_id="${first.id}" approve="false">add tests first</message>`);
    await waitForMessage(store, 'lead', (m) => m.text === 'Plan v2 submitted.', 'v2 result');
    await screen.answerRequest(second.id, OPERATOR, true, 'approved');
    await waitForMessage(store, 'lead', (m) => m.text === 'Done.', 'done');
    expect(readFileSync(path.join(root, 'ok.txt'), 'utf8')).toBe('approved\n');
    expect((await store.requests.list()).requests.filter((r) => r.type === 'plan_approval').map((r) => [r.body, r.status])).toEqual([
      ['plan v1', 'rejected'],
      ['plan v2, with tests', 'approved'],
    ]);
  });
});
