// `teamux mcp` through the real MCP SDK client against a real child process on a real team folder:
// the tools offered per role and allowlist, every tool's happy path with the store change it makes,
// refusals carrying the protocol's reason, bad input naming the field, and lead tools refused to a
// teammate even when called by name.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readdirSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTeam } from '../helpers/team.js';
import { callTool, mcpClient } from './helpers.js';

const TEAMMATE_TOOLS = ['task_list', 'task_get', 'task_claim', 'task_update', 'task_complete', 'task_release', 'task_fail', 'send_message', 'read_inbox', 'submit_plan', 'plan_status', 'respond_shutdown', 'member_diff'];
const LEAD_ONLY = ['create_task', 'assign_task', 'broadcast', 'approve_plan', 'reject_plan', 'request_shutdown', 'spawn_teammate', 'reopen_task', 'reassign_task', 'edit_task', 'delete_task', 'retry_story'];

const clients: Client[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const c of cleanups.splice(0)) c();
});

async function team(names: string[], opts = {}) {
  const t = await makeTeam(names, opts);
  cleanups.push(t.cleanup);
  const as = async (name: string) => {
    const c = await mcpClient(t.dir, name);
    clients.push(c);
    return c;
  };
  return { ...t, as };
}

const reqId = (text: string): string => /(req-[a-z0-9-]+)/.exec(text)![1]!;

describe('mcp tools', () => {
  it('mcp.tools-list-follows-role-and-allowlist', async () => {
    const t = await team(['alice']);
    const lead = await t.as('lead');
    const alice = await t.as('alice');
    const leadTools = (await lead.listTools()).tools;
    expect(leadTools.map((x) => x.name)).toEqual([...TEAMMATE_TOOLS, ...LEAD_ONLY]);
    expect((await alice.listTools()).tools.map((x) => x.name)).toEqual(TEAMMATE_TOOLS);
    for (const tool of leadTools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description, tool.name).toBeTruthy();
    }
    expect(leadTools.find((x) => x.name === 'task_update')!.inputSchema.required).toEqual(['id', 'revision']);
    expect(lead.getServerVersion()?.name).toBe('teamux');
    expect(alice.getInstructions()).toContain('You are alice, a teammate');

    // The allowlist in team.json narrows the list, and a change applies to the next request.
    const narrow = await team(['carol'], { tools: ['task_list', 'read_inbox', 'create_task'] });
    const carol = await narrow.as('carol');
    expect((await carol.listTools()).tools.map((x) => x.name)).toEqual(['task_list', 'read_inbox']);
    expect(await callTool(carol, 'task_claim', {})).toEqual({ isError: true, text: "refused: task_claim is not in this member's tools allowlist (task_list, read_inbox, create_task)" });
    const cfg = await narrow.store.config();
    cfg.members.find((m) => m.name === 'carol')!.tools = ['task_get'];
    await narrow.store.writeConfig(cfg);
    expect((await carol.listTools()).tools.map((x) => x.name)).toEqual(['task_get']);
  });

  it('mcp.every-tool-works-and-changes-the-store', async () => {
    const t = await team(['alice', 'bob']);
    const lead = await t.as('lead');
    const alice = await t.as('alice');
    const bob = await t.as('bob');

    expect(await callTool(lead, 'create_task', { subject: 'Design', description: 'the API' })).toEqual({ isError: false, text: 'created task 1: Design' });
    expect(await callTool(lead, 'create_task', { subject: 'Build', blockedBy: ['1'] })).toEqual({ isError: false, text: 'created task 2: Build (blocked by 1)' });
    expect((await t.store.tasks.snapshot()).tasks.map((x) => [x.id, x.subject, x.blockedBy])).toEqual([['1', 'Design', []], ['2', 'Build', ['1']]]);
    expect(await callTool(lead, 'assign_task', { task_id: '1', to: 'alice', note: 'today' })).toEqual({ isError: false, text: 'assigned task 1 to alice' });
    expect(await callTool(lead, 'broadcast', { text: 'standup' })).toEqual({ isError: false, text: 'broadcast to alice, bob' });

    const listed = (await callTool(alice, 'task_list', { ready: true })).text.split('\n').map((l) => JSON.parse(l) as { id: string });
    expect(listed.map((x) => x.id)).toEqual(['1']);
    expect(JSON.parse((await callTool(alice, 'task_get', { id: '2' })).text)).toMatchObject({ id: '2', ready: false, waitingFor: ['1'] });
    expect((await callTool(alice, 'task_claim', {})).text).toMatch(/^claimed task 1: Design \(revision 3\)/);
    expect(await callTool(alice, 'task_update', { id: '1', revision: 3, description: 'the API, v2' })).toEqual({ isError: false, text: 'task 1 is now at revision 4 (in_progress)' });
    expect(await callTool(alice, 'task_release', { id: '1' })).toEqual({ isError: false, text: 'released task 1: Design' });
    expect((await t.store.tasks.get('1')).ok && (await t.store.tasks.get('1'))).toMatchObject({ value: { status: 'pending', owner: null, description: 'the API, v2' } });
    await callTool(alice, 'task_claim', { id: '1' });
    expect(await callTool(alice, 'task_complete', { id: '1', result: 'designed' })).toEqual({ isError: false, text: 'completed task 1; now ready: 2' });
    expect((await t.store.tasks.get('1'))).toMatchObject({ ok: true, value: { status: 'completed', owner: 'alice', result: 'designed' } });

    expect(await callTool(alice, 'send_message', { to: 'bob', text: 'hi bob' })).toEqual({ isError: false, text: 'sent to bob' });
    const bobInbox = (await callTool(bob, 'read_inbox', {})).text.split('\n').map((l) => JSON.parse(l) as { from: string; type: string; text: string });
    expect(bobInbox.map((m) => [m.from, m.type, m.text])).toEqual([['lead', 'broadcast', 'standup'], ['alice', 'message', 'hi bob']]);

    // Plans: submit and status. An MCP client has no signing key, so its plan answers would not count
    // and are refused (docs/protocol.md §12); nothing is written.
    expect(await callTool(alice, 'plan_status', {})).toEqual({ isError: false, text: 'plan not_required [unverified: no TEAMUX_TRUST_KEY: signatures not checked]' });
    const first = reqId((await callTool(alice, 'submit_plan', { plan: 'plan A' })).text);
    expect(await callTool(lead, 'reject_plan', { request_id: first, feedback: 'add tests' })).toMatchObject({ isError: true, text: expect.stringMatching(/^refused \(unsigned\): .*approve_plan \/ reject_plan/) });
    const second = reqId((await callTool(alice, 'submit_plan', { plan: 'plan B, with tests' })).text);
    expect(await callTool(lead, 'approve_plan', { request_id: second })).toMatchObject({ isError: true, text: expect.stringMatching(/^refused \(unsigned\): /) });
    expect((await t.store.requests.list()).requests.map((q) => [q.from, q.to, q.status, q.response?.text])).toEqual([
      ['alice', 'lead', 'pending', undefined],
      ['alice', 'lead', 'pending', undefined],
    ]);

    // Shutdown handshake: the lead asks, bob (holding task 2) approves and his task goes back on the board.
    await callTool(bob, 'task_claim', { id: '2' });
    const shut = reqId((await callTool(lead, 'request_shutdown', { to: 'bob', reason: 'done for today' })).text);
    const asked = JSON.parse((await callTool(bob, 'read_inbox', {})).text) as { type: string; request_id: string };
    expect(asked).toMatchObject({ type: 'shutdown_request', request_id: shut });
    expect(await callTool(bob, 'respond_shutdown', { request_id: shut, approve: true })).toEqual({ isError: false, text: `shutdown approved (${shut}); released 2: stop now` });
    expect((await t.store.tasks.get('2'))).toMatchObject({ ok: true, value: { status: 'pending', owner: null } });
    const answer = (await t.store.mail.unread('lead', 'lead')).messages.find((m) => m.type === 'shutdown_response')!;
    expect([answer.from, answer.request_id, answer.payload]).toEqual(['bob', shut, { approve: true, reason: 'shutting down; released task 2' }]);

    expect((await callTool(lead, 'spawn_teammate', { name: 'carol', role: 'Writes docs' })).text).toMatch(/^requested a pane for carol \(\d+-carol\.json\)/);
    expect(readdirSync(t.store.paths.spawns)).toHaveLength(1);
  });

  it('mcp.refusals-are-tool-errors-with-the-reason', async () => {
    const t = await team(['alice', 'bob']);
    const lead = await t.as('lead');
    const alice = await t.as('alice');
    const bob = await t.as('bob');
    await callTool(lead, 'create_task', { subject: 'one' });
    await callTool(lead, 'create_task', { subject: 'two', blockedBy: ['1'] });
    expect(await callTool(alice, 'task_claim', { id: '2' })).toEqual({ isError: true, text: 'refused (blocked): task 2 is blocked by 1' });
    await callTool(alice, 'task_claim', { id: '1' });
    expect(await callTool(bob, 'task_claim', { id: '1' })).toMatchObject({ isError: true, text: expect.stringMatching(/^refused \(already_claimed\): /) });
    expect(await callTool(alice, 'task_update', { id: '1', revision: 1, description: 'stale' })).toMatchObject({ isError: true, text: expect.stringMatching(/^refused \(conflict\): /) });
    expect(await callTool(bob, 'task_complete', { id: '1', result: 'not mine' })).toMatchObject({ isError: true, text: expect.stringMatching(/^refused \(not_owner\): /) });
    expect(await callTool(bob, 'task_release', { id: '1' })).toMatchObject({ isError: true, text: expect.stringMatching(/^refused \(not_owner\): /) });
    expect(await callTool(alice, 'task_get', { id: '9' })).toMatchObject({ isError: true, text: expect.stringMatching(/^refused \(not_found\): /) });
    expect(await callTool(alice, 'send_message', { to: 'zed', text: 'hi' })).toMatchObject({ isError: true, text: expect.stringMatching(/^refused \(unknown_member\): /) });
    expect(await callTool(alice, 'send_message', { to: 'alice', text: 'me' })).toMatchObject({ isError: true, text: expect.stringMatching(/^refused \(invalid_input\): /) });
    const plan = reqId((await callTool(alice, 'submit_plan', { plan: 'p' })).text);
    expect(await callTool(lead, 'approve_plan', { request_id: plan })).toMatchObject({ isError: true, text: expect.stringMatching(/^refused \(unsigned\): /) });
    // A member answering a request that is not its own, or a plan with respond_shutdown.
    const shut = reqId((await callTool(lead, 'request_shutdown', { to: 'bob' })).text);
    expect(await callTool(alice, 'respond_shutdown', { request_id: shut, approve: true })).toMatchObject({ isError: true, text: expect.stringMatching(/^refused \(wrong_responder\): /) });
    expect(await callTool(alice, 'respond_shutdown', { request_id: plan, approve: true })).toMatchObject({ isError: true, text: expect.stringMatching(/^refused \(type_mismatch\): /) });
    expect(await callTool(bob, 'respond_shutdown', { request_id: shut, approve: false })).toMatchObject({ isError: true, text: 'refused (invalid_input): refusing a shutdown needs a reason' });
    expect(await callTool(bob, 'respond_shutdown', { request_id: shut, approve: false, reason: 'mid-migration' })).toEqual({ isError: false, text: `shutdown refused (${shut})` });
    expect(await callTool(lead, 'spawn_teammate', { name: 'alice', role: 'again' })).toEqual({ isError: true, text: 'refused (duplicate): alice is already a member of the team' });
  });

  it('mcp.bad-input-is-a-tool-error-naming-the-field', async () => {
    const t = await team(['alice']);
    const alice = await t.as('alice');
    expect(await callTool(alice, 'task_update', { id: 'one', revision: 0, extra: 1 })).toMatchObject({ isError: true, text: expect.stringMatching(/^invalid input for task_update: id: expected a task id.*revision: Too small.*Unrecognized key: "extra"/) });
    expect(await callTool(alice, 'send_message', { to: 'lead' })).toEqual({ isError: true, text: 'invalid input for send_message: text: Invalid input: expected string, received undefined' });
    expect(await callTool(alice, 'read_inbox', { wait_s: 100000 })).toMatchObject({ isError: true, text: expect.stringContaining('wait_s: Too big') });
    expect(await callTool(alice, 'rm_rf', {})).toMatchObject({ isError: true, text: expect.stringMatching(/^unknown tool "rm_rf"; the tools you have are: task_list, /) });
    // The server is still there after all of that.
    expect(await callTool(alice, 'task_list', {})).toEqual({ isError: false, text: 'no tasks match' });
  });

  it('mcp.a-teammate-calling-a-lead-tool-is-refused-and-nothing-changes', async () => {
    const t = await team(['alice', 'bob']);
    const alice = await t.as('alice');
    for (const name of LEAD_ONLY) {
      expect(await callTool(alice, name, { subject: 'x', text: 'x', to: 'bob', name: 'eve', role: 'x', task_id: '1', request_id: 'req-abcd-1234', feedback: 'x' }), name)
        .toEqual({ isError: true, text: `refused: ${name} is a lead-only tool; a teammate cannot use it (ask the lead with send_message)` });
    }
    expect((await t.store.tasks.snapshot()).tasks).toEqual([]);
    expect((await t.store.mail.unread('bob', 'bob')).messages).toEqual([]);
    expect((await t.store.requests.list()).requests).toEqual([]);
  });

  it('mcp.parallel-read-inbox-calls-never-return-a-message-twice', async () => {
    const t = await team(['alice']);
    const alice = await t.as('alice');
    for (let i = 0; i < 20; i++) await t.store.send({ from: 'lead', to: 'alice', type: 'message', text: `m${i}` });
    const replies = await Promise.all([1, 2, 3, 4].map(() => callTool(alice, 'read_inbox', {})));
    const texts = replies.flatMap((r) => (r.text === 'no unread messages' ? [] : r.text.split('\n').map((l) => (JSON.parse(l) as { text: string }).text)));
    expect(texts.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`).sort());
    expect(await callTool(alice, 'read_inbox', {})).toEqual({ isError: false, text: 'no unread messages' });
  });

  it('mcp.a-broken-team-json-is-an-error-not-a-crash', async () => {
    const t = await team(['alice']);
    const alice = await t.as('alice');
    writeFileSync(t.store.paths.config, '{ not json');
    await expect(alice.listTools()).rejects.toThrow(/team\.json/);
    expect(await callTool(alice, 'task_list', {})).toMatchObject({ isError: true, text: expect.stringMatching(/^refused: .*team\.json/) });
  });
});
