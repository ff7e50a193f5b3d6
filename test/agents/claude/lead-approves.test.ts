// `plan_approver: lead` with a Claude Code lead, end to end with the real binary in a private tmux
// server: the lead's `teamux mcp` server (a child of the lead's Claude Code, so in the lead's pane) fetches
// its one-time token from the screen's enrolment socket, whose path Claude Code passes on in its
// environment, enrols a signing key, and the lead's
// mcp__teamux__approve_plan opens a Claude Code teammate's plan gate. Before that, every way a
// teammate has to approve its own plan fails: the lead-only tool from its own Claude Code, a second
// `teamux mcp --as lead` started with the lead's environment read from /proc (outside the lead's pane),
// and a hand-written approval signed with a key of its own (the gate finds it unverified).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { issueCertificate, leadSigner, newKeyPair, planDigest, planSignature } from '../../../src/protocol/trust.js';
import type { ProtocolRequest } from '../../../src/protocol/types.js';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { BIN, waitFor } from '../../helpers/team.js';
import { callTool } from '../../mcp/helpers.js';
import { approvingLeadLayout, approvingLeadScripts, bodyText, environOf, startClaudeTeam } from './tmux-team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LAYOUT = approvingLeadLayout('ccl');

const scripts = approvingLeadScripts((write) => [
  { when: { last_user_contains: 'write hello' }, reply: [{ tool_use: { name: 'mcp__teamux__submit_plan', input: { plan: '1. write hello.txt' } } }] },
  { reply: [write] },
  { reply: [{ text: 'Waiting for my plan to be approved.' }] },
  { when: { last_user_contains: 'approve your own plan' }, reply: [{ tool_use: { name: 'mcp__teamux__approve_plan', input: { request_id: '{{last_request_id}}' } } }] },
  { reply: [{ text: 'I could not approve it.' }] },
  { when: { last_user_contains: 'try writing' }, reply: [write] },
  { reply: [{ text: 'Still blocked.' }] },
  { when: { all_user_contains: ['plan_approval_response'] }, reply: [write] },
  { reply: [{ text: 'hello.txt written.' }] },
]);

describe.skipIf(!CLAUDE)('a Claude Code lead approves plans (real binary, e2e in tmux)', () => {
  it('claude.lead-approves-a-teammates-plan-over-mcp-and-nobody-else-can', async () => {
    const { root, teamDir, store, server, log, idle, say } = await startClaudeTeam(CLAUDE!, 'ccl', LAYOUT, scripts, cleanups);
    await Promise.all([idle('lead'), idle('amy')]);
    // The lead's MCP server enrolled its key with the token the socket handed to it (it is in the lead's pane).
    await waitFor(() => log().includes('mcp lead: signing key enrolled'), 'the lead\'s MCP server enrolled', 30_000, 50);
    expect(log()).toMatch(/certified lead's key [0-9a-f]{16}/);
    expect(log()).toMatch(/enrolment socket: handed lead's token to pid \d+ \(node < .*claude/);
    // The token is in no environment: the lead's has only the socket's path.
    const leadPid = (await store.config()).members.find((m) => m.name === 'lead')!.pid!;
    expect(environOf(leadPid).TEAMUX_ENROL_TOKEN).toBeUndefined();
    expect(environOf(leadPid).TEAMUX_ENROL_SOCKET).toMatch(/enrol/);

    // amy submits her plan over MCP; her Write is held by the gate while it is pending.
    await say('lead', 'amy', 'please write hello');
    await server.waitForRequest((r) => r.member === 'amy' && bodyText(r).includes('blocked: plan status is pending'), 60_000);
    const plan = await waitFor(async () => (await store.requests.list()).requests.find((q) => q.type === 'plan_approval' && q.from === 'amy'), 'amy\'s plan request', 10_000);
    expect(plan.to).toBe('lead');
    await idle('amy');

    // 1. amy calls the lead-only approve_plan on her own plan from her Claude Code: refused.
    await say('lead', 'amy', `approve your own plan request_id="${plan.id}"`);
    const own = await server.waitForRequest((r) => r.member === 'amy' && /approve_plan is a lead-only tool|No such tool/.test(bodyText(r)), 60_000);
    expect(bodyText(own)).toContain('is_error');
    await idle('amy');
    expect((await store.requests.get(plan.id)).ok && ((await store.requests.get(plan.id)) as { value: ProtocolRequest }).value.status).toBe('pending');

    // 2. A `teamux mcp --as lead` started with the lead's environment read from /proc: it is not in the lead's pane.
    const stolen = environOf(leadPid);
    const thief = new Client({ name: 'thief', version: '1.0.0' });
    await thief.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--as', 'lead', '--team-dir', teamDir], env: stolen, stderr: 'pipe' }));
    cleanups.push(() => thief.close());
    const stolenTry = await callTool(thief, 'approve_plan', { request_id: plan.id });
    expect(stolenTry.isError).toBe(true);
    expect(stolenTry.text).toContain('refused (unsigned)');
    expect(stolenTry.text).toContain("is not in lead's pane");
    await waitFor(() => /enrolment socket: refused pid \d+ .*outside every teamux pane, not in lead's/.test(log()), 'the screen\'s log of the refused token', 30_000, 50);

    // 3. A hand-written approval signed with a key amy made, under a certificate she made: still blocked.
    const mallory = newKeyPair();
    const cfg = await store.config();
    const forgedCert = issueCertificate(newKeyPair().privateKey, { team: 'ccl', run: cfg.run!, member: 'lead', publicKey: mallory.publicKey });
    const claim = { team: 'ccl', run: cfg.run!, requestId: plan.id, member: 'amy', approver: 'lead', decision: 'approve' as const, planSha256: planDigest(plan.body) };
    const at = new Date().toISOString();
    writeFileSync(store.paths.request(plan.id), JSON.stringify({ ...plan, status: 'approved', resolvedAt: at, response: { by: 'lead', approve: true, text: 'ok', at, signed: leadSigner(mallory.privateKey, forgedCert).sign(claim) } }, null, 2));
    await say('lead', 'amy', 'try writing now');
    await server.waitForRequest((r) => r.member === 'amy' && bodyText(r).includes('blocked: plan status is unverified'), 60_000);
    expect(existsSync(path.join(root, 'hello.txt'))).toBe(false);
    await idle('amy');
    writeFileSync(store.paths.request(plan.id), JSON.stringify(plan, null, 2));

    // The lead approves through mcp__teamux__approve_plan, signed with its enrolled key: amy's Write runs.
    await idle('lead');
    await say('amy', 'lead', 'approve it now');
    await server.waitForRequest((r) => r.member === 'lead' && bodyText(r).includes(`approved the plan of amy (${plan.id})`), 60_000);
    const approved = (await store.requests.get(plan.id)) as { ok: true; value: ProtocolRequest };
    expect(approved.value.status).toBe('approved');
    expect(planSignature(approved.value.response?.signed)?.certificate?.member).toBe('lead');
    await waitFor(() => existsSync(path.join(root, 'hello.txt')), 'hello.txt written after the lead approved', 60_000, 50);
    expect(readFileSync(path.join(root, 'hello.txt'), 'utf8')).toBe('hello\n');
  }, 300_000);
});
