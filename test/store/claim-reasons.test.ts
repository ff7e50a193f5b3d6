// Claim-next on a pipeline says why nothing could be claimed when tasks are ready but the pipeline
// refuses them (wrong_role, parallel_cap, self_verification, stage_order): one message from the store,
// the same through the CLI (a real process), the MCP server (a real child through the SDK client)
// and teamux's agent tools. A board with nothing ready keeps the plain message.
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childEnvironment } from '../../src/agent/runtime.js';
import { dispatchTool } from '../../src/agent/tools/registry.js';
import { noReadyTask } from '../../src/protocol/claim-summary.js';
import type { PipelineSettings } from '../../src/protocol/pipeline.js';
import { initTeam } from '../../src/store/init.js';
import type { TeamStore } from '../../src/store/team.js';
import { callTool, mcpClient } from '../mcp/helpers.js';
import { cliProcess, makeTeam, members, tempDir } from '../helpers/team.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SETTINGS: Omit<PipelineSettings, 'version'> = {
  goal: 'a config parser', roles: { plan: ['lead'], execute: ['alice', 'bob'], test: null, verify: ['carol', 'alice'], review: null },
  maxParallel: 2, maxFixRounds: 3, storyCap: { warn: 10, max: 20 }, retentionDays: 30,
};

async function pipelineTeam(): Promise<{ store: TeamStore; dir: string }> {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const dir = path.join(tmp.dir, '.teamux', 'pipe');
  const { store } = await initTeam(dir, { name: 'pipe', root: tmp.dir, layoutFile: null, members: members(['alice', 'bob', 'carol']), seedTasks: [], pipeline: SETTINGS });
  return { store, dir };
}

async function work(store: TeamStore, who: string, id: string | undefined, fields: Parameters<TeamStore['complete']>[3] = {}): Promise<string> {
  const c = await store.claim(who, id);
  if (!c.ok) throw new Error(`claim ${id ?? 'next'} as ${who}: ${c.reason}: ${c.message}`);
  const r = await store.complete(who, c.value.id, `done by ${who}`, fields);
  if (!r.ok) throw new Error(`complete ${c.value.id} as ${who}: ${r.reason}: ${r.message}`);
  return c.value.id;
}

const STORIES = ['s1', 's2', 's3'].map((id) => ({ id, subject: `story ${id}`, acceptance: [`${id} works`] }));

describe('claim-next refusal reasons', () => {
  it('claim-next.names-the-pipeline-refusals-through-cli-mcp-and-agent-alike', async () => {
    const { store, dir } = await pipelineTeam();
    // Only the lead may plan: the others are told the one ready task is not theirs.
    expect(await store.claim('carol')).toEqual({ ok: false, reason: 'no_ready_task', message: 'no task carol can claim now: 1 task waiting: 1 wrong_role (1) — wrong_role: carol may not take plan tasks (roles plan: lead)' });
    await work(store, 'lead', undefined, { stories: STORIES });
    await work(store, 'lead', undefined);
    const ids = (await store.tasks.snapshot()).tasks.filter((t) => t.pipeline?.stage === 'exec').map((t) => t.id);
    expect(ids).toEqual(['3', '4', '5']);
    // Three exec tasks ready; max_parallel 2 is reached once alice and bob hold one each.
    expect((await store.claim('alice', '3')).ok).toBe(true);
    expect((await store.claim('bob', '4')).ok).toBe(true);
    const expected = 'no task alice can claim now: 1 task waiting: 1 parallel_cap (5) — parallel_cap: 2 stories are in progress, the most max_parallel allows (2); wait for one to finish';
    expect(await store.claim('alice')).toEqual({ ok: false, reason: 'no_ready_task', message: expected });
    const carolWhy = 'no task carol can claim now: 1 task waiting: 1 wrong_role (5) — wrong_role: carol may not take exec tasks (roles execute or test: alice, bob)';

    // The CLI, a real process.
    const viaCli = await cliProcess(['task', 'claim', '--as', 'alice', '--json'], { TEAMUX_TEAM_DIR: dir, TEAMUX_MEMBER: '' });
    expect(viaCli.code).toBe(3);
    expect(JSON.parse(viaCli.out)).toEqual({ ok: false, reason: 'no_ready_task', message: expected });
    // The MCP server, a real child.
    const client = await mcpClient(dir, 'carol');
    cleanups.push(() => client.close());
    expect(await callTool(client, 'task_claim', {})).toEqual({ isError: true, text: `refused (no_ready_task): ${carolWhy}` });
    // teamux's agent tools.
    const team = await store.config();
    const me = team.members.find((m) => m.name === 'carol')!;
    const agent = await dispatchTool({ name: 'task_claim', input: {} }, { store, me, team, lead: 'lead', cwd: dir, signal: new AbortController().signal, env: childEnvironment(process.env) }, async () => 'not_required');
    expect(agent).toMatchObject({ isError: true, text: `refused (no_ready_task): ${carolWhy}` });

    // The stories finish; the verify task is alice's to refuse (she wrote s1) and bob's (no verify role).
    await store.complete('alice', '3', 'lexer', {});
    await store.complete('bob', '4', 'errors', {});
    await work(store, 'bob', '5');
    const verify = (await store.tasks.snapshot()).tasks.find((t) => t.pipeline?.stage === 'verify')!.id;
    expect(await store.claim('alice')).toEqual({ ok: false, reason: 'no_ready_task', message: `no task alice can claim now: 1 task waiting: 1 self_verification (${verify}) — self_verification: alice authored work that task ${verify} verifies; another member must verify it` });
    // A task outside the pipeline is still claimable by anyone.
    const other = await store.tasks.create({ subject: 'outside the pipeline' });
    expect(other.ok && (await store.claim('alice'))).toMatchObject({ ok: true, value: { id: other.ok ? other.value.id : '' } });
  }, 90_000);

  it('claim-next.summary-groups-reasons-commonest-first', () => {
    const r = noReadyTask('dave', [
      { id: '12', reason: 'parallel_cap', message: 'cap' },
      { id: '9', reason: 'wrong_role', message: 'dave may not take verify tasks' },
      { id: '10', reason: 'wrong_role', message: 'other' },
    ]);
    expect(r).toEqual({ ok: false, reason: 'no_ready_task', message: 'no task dave can claim now: 3 tasks waiting: 2 wrong_role (9, 10), 1 parallel_cap (12) — wrong_role: dave may not take verify tasks; parallel_cap: cap' });
  });

  it('claim-next.nothing-ready-keeps-the-plain-message', async () => {
    const t = await makeTeam(['alice']);
    cleanups.push(t.cleanup);
    const a = await t.store.tasks.create({ subject: 'first' });
    await t.store.tasks.create({ subject: 'after', blockedBy: [a.ok ? a.value.id : ''] });
    expect((await t.store.claim('alice')).ok).toBe(true);
    expect(await t.store.claim('alice')).toEqual({ ok: false, reason: 'no_ready_task', message: 'no task is ready to claim' });
  });
});
