// The lead's retry of blocked pipeline stories in the store, through real CLI processes: two racing
// `teamux pipeline retry s1` get one retry (the other is refused with the reason); the reopened task
// counts its failed attempts from zero; its waiting dependent goes on; `task reopen` on the blocked
// task is the same retry; a pipeline that ended BLOCKED_AFTER_VERIFY gets a fix round with a fresh
// bound, a handoff document and a pipeline_retry event, and runs on to its report.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childEnvironment } from '../../src/agent/runtime.js';
import { dispatchTool } from '../../src/agent/tools/registry.js';
import { readHandoff } from '../../src/protocol/handoff.js';
import type { PipelineSettings } from '../../src/protocol/pipeline.js';
import { initTeam } from '../../src/store/init.js';
import type { TeamStore } from '../../src/store/team.js';
import { cli, cliProcess, makeTeam, members, tempDir } from '../helpers/team.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const SETTINGS: Omit<PipelineSettings, 'version'> = {
  goal: 'a config parser', roles: { plan: ['lead'], execute: ['alice', 'bob'], test: null, verify: ['carol'], review: null },
  maxParallel: 3, maxFixRounds: 2, storyCap: { warn: 10, max: 20 }, retentionDays: 30,
};
const STORIES = [
  { id: 's1', subject: 'Lexer', acceptance: ['tokens for every line'] },
  { id: 's2', subject: 'Errors', acceptance: ['bad lines are named'] },
  { id: 's3', subject: 'Parser', blockedBy: ['s1'], acceptance: ['objects from lines'] },
];

async function pipelineTeam(): Promise<{ store: TeamStore; dir: string; env: Record<string, string> }> {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const dir = path.join(tmp.dir, '.teamux', 'pipe');
  const { store } = await initTeam(dir, { name: 'pipe', root: tmp.dir, layoutFile: null, members: members(['alice', 'bob', 'carol']), seedTasks: [], pipeline: SETTINGS });
  return { store, dir, env: { TEAMUX_TEAM_DIR: dir, TEAMUX_MEMBER: '' } };
}

async function work(store: TeamStore, who: string, id: string, fields: Parameters<TeamStore['complete']>[3] = {}): Promise<void> {
  const c = await store.claim(who, id);
  if (!c.ok) throw new Error(`claim ${id} as ${who}: ${c.reason}: ${c.message}`);
  const r = await store.complete(who, id, `done by ${who}`, fields);
  if (!r.ok) throw new Error(`complete ${id} as ${who}: ${r.reason}: ${r.message}`);
}

async function taskByKey(store: TeamStore, key: string): Promise<string> {
  const t = (await store.tasks.snapshot()).tasks.find((x) => x.pipeline?.key === key);
  if (!t) throw new Error(`no task ${key}`);
  return t.id;
}

async function state(store: TeamStore) {
  const v = await store.pipeline.load();
  if (!v.ok) throw new Error(v.message);
  return v.value.state;
}

/** Plan and prd done; s1's exec task failed three times (s1 blocked, s3 waiting blocked). */
async function s1Blocked(store: TeamStore): Promise<string> {
  await work(store, 'lead', '1', { stories: STORIES });
  await work(store, 'lead', await taskByKey(store, 'prd'));
  const e1 = await taskByKey(store, 'exec-s1');
  for (let i = 1; i <= 3; i++) {
    expect((await store.claim('alice', e1)).ok).toBe(true);
    expect((await store.tasks.fail(e1, 'alice', `lexer test ${i} fails`)).ok).toBe(true);
  }
  expect((await state(store)).stories.map((s) => s.status)).toEqual(['blocked', 'pending', 'blocked']);
  return e1;
}

describe('pipeline retry', () => {
  it('pipeline-retry.racing-cli-retries-give-one-retry-and-the-story-goes-on', async () => {
    const { store, env } = await pipelineTeam();
    const e1 = await s1Blocked(store);
    // A dependent is retried through its blocker, a pending story is not blocked: both refused, nothing changed.
    const dep = await cliProcess(['pipeline', 'retry', 's3', '--json'], env);
    expect(dep.code).toBe(3);
    expect(JSON.parse(dep.out)).toMatchObject({ ok: false, reason: 'illegal_transition', message: 'story s3 is blocked because waits for story s1, which is blocked: retry that story, and s3 follows' });
    // `teamux report` says which stories are blocked and why, including the one waiting for s1.
    const rep = await cliProcess(['report', '--json'], env);
    expect(JSON.parse(rep.out)).toMatchObject({
      pipeline: { status: 'running', stage: 'exec', reason: null, fixRounds: 0 },
      stories: [{ story: 's1', status: 'blocked', reason: 'attempt 3 of 3 failed: 3 attempts failed; the last: lexer test 3 fails' }, { story: 's2', status: 'open', reason: null }, { story: 's3', status: 'blocked', reason: 'waits for story s1, which is blocked' }],
    });
    const md = await cliProcess(['report'], env);
    expect(md.out).toContain('- Pipeline: running at exec; stories 0 done, 2 blocked, 1 open; 0 fix rounds');
    expect(md.out).toContain('| s3 | blocked | 5 | waits for story s1, which is blocked |');
    const bad = await cliProcess(['pipeline', 'retry', 'S 1'], env);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('"S 1" is not a story id');

    const [a, b] = await Promise.all([
      cliProcess(['pipeline', 'retry', 's1', '--as', 'lead', '--reason', 'the fixture is fixed', '--json'], env),
      cliProcess(['pipeline', 'retry', 's1', '--as', 'lead', '--reason', 'the fixture is fixed', '--json'], env),
    ]);
    const results = [a, b].map((r) => ({ code: r.code, json: JSON.parse(r.out) as Record<string, unknown> }));
    expect(results.map((r) => r.code).sort()).toEqual([0, 3]);
    const won = results.find((r) => r.code === 0)!.json;
    const lost = results.find((r) => r.code === 3)!.json;
    expect(won).toMatchObject({ ok: true, retried: ['s1'], unblocked: ['s3'], reopen: [e1] });
    expect(lost).toMatchObject({ ok: false, reason: 'illegal_transition', message: 'story s1 is pending, not blocked' });
    const events = (await store.events.read()).events;
    expect(events.filter((e) => e.type === 'pipeline_retry')).toEqual([expect.objectContaining({ stories: ['s1'], unblocked: ['s3'], reopened: [e1], producer: 'lead', status: 'retried', why: 'the fixture is fixed' })]);
    expect(events.filter((e) => e.type === 'task_reopened' && e.task === e1)).toHaveLength(1);
    expect((await state(store)).stories.map((s) => [s.id, s.status])).toEqual([['s1', 'pending'], ['s2', 'pending'], ['s3', 'pending']]);

    // The reopened task counts failures from zero: one more failure puts it back, not blocked.
    expect((await store.claim('alice', e1)).ok).toBe(true);
    const f = await store.tasks.fail(e1, 'alice', 'flaky once more');
    expect(f.ok && f.value.status).toBe('pending');
    await work(store, 'alice', e1);
    await work(store, 'bob', await taskByKey(store, 'exec-s2'));
    await work(store, 'bob', await taskByKey(store, 'exec-s3'));
    expect(await state(store)).toMatchObject({ stage: 'verify', status: 'running' });
    // While verify runs, a retry waits for its verdict.
    const during = await cli(['pipeline', 'retry', '--json'], env);
    expect(JSON.parse(during.out)).toMatchObject({ ok: false, reason: 'stage_order' });
  }, 60_000);

  it('pipeline-retry.task-reopen-on-the-blocked-story-task-is-the-retry-others-are-refused', async () => {
    const { store, env } = await pipelineTeam();
    const e1 = await s1Blocked(store);
    const prd = await taskByKey(store, 'prd');
    const refused = await cliProcess(['task', 'reopen', prd, '--as', 'lead', '--json'], env);
    expect(refused.code).toBe(3);
    expect(JSON.parse(refused.out)).toMatchObject({ ok: false, reason: 'illegal_transition', message: expect.stringContaining('teamux pipeline retry STORY') });
    const r = await cliProcess(['task', 'reopen', e1, '--as', 'lead', '--reason', 'try again'], env);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`task ${e1} reopened`);
    expect((await state(store)).stories.map((s) => s.status)).toEqual(['pending', 'pending', 'pending']);
    expect((await store.events.read()).events.filter((e) => e.type === 'pipeline_retry')).toHaveLength(1);

    // teamux's agents: retry_story is the lead's tool; a teammate is refused, the lead gets the rule's answer.
    const team = await store.config();
    const tool = (name: string, input: unknown) => dispatchTool({ name: 'retry_story', input }, { store, me: team.members.find((m) => m.name === name)!, team, lead: 'lead', cwd: store.dir, signal: new AbortController().signal, env: childEnvironment(process.env) }, async () => 'not_required');
    expect(await tool('alice', {})).toMatchObject({ isError: true, text: expect.stringContaining('retry_story is a lead-only tool') });
    expect(await tool('lead', { stories: ['s1'] })).toEqual({ isError: true, text: 'refused (illegal_transition): story s1 is pending, not blocked' });
  }, 60_000);

  it('pipeline-retry.a-team-without-a-pipeline-is-told-so', async () => {
    const t = await makeTeam(['alice']);
    cleanups.push(t.cleanup);
    const r = await cli(['pipeline', 'retry', 's1', '--json'], { TEAMUX_TEAM_DIR: t.dir });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, reason: 'not_found', message: 'this team is not a pipeline (its layout has no pipeline: section)' });
    const show = await cli(['pipeline'], { TEAMUX_TEAM_DIR: t.dir });
    expect(show.code).toBe(3);
    expect(show.err).toContain('is not a pipeline');
  });

  it('pipeline-retry.after-BLOCKED_AFTER_VERIFY-a-fresh-fix-round-runs-to-the-report', async () => {
    const { store, dir, env } = await pipelineTeam();
    await work(store, 'lead', '1', { stories: STORIES.slice(0, 2) });
    await work(store, 'lead', await taskByKey(store, 'prd'));
    await work(store, 'alice', await taskByKey(store, 'exec-s1'));
    await work(store, 'bob', await taskByKey(store, 'exec-s2'));
    for (let round = 0; round <= 2; round++) {
      if (round > 0) await work(store, 'bob', await taskByKey(store, `fix-r${round}-s2`));
      await work(store, 'carol', await taskByKey(store, `verify-r${round}`), { verdict: 'REVISE', findings: [{ story: 's2', severity: 'major', text: `empty file crashes (${round})` }] });
    }
    expect(await state(store)).toMatchObject({ status: 'BLOCKED_AFTER_VERIFY', fixRound: 2 });
    expect(existsSync(path.join(dir, 'pipeline', 'report.md'))).toBe(true);
    // Not a member: refused before anything changes.
    const stranger = await cliProcess(['pipeline', 'retry', '--as', 'mallory'], env);
    expect(stranger.code).toBe(1);
    expect(stranger.err).toContain('"mallory" is not a member of this team');
    expect(await state(store)).toMatchObject({ status: 'BLOCKED_AFTER_VERIFY' });

    const r = await cliProcess(['pipeline', 'retry', '--reason', 'the parser owner is back'], env);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('retried s2; the pipeline is at fix, fix round 1;');
    const st = await state(store);
    expect(st).toMatchObject({ status: 'running', stage: 'fix', fixRound: 3, fixBase: 2, stoppedReason: null });
    const doc = readHandoff(readFileSync(path.join(dir, st.handoffs.at(-1)!), 'utf8'))!;
    expect(doc.intact).toBe(true);
    expect(st.handoffs.at(-1)).toMatch(/-verify-fix\.md$/);
    expect(doc.fields).toMatchObject({ producer: 'human', status: 'returned' });
    expect(doc.body).toContain("the fix loop's bound starts again");
    const show = await cliProcess(['pipeline', 'show'], env);
    expect(show.out).toContain('pipeline running at fix');
    expect(show.out).toContain('fix round 1/2 (2 before the last retry)');
    expect(await store.pipeline.summary((await store.tasks.snapshot()).tasks)).toMatchObject({ stage: 'fix', fixRound: 1, maxFixRounds: 2 });

    await work(store, 'bob', await taskByKey(store, 'fix-r3-s2'));
    await work(store, 'carol', await taskByKey(store, 'verify-r3'), { verdict: 'APPROVE' });
    await work(store, 'lead', await taskByKey(store, 'report'));
    expect(await state(store)).toMatchObject({ status: 'done', fixRound: 3 });
    const retry = (await store.events.read()).events.find((e) => e.type === 'pipeline_retry');
    expect(retry).toMatchObject({ stories: ['s2'], producer: 'human', stage: 'fix', fixRound: 3, status: 'retried', verdict: null });
    // Once done, there is nothing left to retry.
    const after = await cliProcess(['pipeline', 'retry', '--json'], env);
    expect(JSON.parse(after.out)).toMatchObject({ ok: false, reason: 'illegal_transition', message: expect.stringMatching(/^no story to retry/) });
  }, 90_000);
});
