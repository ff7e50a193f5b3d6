// The lead's retry of pipeline stories, pure: a story blocked by its third failed attempt is reopened
// with the stories waiting for it; in a fix round it gets a fix task the round's verify waits for; a
// pipeline that ended BLOCKED_AFTER_VERIFY gets a new fix round whose bound starts again; refusals
// (unknown story, a story blocked only by its blocker, a story not blocked, the wrong stage, a cycle)
// say why.
import { describe, expect, it } from 'vitest';
import { initialState, PipelineSettings, type PipelineState, type PipelineTaskLike, type StoryInput, type TaskPipeline } from '../../src/protocol/pipeline.js';
import { route, storyAttemptFailed, type Routing } from '../../src/protocol/pipeline-route.js';
import { retryStories } from '../../src/protocol/pipeline-retry.js';

const NOW = '2026-01-01T00:00:00.000Z';
const settings = PipelineSettings.parse({ version: 1, goal: 'a parser', roles: { plan: ['lead'], execute: ['alice', 'bob'], verify: ['carol'] }, storyCap: {}, maxFixRounds: 3 });
const story = (id: string, blockedBy: string[] = []): StoryInput => ({ id, subject: `story ${id}`, blockedBy, acceptance: [`${id} works`] });
const meta = (stage: TaskPipeline['stage'], key: string, extra: Partial<TaskPipeline> = {}): TaskPipeline => ({ stage, key, story: null, round: 0, verdict: null, findings: [], output: null, ...extra });
type BoardTask = PipelineTaskLike & { pipeline: TaskPipeline };
const t = (id: string, m: TaskPipeline, status: BoardTask['status'] = 'pending', owner: string | null = null): BoardTask => ({ id, status, owner, pipeline: m });
function grow(board: BoardTask[], r: { create: Routing['create'] }): BoardTask[] {
  return [...board, ...r.create.map((c, i) => t(String(board.length + i + 1), meta(c.stage, c.key, { story: c.story, round: c.round })))];
}
const setStatus = (board: BoardTask[], key: string, status: BoardTask['status'], owner: string | null = null): BoardTask[] => board.map((x) => (x.pipeline.key === key ? { ...x, status, owner } : x));
const byKey = (board: BoardTask[], key: string): BoardTask => board.find((x) => x.pipeline.key === key) ?? (() => { throw new Error(`no ${key}`); })();
const routeDone = (state: PipelineState, board: BoardTask[], key: string, owner: string, fields = {}): Routing => {
  const done = byKey(board, key);
  return route(settings, state, { id: done.id, owner, result: null, pipeline: done.pipeline }, fields, board, NOW);
};

/** s1, s2, s3 (after s1) at exec; s1's task blocked by three failures, so s3 waits blocked. */
function s1Blocked(): { state: PipelineState; board: BoardTask[] } {
  let board: BoardTask[] = [t('1', meta('plan', 'plan'), 'completed', 'lead')];
  let r = route(settings, initialState(NOW), { id: '1', owner: 'lead', result: null, pipeline: meta('plan', 'plan') }, { stories: [story('s1'), story('s2'), story('s3', ['s1'])] }, board, NOW);
  board = setStatus(grow(board, r), 'prd', 'completed', 'lead');
  r = routeDone(r.state, board, 'prd', 'lead');
  board = setStatus(grow(board, r), 'exec-s1', 'blocked');
  const blocked = storyAttemptFailed(settings, r.state, 's1', 3, 'lexer test fails', board, NOW);
  return { state: blocked.state, board };
}

describe('retry while exec runs', () => {
  it('retry.reopens-the-blocked-story-task-and-its-waiting-dependents-go-on', () => {
    const { state, board } = s1Blocked();
    const r = retryStories(settings, state, ['s1'], board, 'lead', 'fixture fixed', NOW);
    if (!r.ok) throw new Error(r.message);
    expect(r.value).toMatchObject({ reopen: [byKey(board, 'exec-s1').id], create: [], waits: [], retried: ['s1'], unblocked: ['s3'], transition: null });
    expect(r.value.state.stories.map((s) => [s.id, s.status, s.reason])).toEqual([['s1', 'pending', null], ['s2', 'pending', null], ['s3', 'pending', null]]);
    expect(r.value.state).toMatchObject({ status: 'running', stage: 'exec', fixRound: 0 });
    // Left out, the stories to retry are the ones blocked by their own attempts.
    const all = retryStories(settings, state, [], board, 'lead', null, NOW);
    expect(all.ok && all.value.retried).toEqual(['s1']);
  });

  it('retry.resumes-a-pipeline-stopped-because-every-story-was-blocked', () => {
    let board: BoardTask[] = [t('1', meta('plan', 'plan'), 'completed', 'lead')];
    let r = route(settings, initialState(NOW), { id: '1', owner: 'lead', result: null, pipeline: meta('plan', 'plan') }, { stories: [story('s1')] }, board, NOW);
    board = setStatus(grow(board, r), 'prd', 'completed', 'lead');
    r = routeDone(r.state, board, 'prd', 'lead');
    board = setStatus(grow(board, r), 'exec-s1', 'blocked');
    const stopped = storyAttemptFailed(settings, r.state, 's1', 3, 'no compiler', board, NOW);
    expect(stopped.state).toMatchObject({ status: 'stopped', stoppedReason: 'every story is blocked' });
    const again = retryStories(settings, stopped.state, ['s1'], board, 'lead', null, NOW);
    expect(again.ok && again.value.state).toMatchObject({ status: 'running', stage: 'exec', stoppedReason: null });
  });

  it('retry.refusals-say-why', () => {
    const { state, board } = s1Blocked();
    expect(retryStories(settings, state, ['s9'], board, 'lead', null, NOW)).toMatchObject({ ok: false, reason: 'not_found', message: '"s9" is not a story of this pipeline (stories: s1, s2, s3)' });
    expect(retryStories(settings, state, ['s3'], board, 'lead', null, NOW)).toMatchObject({ ok: false, reason: 'illegal_transition', message: 'story s3 is blocked because waits for story s1, which is blocked: retry that story, and s3 follows' });
    expect(retryStories(settings, state, ['s2'], board, 'lead', null, NOW)).toMatchObject({ ok: false, reason: 'illegal_transition', message: 'story s2 is pending, not blocked' });
    const verifying: PipelineState = { ...state, stage: 'verify' };
    expect(retryStories(settings, verifying, ['s1'], board, 'lead', null, NOW)).toMatchObject({ ok: false, reason: 'stage_order', message: expect.stringContaining('the pipeline is at verify') });
    const cycle: PipelineState = { ...initialState(NOW), status: 'stopped', cycle: ['a', 'b', 'a'] };
    expect(retryStories(settings, cycle, [], [], 'lead', null, NOW)).toMatchObject({ ok: false, reason: 'illegal_transition', message: expect.stringContaining('dependency cycle (a -> b -> a)') });
    expect(retryStories(settings, { ...state, stories: state.stories.map((s) => ({ ...s, status: 'pending' as const, reason: null })) }, [], board, 'lead', null, NOW)).toMatchObject({ ok: false, reason: 'illegal_transition', message: expect.stringMatching(/^no story to retry/) });
  });
});

describe('retry in a fix round and after the pipeline ended', () => {
  /** s1 blocked at exec, s2 done by bob, verify REVISE on s2: fix round 1 runs. */
  function fixRound(): { state: PipelineState; board: BoardTask[] } {
    let { state, board } = s1Blocked();
    board = setStatus(board, 'exec-s2', 'completed', 'bob');
    let r = routeDone(state, board, 'exec-s2', 'bob');
    board = setStatus(grow(board, r), 'verify-r0', 'completed', 'carol');
    r = routeDone(r.state, board, 'verify-r0', 'carol', { verdict: 'REVISE', findings: [{ story: 's2', severity: 'major', text: 'no error case' }] });
    board = grow(board, r);
    state = r.state;
    expect(state).toMatchObject({ stage: 'fix', fixRound: 1 });
    return { state, board };
  }

  it('retry.in-a-fix-round-makes-fix-tasks-the-rounds-verify-waits-for', () => {
    const { state, board } = fixRound();
    const r = retryStories(settings, state, ['s1'], board, 'lead', null, NOW);
    if (!r.ok) throw new Error(r.message);
    expect(r.value.create.map((c) => [c.key, c.blockedByKeys])).toEqual([['fix-r1-s1', []], ['fix-r1-s3', ['fix-r1-s1']]]);
    expect(r.value.waits).toEqual([['verify-r1', 'fix-r1-s1'], ['verify-r1', 'fix-r1-s3']]);
    expect(r.value.reopen).toEqual([]);
    expect(r.value.state).toMatchObject({ stage: 'fix', fixRound: 1, fixBase: 0 });
  });

  it('retry.after-BLOCKED_AFTER_VERIFY-starts-a-fix-round-with-a-fresh-bound', () => {
    let { state, board } = fixRound();
    // Three rounds of REVISE on s2: BLOCKED_AFTER_VERIFY.
    for (let round = 1; ; round++) {
      board = setStatus(board, `fix-r${round}-s2`, 'completed', 'bob');
      state = routeDone(state, board, `fix-r${round}-s2`, 'bob').state;
      board = setStatus(board, `verify-r${round}`, 'completed', 'carol');
      const r = routeDone(state, board, `verify-r${round}`, 'carol', { verdict: 'REVISE', findings: [{ story: 's2', severity: 'major', text: `still wrong ${round}` }] });
      state = r.state;
      board = grow(board, r);
      if (state.status !== 'running') break;
    }
    expect(state).toMatchObject({ status: 'BLOCKED_AFTER_VERIFY', fixRound: 3 });
    // By default: the stories the last verdict sent back, and the blocked one (with its dependent).
    const r = retryStories(settings, state, [], board, 'lead', 'one more go', NOW);
    if (!r.ok) throw new Error(r.message);
    expect(r.value.retried).toEqual(['s1', 's2']);
    expect(r.value.unblocked).toEqual(['s3']);
    expect(r.value.create.map((c) => c.key)).toEqual(['fix-r4-s1', 'fix-r4-s2', 'fix-r4-s3', 'verify-r4']);
    expect(r.value.create.at(-1)!.blockedByKeys).toEqual(['fix-r4-s1', 'fix-r4-s2', 'fix-r4-s3']);
    expect(r.value.create[1]!.description).toContain('- major: still wrong 3');
    expect(r.value.state).toMatchObject({ status: 'running', stage: 'fix', fixRound: 4, fixBase: 3, stoppedReason: null });
    expect(r.value.transition).toMatchObject({ from: 'verify', to: 'fix', producer: 'lead', outputs: ['fix-r4-s1', 'fix-r4-s2', 'fix-r4-s3', 'verify-r4'] });
    // The bound counts again from round 4: rounds 4, 5 and 6, then it blocks again.
    state = r.value.state;
    board = grow(board, r.value);
    for (let round = 4; ; round++) {
      for (const s of ['s1', 's2', 's3']) board = setStatus(board, `fix-r${round}-${s}`, 'completed', 'bob');
      for (const s of ['s1', 's2', 's3']) state = routeDone(state, board, `fix-r${round}-${s}`, 'bob').state;
      expect(state.stage).toBe('verify');
      board = setStatus(board, `verify-r${round}`, 'completed', 'carol');
      const v = routeDone(state, board, `verify-r${round}`, 'carol', { verdict: 'REJECT', findings: [] });
      state = v.state;
      board = grow(board, v);
      if (state.status !== 'running') break;
    }
    expect(state).toMatchObject({ status: 'BLOCKED_AFTER_VERIFY', fixRound: 6, fixBase: 3 });
    expect(state.stoppedReason).toContain('after 3 fix rounds');
    // A done pipeline's finished story is not retried.
    const done: PipelineState = { ...state, status: 'done' };
    expect(retryStories(settings, done, ['s2'], board, 'lead', null, NOW)).toMatchObject({ ok: false, reason: 'illegal_transition', message: expect.stringContaining('story s2 is done, not blocked') });
  });
});
