/**
 * Every tool through the dispatcher, on a real team folder: file tools, bash (output, exit code,
 * timeout, truncation, no credentials in its environment), task tools with CAS, messaging and
 * requests, the lead's tools and the spawn request file. Also the dispatcher's own rules: input
 * validated by zod (an error result the model can correct), lead-only tools refused to teammates,
 * the allowlist, the plan gate, and a tool that throws turned into an error result.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlanStatus } from '../../src/protocol/requests.js';
import type { Member } from '../../src/protocol/types.js';
import { childEnvironment } from '../../src/agent/runtime.js';
import { issueCertificate, leadSigner, newKeyPair } from '../../src/protocol/trust.js';
import { truncateOutput } from '../../src/agent/tools/bash.js';
import { ALL_TOOLS, dispatchTool, toolsFor } from '../../src/agent/tools/registry.js';
import { SpawnRequest } from '../../src/protocol/spawn.js';
import { apiTool, type ToolContext, type ToolResult } from '../../src/agent/tools/types.js';
import type { TeamStore } from '../../src/store/team.js';
import { agentTeam, inbox } from './helpers.js';

async function contextFor(store: TeamStore, name: string, root: string, patch: Partial<Member> = {}): Promise<ToolContext> {
  const team = await store.config();
  const me = { ...team.members.find((m) => m.name === name)!, ...patch };
  return { store, me, team, lead: 'lead', cwd: root, signal: new AbortController().signal, env: childEnvironment(process.env) };
}

function call(ctx: ToolContext, name: string, input: unknown, plan: PlanStatus = 'not_required'): Promise<ToolResult> {
  return dispatchTool({ name, input }, ctx, async () => plan);
}

describe('file tools', () => {
  it('tools.write-read-edit-list', async () => {
    const { store, root } = await agentTeam(['alice']);
    const alice = await contextFor(store, 'alice', root);
    expect(await call(alice, 'write_file', { path: 'src/a.txt', content: 'alpha\nbeta\ngamma\n' })).toEqual({ text: 'wrote src/a.txt (17 bytes)', isError: false });
    expect(readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
    expect((await call(alice, 'read_file', { path: 'src/a.txt' })).text).toBe('alpha\nbeta\ngamma\n');
    expect((await call(alice, 'read_file', { path: 'src/a.txt', offset: 2, limit: 1 })).text).toBe('beta');
    expect(await call(alice, 'read_file', { path: 'nope.txt' })).toEqual({ text: 'cannot read nope.txt: no such file or directory', isError: true });

    expect(await call(alice, 'edit_file', { path: 'src/a.txt', old_string: 'beta', new_string: 'BETA' })).toEqual({ text: 'edited src/a.txt at line 2', isError: false });
    expect(readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\n');
    expect(await call(alice, 'edit_file', { path: 'src/a.txt', old_string: 'delta', new_string: 'x' })).toMatchObject({ isError: true, text: expect.stringContaining('was not found') });
    writeFileSync(path.join(root, 'src/b.txt'), 'x x');
    expect(await call(alice, 'edit_file', { path: 'src/b.txt', old_string: 'x', new_string: 'y' })).toMatchObject({ isError: true, text: expect.stringContaining('occurs 2 times') });
    expect(readFileSync(path.join(root, 'src/b.txt'), 'utf8')).toBe('x x');

    mkdirSync(path.join(root, 'src/deep/node_modules'), { recursive: true });
    writeFileSync(path.join(root, 'src/deep/c.txt'), '');
    expect((await call(alice, 'list_files', { path: 'src' })).text).toBe('a.txt\nb.txt\ndeep/');
    expect((await call(alice, 'list_files', { path: 'src', recursive: true })).text).toBe('a.txt\nb.txt\ndeep/\ndeep/c.txt\ndeep/node_modules/');
    expect((await call(alice, 'list_files', { path: 'src', recursive: true, max: 2 })).text).toBe('a.txt\nb.txt\n[stopped at 2 entries]');
  });
});

describe('bash', () => {
  it('bash.output-exit-code-and-cwd', async () => {
    const { store, root } = await agentTeam(['alice']);
    const alice = await contextFor(store, 'alice', root);
    expect(await call(alice, 'bash', { command: 'echo out; echo err >&2; pwd; exit 3' })).toEqual({ text: `exit code 3\nout\nerr\n${root}`, isError: false });
  });

  it('bash.timeout-kills-the-command', async () => {
    const { store, root } = await agentTeam(['alice']);
    const alice = await contextFor(store, 'alice', root);
    const started = Date.now();
    const r = await call(alice, 'bash', { command: 'echo before; sleep 30', timeout_s: 1 });
    expect(r).toEqual({ text: 'timed out after 1s and was killed\nbefore', isError: true });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('bash.interrupt-kills-the-command', async () => {
    const { store, root } = await agentTeam(['alice']);
    const ac = new AbortController();
    const alice = { ...(await contextFor(store, 'alice', root)), signal: ac.signal };
    const running = call(alice, 'bash', { command: 'sleep 30' });
    setImmediate(() => ac.abort());
    expect(await running).toMatchObject({ isError: true, text: expect.stringContaining('interrupted') });
  });

  it('bash.long-output-is-truncated-with-a-note', async () => {
    const { store, root } = await agentTeam(['alice']);
    const alice = await contextFor(store, 'alice', root);
    const r = await call(alice, 'bash', { command: 'head -c 200000 /dev/zero | tr "\\0" a; echo; echo END' });
    expect(r.text.length).toBeLessThan(31_000);
    expect(r.text).toMatch(/characters left out/);
    expect(r.text.endsWith('END')).toBe(true);
    expect(truncateOutput('abcdefghij', 4)).toBe('ab\n[… output truncated: 6 characters left out …]\nij');
  });

  it('bash.environment-has-no-api-credentials', async () => {
    const { store, root } = await agentTeam(['alice']);
    const alice = { ...(await contextFor(store, 'alice', root)), env: childEnvironment({ PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-ant-api03-secret-value', HOME: '/tmp' }) };
    expect((await call(alice, 'bash', { command: 'echo "key=[$ANTHROPIC_API_KEY] home=$HOME"' })).text).toBe('exit code 0\nkey=[] home=/tmp');
  });
});

describe('task tools', () => {
  it('tasks.create-list-get-claim-update-complete', async () => {
    const { store, root } = await agentTeam(['alice']);
    const lead = await contextFor(store, 'lead', root);
    const alice = await contextFor(store, 'alice', root);
    expect(await call(lead, 'create_task', { subject: 'Design', description: 'the API' })).toEqual({ text: 'created task 1: Design', isError: false });
    expect(await call(lead, 'create_task', { subject: 'Build', blockedBy: ['1'] })).toEqual({ text: 'created task 2: Build (blocked by 1)', isError: false });
    expect(await call(lead, 'create_task', { subject: 'Bad', blockedBy: ['9'] })).toEqual({ text: 'refused (not_found): blocker task 9 does not exist', isError: true });

    const list = await call(alice, 'task_list', {});
    expect(list.text.split('\n').map((l) => JSON.parse(l) as { id: string; ready: boolean })).toMatchObject([{ id: '1', ready: true }, { id: '2', ready: false, blockedBy: ['1'] }]);
    expect((await call(alice, 'task_list', { ready: true })).text.split('\n')).toHaveLength(1);
    expect(JSON.parse((await call(alice, 'task_get', { id: '2' })).text)).toMatchObject({ id: '2', waitingFor: ['1'], revision: 1 });

    expect(await call(alice, 'task_claim', { id: '2' })).toEqual({ text: 'refused (blocked): task 2 is blocked by 1', isError: true });
    expect((await call(alice, 'task_claim', {})).text).toMatch(/^claimed task 1: Design \(revision 3\)/);
    // Compare-and-set: a stale revision is refused, the current one is taken.
    expect(await call(alice, 'task_update', { id: '1', revision: 1, description: 'stale' })).toMatchObject({ isError: true, text: expect.stringContaining('refused (conflict)') });
    expect(await call(alice, 'task_update', { id: '1', revision: 3, description: 'the API, v2' })).toEqual({ text: 'task 1 is now at revision 4 (in_progress)', isError: false });
    expect(await call(lead, 'task_complete', { id: '1', result: 'x' })).toMatchObject({ isError: true, text: expect.stringContaining('not_owner') });
    expect(await call(alice, 'task_complete', { id: '1', result: 'designed' })).toEqual({ text: 'completed task 1; now ready: 2', isError: false });
    const t1 = await store.tasks.get('1');
    expect(t1.ok && [t1.value.status, t1.value.description, t1.value.result]).toEqual(['completed', 'the API, v2', 'designed']);
  });
});

describe('messaging and requests', () => {
  it('messages.send-assign-broadcast', async () => {
    const { store, root } = await agentTeam(['alice', 'bob']);
    const lead = await contextFor(store, 'lead', root);
    const alice = await contextFor(store, 'alice', root);
    await store.tasks.create({ subject: 'Design', description: 'the API' });
    expect(await call(alice, 'send_message', { to: 'bob', text: 'hi bob' })).toEqual({ text: 'sent to bob', isError: false });
    expect(await call(alice, 'send_message', { to: 'carol', text: 'hi' })).toMatchObject({ isError: true, text: expect.stringContaining('unknown_member') });
    expect(await call(alice, 'send_message', { to: 'alice', text: 'me' })).toMatchObject({ isError: true });
    expect(await call(lead, 'assign_task', { task_id: '1', to: 'alice', note: 'start now' })).toEqual({ text: 'assigned task 1 to alice', isError: false });
    expect(await call(lead, 'broadcast', { text: 'standup' })).toEqual({ text: 'broadcast to alice, bob', isError: false });
    expect((await inbox(store, 'bob')).map((m) => [m.from, m.type, m.text])).toEqual([['alice', 'message', 'hi bob'], ['lead', 'broadcast', 'standup']]);
    expect((await inbox(store, 'alice')).map((m) => [m.type, m.text, m.payload])).toEqual([
      ['task_assignment', 'Please take task 1: Design.\nthe API\nstart now', { task_id: '1' }],
      ['broadcast', 'standup', undefined],
    ]);
  });

  it('requests.submit-approve-reject-and-shutdown', async () => {
    const { store, root } = await agentTeam(['alice', 'bob']);
    const { run } = await store.startRun();
    const uncertified = await contextFor(store, 'lead', root);
    const keys = newKeyPair();
    const cert = issueCertificate(newKeyPair().privateKey, { team: 't', run, member: 'lead', publicKey: keys.publicKey });
    const lead = { ...uncertified, signer: leadSigner(keys.privateKey, cert) };
    const alice = await contextFor(store, 'alice', root);
    const first = await call(alice, 'submit_plan', { plan: 'plan A' });
    const id1 = /(req-[a-z0-9-]+)/.exec(first.text)![1]!;
    expect(first.text).toContain('plan submitted to lead');
    // A lead without an enrolled key cannot answer: its answer would not count.
    expect(await call(uncertified, 'approve_plan', { request_id: id1 })).toMatchObject({ isError: true, text: expect.stringContaining('refused (unsigned)') });
    expect((await store.requests.get(id1))).toMatchObject({ ok: true, value: { status: 'pending', run } });
    expect(await call(lead, 'reject_plan', { request_id: id1, feedback: 'add tests' })).toEqual({ text: `rejected the plan of alice (${id1})`, isError: false });
    expect(await call(lead, 'approve_plan', { request_id: id1 })).toMatchObject({ isError: true, text: expect.stringContaining('not_pending') });
    const id2 = /(req-[a-z0-9-]+)/.exec((await call(alice, 'submit_plan', { plan: 'plan B with tests' })).text)![1]!;
    expect(await call(lead, 'reject_plan', { request_id: id2, feedback: '' })).toMatchObject({ isError: true, text: expect.stringContaining('invalid input for reject_plan: feedback') });
    expect(await call(lead, 'approve_plan', { request_id: id2 })).toEqual({ text: `approved the plan of alice (${id2})`, isError: false });
    const responses = (await inbox(store, 'alice')).filter((m) => m.type === 'plan_approval_response');
    expect(responses.map((m) => m.payload)).toEqual([{ approve: false, feedback: 'add tests' }, { approve: true, feedback: 'approved' }]);
    // The answer carries the lead's signature over this request and plan, with its certificate.
    expect((await store.requests.get(id2))).toMatchObject({ ok: true, value: { response: { signed: { claim: { requestId: id2, member: 'alice', approver: 'lead', decision: 'approve', run }, certificate: cert } } } });

    const shut = await call(lead, 'request_shutdown', { to: 'bob' });
    expect(shut.text).toMatch(/^asked bob to shut down \(req-/);
    expect((await inbox(store, 'bob')).map((m) => [m.type, m.text])).toEqual([['shutdown_request', 'the work is done']]);
    // Answering a shutdown request with approve_plan is a type mismatch.
    const shutId = /(req-[a-z0-9-]+)/.exec(shut.text)![1]!;
    expect(await call(lead, 'approve_plan', { request_id: shutId })).toMatchObject({ isError: true, text: expect.stringContaining('type_mismatch') });
  });

  it('spawn.writes-a-request-file-the-multiplexer-can-read', async () => {
    const { store, root } = await agentTeam(['alice']);
    const lead = await contextFor(store, 'lead', root);
    expect((await call(lead, 'spawn_teammate', { name: 'carol', role: 'Writes docs' })).text).toMatch(/^requested a pane for carol \(\d+-carol\.json\)/);
    expect((await call(lead, 'spawn_teammate', { name: 'shell', role: 'A shell', command: 'bash -l' })).isError).toBe(false);
    expect(await call(lead, 'spawn_teammate', { name: 'alice', role: 'again' })).toEqual({ text: 'refused (duplicate): alice is already a member of the team', isError: true });
    expect((await call(lead, 'spawn_teammate', { name: 'Bad Name', role: 'x' })).isError).toBe(true);
    const files = readdirSync(store.paths.spawns).sort();
    expect(files).toHaveLength(2);
    const reqs = files.map((f) => SpawnRequest.parse(JSON.parse(readFileSync(path.join(store.paths.spawns, f), 'utf8'))));
    expect(reqs.map((r) => ({ ...r, time: undefined }))).toEqual(expect.arrayContaining([
      { version: 1, name: 'carol', role: 'Writes docs', agent: true, requestedBy: 'lead', time: undefined },
      { version: 1, name: 'shell', role: 'A shell', command: 'bash -l', requestedBy: 'lead', time: undefined },
    ]));
  });
});

describe('dispatcher', () => {
  it('dispatch.lead-tools-are-refused-to-teammates-even-when-invented', async () => {
    const { store, root } = await agentTeam(['alice']);
    const alice = await contextFor(store, 'alice', root);
    for (const name of ['create_task', 'assign_task', 'broadcast', 'approve_plan', 'reject_plan', 'request_shutdown', 'spawn_teammate', 'reopen_task', 'reassign_task', 'edit_task', 'delete_task', 'retry_story']) {
      const r = await call(alice, name, {});
      expect(r.isError, name).toBe(true);
      expect(r.text, name).toBe(`refused: ${name} is a lead-only tool; a teammate cannot use it (ask the lead with send_message)`);
    }
    expect((await store.tasks.snapshot()).tasks).toEqual([]);
    expect(await call(alice, 'rm_rf', {})).toMatchObject({ isError: true, text: expect.stringMatching(/^unknown tool "rm_rf"; the tools you have are: bash, read_file/) });
  });

  it('dispatch.allowlist-narrows-the-tools', async () => {
    const { store, root } = await agentTeam(['alice'], { alice: { tools: ['read_file', 'task_list'] } });
    const alice = await contextFor(store, 'alice', root);
    expect(toolsFor(alice.me).map((t) => t.name)).toEqual(['read_file', 'task_list']);
    expect(await call(alice, 'bash', { command: 'true' })).toMatchObject({ isError: true, text: expect.stringContaining('not in this member\'s tools allowlist') });
    expect((await call(alice, 'task_list', {})).isError).toBe(false);
  });

  it('dispatch.invalid-input-is-an-error-result-naming-the-field', async () => {
    const { store, root } = await agentTeam(['alice']);
    const alice = await contextFor(store, 'alice', root);
    expect(await call(alice, 'write_file', { path: 'x' })).toEqual({ text: 'invalid input for write_file: content: Invalid input: expected string, received undefined', isError: true });
    expect(await call(alice, 'task_update', { id: 'one', revision: 0, extra: 1 })).toMatchObject({ isError: true, text: expect.stringMatching(/id: expected a task id.*revision: Too small.*Unrecognized key: "extra"/) });
  });

  it('dispatch.plan-gate-blocks-mutating-tools-only', async () => {
    const { store, root } = await agentTeam(['alice']);
    const alice = await contextFor(store, 'alice', root);
    for (const name of ['bash', 'write_file', 'edit_file']) {
      expect(await call(alice, name, { command: 'touch x', path: 'x', content: '', old_string: 'a', new_string: 'b' }, 'pending'), name).toMatchObject({ isError: true, text: expect.stringMatching(/^blocked: plan status is pending/) });
    }
    expect((await call(alice, 'list_files', {}, 'pending')).isError).toBe(false);
    expect(readdirSync(root)).not.toContain('x');
  });

  it('dispatch.a-tool-that-throws-becomes-an-error-result', async () => {
    const { store, root } = await agentTeam(['alice']);
    const alice = await contextFor(store, 'alice', root);
    rmSync(store.paths.tasks, { recursive: true });
    writeFileSync(store.paths.tasks, 'not a folder');
    const r = await call(alice, 'task_list', {});
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^task_list failed: .*\/tasks is not a folder; teamux neither follows links nor reads special files/);
  });

  it('dispatch.every-tool-has-an-object-json-schema', () => {
    for (const tool of ALL_TOOLS) {
      const api = apiTool(tool);
      expect(api.input_schema.type, tool.name).toBe('object');
      expect(api.input_schema, tool.name).not.toHaveProperty('$schema');
      expect(api.description, tool.name).toBeTruthy();
    }
    expect(ALL_TOOLS.map((t) => t.name)).toEqual([
      'bash', 'read_file', 'write_file', 'edit_file', 'list_files', 'task_list', 'task_get', 'task_claim', 'task_update', 'task_complete', 'task_fail',
      'send_message', 'submit_plan', 'create_task', 'assign_task', 'broadcast', 'approve_plan', 'reject_plan', 'request_shutdown', 'spawn_teammate',
      'reopen_task', 'reassign_task', 'edit_task', 'delete_task', 'retry_story',
    ]);
    expect(toolsFor({ kind: 'teammate', tools: null }).map((t) => t.name)).toEqual(ALL_TOOLS.slice(0, 13).map((t) => t.name));
    expect(toolsFor({ kind: 'lead', tools: null })).toHaveLength(ALL_TOOLS.length);
  });
});
