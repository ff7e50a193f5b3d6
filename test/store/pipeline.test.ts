// The pipeline as the store enforces it, whichever front end acts: claim refusals (stage order,
// role, self_verification, parallel_cap), routing on completion (tasks, handoff documents, events,
// final report), a routing cut short by a crash replayed by the next operation, and the CLI (a real
// process) carrying a verdict and findings.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readHandoff } from '../../src/protocol/handoff.js';
import type { PipelineSettings } from '../../src/protocol/pipeline.js';
import { initTeam } from '../../src/store/init.js';
import { TeamStore } from '../../src/store/team.js';
import type { TaskBoard } from '../../src/store/tasks.js';
import type { Task } from '../../src/protocol/types.js';
import { cliProcess, members, tempDir } from '../helpers/team.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const SETTINGS: Omit<PipelineSettings, 'version'> = {
  goal: 'a config parser', roles: { plan: ['lead'], execute: ['alice', 'bob'], test: null, verify: ['carol', 'alice'], review: null },
  maxParallel: 2, maxFixRounds: 3, storyCap: { warn: 10, max: 20 }, retentionDays: 30,
};
const STORIES = [
  { id: 's1', subject: 'Lexer', acceptance: ['tokens for every line'] },
  { id: 's2', subject: 'Errors', acceptance: ['bad lines are named'] },
  { id: 's3', subject: 'Parser', blockedBy: ['s1'], acceptance: ['objects from lines'] },
];

async function pipelineTeam(settings = SETTINGS): Promise<{ store: TeamStore; dir: string }> {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const dir = path.join(tmp.dir, '.teamux', 'pipe');
  const { store } = await initTeam(dir, { name: 'pipe', root: tmp.dir, layoutFile: null, members: members(['alice', 'bob', 'carol']), seedTasks: [], pipeline: settings });
  return { store, dir };
}

/** Claim and complete as `who`, failing the test on a refusal. */
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

describe('the pipeline in the store', () => {
  it('pipeline.init-makes-the-plan-task-once', async () => {
    const { store, dir } = await pipelineTeam();
    const { tasks } = await store.tasks.snapshot();
    expect(tasks.map((t) => [t.id, t.pipeline?.key, t.subject])).toEqual([['1', 'plan', 'Plan: a config parser']]);
    await initTeam(dir, { name: 'pipe', root: path.dirname(path.dirname(dir)), layoutFile: null, members: members(['alice', 'bob', 'carol']), seedTasks: [], pipeline: SETTINGS });
    expect((await store.tasks.snapshot()).tasks).toHaveLength(1);
  });

  it('pipeline.claims-are-refused-by-role-stage-author-and-cap', async () => {
    const { store } = await pipelineTeam();
    expect(await store.claim('alice', '1')).toMatchObject({ ok: false, reason: 'wrong_role' });
    // A story over the cap is refused at completion and the plan task stays in progress.
    expect((await store.claim('lead', '1')).ok).toBe(true);
    const many = Array.from({ length: 21 }, (_, i) => ({ id: `x${i}`, subject: 'x', acceptance: ['x'] }));
    expect(await store.complete('lead', '1', 'too many', { stories: many })).toMatchObject({ ok: false, reason: 'story_cap' });
    expect((await store.tasks.get('1')).ok && (await store.tasks.get('1'))).toMatchObject({ value: { status: 'in_progress' } });
    expect((await store.complete('lead', '1', 'three stories', { stories: STORIES })).ok).toBe(true);
    const prd = await taskByKey(store, 'prd');
    await work(store, 'lead', prd, { criteria: [{ story: 's1', checks: ['node test/lexer.mjs'] }] });
    const [e1, e2, e3] = [await taskByKey(store, 'exec-s1'), await taskByKey(store, 'exec-s2'), await taskByKey(store, 'exec-s3')];
    expect(await store.claim('alice', e3)).toMatchObject({ ok: false, reason: 'blocked' });
    expect((await store.claim('alice', e1)).ok).toBe(true);
    expect((await store.claim('bob', e2)).ok).toBe(true);
    // The task update path cannot skip the pipeline's rules.
    const t2 = await store.tasks.get(e2);
    expect(t2.ok && (await store.tasks.update(e2, 'bob', t2.value.revision, { status: 'completed' }))).toMatchObject({ ok: false, reason: 'invalid_input' });
    expect((await store.complete('alice', e1, 'lexer', {})).ok).toBe(true);
    // e3 is ready now, but two stories are in progress? No: one is (e2). max_parallel 2 lets it go.
    expect((await store.claim('alice', e3)).ok).toBe(true);
    const extra = await store.tasks.create({ subject: 'outside the pipeline' });
    expect(extra.ok && (await store.claim('carol', extra.value.id)).ok).toBe(true);
    expect((await store.complete('bob', e2, 'errors', {})).ok).toBe(true);
    expect((await store.complete('alice', e3, 'parser', {})).ok).toBe(true);
    const v = await taskByKey(store, 'verify-r0');
    expect(await store.claim('alice', v)).toMatchObject({ ok: false, reason: 'self_verification' });
    expect(await store.claim('bob', v)).toMatchObject({ ok: false, reason: 'wrong_role' });
    expect((await store.claim('carol', v)).ok).toBe(true);
  });

  it('pipeline.parallel-cap-refuses-the-third-story', async () => {
    const { store } = await pipelineTeam();
    await work(store, 'lead', '1', { stories: [...STORIES.slice(0, 2), { id: 's4', subject: 'More', acceptance: ['x'] }] });
    await work(store, 'lead', await taskByKey(store, 'prd'));
    expect((await store.claim('alice', await taskByKey(store, 'exec-s1'))).ok).toBe(true);
    expect((await store.claim('bob', await taskByKey(store, 'exec-s2'))).ok).toBe(true);
    expect(await store.claim('alice', await taskByKey(store, 'exec-s4'))).toMatchObject({ ok: false, reason: 'parallel_cap' });
  });

  it('pipeline.runs-to-the-report-with-handoffs-events-and-verdict-badges', async () => {
    const { store, dir } = await pipelineTeam();
    await work(store, 'lead', '1', { stories: STORIES });
    await work(store, 'lead', await taskByKey(store, 'prd'));
    await work(store, 'alice', await taskByKey(store, 'exec-s1'));
    await work(store, 'bob', await taskByKey(store, 'exec-s2'));
    await work(store, 'alice', await taskByKey(store, 'exec-s3'));
    await work(store, 'carol', await taskByKey(store, 'verify-r0'), { verdict: 'REVISE', findings: [{ story: 's2', severity: 'major', text: 'no test for an empty file' }] });
    const verify1 = await taskByKey(store, 'verify-r1');
    expect(await store.claim('carol', verify1)).toMatchObject({ ok: false, reason: 'blocked' });
    await work(store, 'bob', await taskByKey(store, 'fix-r1-s2'));
    await work(store, 'carol', verify1, { verdict: 'APPROVE' });
    await work(store, 'lead', await taskByKey(store, 'report'));
    const { state } = (await store.pipeline.load() as { ok: true; value: { state: { status: string; fixRound: number; handoffs: string[] } } }).value;
    expect(state).toMatchObject({ status: 'done', fixRound: 1 });
    const names = readdirSync(path.join(dir, 'handoffs')).sort();
    expect(names).toEqual(['01-plan-prd.md', '02-prd-exec.md', '03-exec-verify.md', '04-verify-fix.md', '05-fix-verify.md', '06-verify-report.md', '07-report-done.md']);
    for (const n of names) {
      const doc = readHandoff(readFileSync(path.join(dir, 'handoffs', n), 'utf8'));
      expect(doc?.intact, n).toBe(true);
      expect(Object.keys(doc!.fields)).toEqual(['kind', 'path', 'contentHash', 'createdAt', 'producer', 'sizeBytes', 'retention', 'expiresAt', 'status']);
      for (const s of ['## Inputs', '## Decisions', '## Rejected Alternatives', '## Risks', '## Outputs', '## Remaining Work']) expect(doc!.body, n).toContain(s);
    }
    const revise = readHandoff(readFileSync(path.join(dir, 'handoffs', '04-verify-fix.md'), 'utf8'))!;
    expect(revise.fields).toMatchObject({ status: 'returned', producer: 'carol', path: 'handoffs/04-verify-fix.md', retention: '30d' });
    expect(revise.body).toContain('no test for an empty file');
    const report = readHandoff(readFileSync(path.join(dir, 'pipeline', 'report.md'), 'utf8'))!;
    expect(report.intact).toBe(true);
    expect(report.body).toContain('stories done: 3');
    expect(report.body).toContain('verdict REVISE by carol in round 0');
    expect(report.body).toContain('verdict APPROVE by carol in round 1');
    const { events } = await store.events.read();
    const returns = events.filter((e) => e.type === 'pipeline_return').map((e) => `${String(e.stage)}:${String(e.producer)}:${String(e.verdict)}`);
    expect(returns).toEqual(['plan:lead:null', 'prd:lead:null', 'exec:alice:null', 'exec:bob:null', 'exec:alice:null', 'verify:carol:REVISE', 'fix:bob:null', 'verify:carol:APPROVE', 'report:lead:null']);
    const dispatches = events.filter((e) => e.type === 'pipeline_dispatch' && e.status === 'dispatched');
    expect(dispatches.map((e) => `${String(e.stage)}→${String(e.consumer)}`)).toContain('verify→carol,alice');
    for (const e of [...dispatches, ...events.filter((x) => x.type === 'pipeline_return')]) expect(Object.keys(e)).toEqual(expect.arrayContaining(['producer', 'consumer', 'status', 'verdict']));
    const verified = await store.tasks.get(verify1);
    expect(verified.ok && verified.value.pipeline).toMatchObject({ verdict: 'APPROVE', stage: 'verify', round: 1 });
  });

  it('pipeline.a-cycle-stops-it-before-any-story-is-dispatched', async () => {
    const { store, dir } = await pipelineTeam();
    await work(store, 'lead', '1', { stories: [{ id: 'a', subject: 'A', blockedBy: ['b'], acceptance: ['x'] }, { id: 'b', subject: 'B', blockedBy: ['a'], acceptance: ['x'] }] });
    expect((await store.tasks.snapshot()).tasks).toHaveLength(1);
    const stage = (await store.events.read()).events.find((e) => e.type === 'pipeline_stage');
    expect(stage).toMatchObject({ from: 'plan', to: 'stopped', cycle: ['a', 'b', 'a'] });
    expect(readFileSync(path.join(dir, 'pipeline', 'report.md'), 'utf8')).toContain('dependency cycle among stories: a -> b -> a');
  });

  it('pipeline.a-routing-cut-short-is-replayed-by-the-next-operation', async () => {
    const { store, dir } = await pipelineTeam();
    expect((await store.claim('lead', '1')).ok).toBe(true);
    // A completion written (with its output) by a process that died before routing it.
    const done = await (store.tasks as TaskBoard).complete('1', 'lead', 'stories', (t: Task) => ({ ok: true, value: { ...t, pipeline: { ...t.pipeline!, output: { stories: STORIES } } } }));
    expect(done.ok).toBe(true);
    expect((await store.tasks.snapshot()).tasks).toHaveLength(1);
    // A fresh store (a restarted TUI, another CLI call) routes it on its next pipeline operation.
    const reopened = await TeamStore.open(dir);
    if (!reopened.ok) throw new Error(reopened.error.message);
    expect(await reopened.store.claim('alice', '1')).toMatchObject({ ok: false, reason: 'already_completed' });
    const keys = (await reopened.store.tasks.snapshot()).tasks.map((t) => t.pipeline?.key);
    expect(keys).toEqual(['plan', 'prd']);
    await reopened.store.pipeline.recover();
    expect((await reopened.store.tasks.snapshot()).tasks).toHaveLength(2);
  });

  it('pipeline.the-cli-completes-a-verify-with-verdict-and-findings', async () => {
    const { store, dir } = await pipelineTeam();
    await work(store, 'lead', '1', { stories: STORIES.slice(0, 1) });
    await work(store, 'lead', await taskByKey(store, 'prd'));
    await work(store, 'alice', await taskByKey(store, 'exec-s1'));
    const v = await taskByKey(store, 'verify-r0');
    const env = { TEAMUX_TEAM_DIR: dir, TEAMUX_MEMBER: '' };
    const self = await cliProcess(['task', 'claim', v, '--as', 'alice', '--json'], env);
    expect(self.code).toBe(3);
    expect(JSON.parse(self.out)).toMatchObject({ ok: false, reason: 'self_verification' });
    expect((await cliProcess(['task', 'claim', v, '--as', 'carol'], env)).code).toBe(0);
    const bad = await cliProcess(['task', 'complete', v, '--as', 'carol', '--verdict', 'MAYBE'], env);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('--verdict "MAYBE" is not a verdict');
    const none = await cliProcess(['task', 'complete', v, '--as', 'carol', '--json'], env);
    expect(JSON.parse(none.out)).toMatchObject({ ok: false, reason: 'invalid_input' });
    const ok = await cliProcess(['task', 'complete', v, '--as', 'carol', '--verdict', 'ITERATE', '--finding', 's1: rename tok to token', '--json'], env);
    expect(ok.code).toBe(0);
    const fix = await taskByKey(store, 'fix-r1-s1');
    expect(JSON.parse(ok.out).nowReady).toContain(fix);
    const t = await store.tasks.get(v);
    expect(t.ok && t.value.pipeline).toMatchObject({ verdict: 'ITERATE', findings: [{ story: 's1', text: 'rename tok to token', severity: 'major' }] });
  });

  it('pipeline.three-failed-attempts-block-the-story-and-its-dependents-others-go-on', async () => {
    const { store } = await pipelineTeam();
    await work(store, 'lead', '1', { stories: STORIES });
    await work(store, 'lead', await taskByKey(store, 'prd'));
    const e1 = await taskByKey(store, 'exec-s1');
    for (let i = 1; i <= 3; i++) {
      expect((await store.claim('alice', e1)).ok).toBe(true);
      const f = await store.tasks.fail(e1, 'alice', `lexer test ${i} fails`);
      expect(f.ok && f.value.status).toBe(i < 3 ? 'pending' : 'blocked');
    }
    const view = await store.pipeline.load();
    if (!view.ok) throw new Error(view.message);
    expect(view.value.state.stories.map((s) => [s.id, s.status])).toEqual([['s1', 'blocked'], ['s2', 'pending'], ['s3', 'blocked']]);
    expect(view.value.state.stories[2]!.reason).toBe('waits for story s1, which is blocked');
    const blocked = (await store.events.read()).events.filter((e) => e.type === 'pipeline_blocked').map((e) => e.story);
    expect(blocked).toEqual(['s1', 's3']);
    // s2 goes on, and the exec gate passes with it alone.
    await work(store, 'bob', await taskByKey(store, 'exec-s2'));
    const after = await store.pipeline.load();
    expect(after.ok && after.value.state.stage).toBe('verify');
    // Reopening or deleting a pipeline task by hand is refused; so is reassigning a verify to an author.
    expect(await store.tasks.reopen(e1, 'lead', 'try again')).toMatchObject({ ok: false, reason: 'illegal_transition' });
    expect(await store.tasks.remove(await taskByKey(store, 'exec-s3'), 'lead')).toMatchObject({ ok: false, reason: 'invalid_input' });
    const v = await taskByKey(store, 'verify-r0');
    expect((await store.claim('carol', v)).ok).toBe(true);
    expect(await store.reassign('lead', v, 'bob', 'carol is busy')).toMatchObject({ ok: false, reason: 'wrong_role' });
    expect(await store.reassign('lead', v, 'alice', 'carol is busy')).toMatchObject({ ok: true });
  });

  it('pipeline.a-hand-broken-state-file-refuses-pipeline-tasks-only', async () => {
    const { store, dir } = await pipelineTeam();
    writeFileSync(path.join(dir, 'pipeline', 'state.json'), '{"version": 1, "status": "maybe"');
    const r = await store.claim('lead', '1');
    expect(r).toMatchObject({ ok: false, reason: 'not_found' });
    expect(!r.ok && r.message).toContain('state.json cannot be read');
    // A state that parses but contradicts itself names the key.
    const good = { version: 1, status: 'running', stage: 'plan', fixRound: 1, fixBase: 2, stories: [], verdicts: [], routed: [], stoppedReason: null, cycle: null, warnings: [], handoffs: [], updatedAt: 'now' };
    writeFileSync(path.join(dir, 'pipeline', 'state.json'), JSON.stringify(good));
    const r2 = await store.claim('lead', '1');
    expect(!r2.ok && r2.message).toMatch(/state\.json cannot be read: fixBase: fixBase \(rounds before the last retry\) is larger than fixRound$/);
    const other = await store.tasks.create({ subject: 'outside the pipeline' });
    expect(other.ok && (await store.claim('bob', other.value.id)).ok).toBe(true);
    expect(other.ok && (await store.complete('bob', other.value.id, 'done')).ok).toBe(true);
  });
});
