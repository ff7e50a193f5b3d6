// The lead's `teamux mcp` server signs plan decisions with a key it enrolled at start, with the one-time
// token its screen gave it in env (a Claude Code lead passes its env on to the server); a second server
// with the same token, a lead server without one and a teammate's server all get `unsigned` or lead-only
// refusals that say why. Real child processes, a real TrustAuthority answering enrolments.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { memberPlanStatus, gateAnchorAtStart } from '../../src/protocol/plan-gate.js';
import { agentTeam, trustRoot } from '../agent/helpers.js';
import { BIN } from '../helpers/team.js';
import { callTool, childEnv } from './helpers.js';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

async function server(dir: string, as: string, env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'teamux-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--as', as, '--team-dir', dir], env: childEnv(env), stderr: 'pipe' }));
  clients.push(client);
  return client;
}

describe('the lead signs over mcp', () => {
  it('mcp.lead-server-enrols-with-its-token-and-signs-its-plan-answers', async () => {
    const { store, dir } = await agentTeam(['alice'], { alice: { planRequired: true, planApprover: 'lead' } });
    const { authority, env } = await trustRoot(dir);
    const anchorEnv = { TEAMUX_TRUST_KEY: env.TEAMUX_TRUST_KEY!, TEAMUX_RUN: env.TEAMUX_RUN! };
    const token = authority.issueToken('lead');
    const plan = await store.openRequest('plan_approval', 'alice', 'lead', '1. parse 2. test');
    if (!plan.ok) throw new Error(plan.message);

    // A teammate's server: the lead-only tool is refused whatever its env holds.
    const alice = await server(dir, 'alice', { ...anchorEnv, TEAMUX_ENROL_TOKEN: token });
    const own = await callTool(alice, 'approve_plan', { request_id: plan.value.id });
    expect(own).toMatchObject({ isError: true });
    expect(own.text).toContain('approve_plan is a lead-only tool');

    // A lead server without a token cannot sign, and says why.
    const bare = await server(dir, 'lead', anchorEnv);
    const unsigned = await callTool(bare, 'approve_plan', { request_id: plan.value.id });
    expect(unsigned.isError).toBe(true);
    expect(unsigned.text).toContain('refused (unsigned)');
    expect(unsigned.text).toContain('this lead was given no enrolment token');

    // The lead's server enrols with its token and its approval is signed, so alice's gate opens.
    const lead = await server(dir, 'lead', { ...anchorEnv, TEAMUX_ENROL_TOKEN: token });
    const ok = await callTool(lead, 'approve_plan', { request_id: plan.value.id, feedback: 'go' });
    expect(ok).toEqual({ isError: false, text: `approved the plan of alice (${plan.value.id})` });
    const cfg = await store.config();
    const gate = gateAnchorAtStart(env, cfg.members.find((m) => m.name === 'alice')!, cfg, 'lead');
    expect(memberPlanStatus(gate, (await store.requests.list()).requests)).toBe('approved');

    // The same token again (a copy read from the lead's environment): the screen refuses, nothing is signed.
    const plan2 = await store.openRequest('plan_approval', 'alice', 'lead', '2. more');
    if (!plan2.ok) throw new Error(plan2.message);
    const copy = await server(dir, 'lead', { ...anchorEnv, TEAMUX_ENROL_TOKEN: token });
    const stolen = await callTool(copy, 'approve_plan', { request_id: plan2.value.id });
    expect(stolen.isError).toBe(true);
    expect(stolen.text).toContain('its token was already used');
    expect((await store.requests.get(plan2.value.id)).ok && (await store.requests.get(plan2.value.id) as { value: { status: string } }).value.status).toBe('pending');
  });
});
