// The staged pipeline's pure rules: stage order, story cap, cycle stop, waves, verifier ≠ author,
// parallel cap, three failed attempts, verdict routing and the bounded fix loop.
import { describe, expect, it } from 'vitest';
import { checkCompletion, checkPipelineClaim, checkStories, currentWave, findCycle, initialState, PipelineSettings, waves, type PipelineState, type PipelineTaskLike, type StoryInput, type TaskPipeline } from '../../src/protocol/pipeline.js';
import { route, storyAttemptFailed, type Routing } from '../../src/protocol/pipeline-route.js';

const NOW = '2026-01-01T00:00:00.000Z';
const settings = (patch: Partial<PipelineSettings> = {}): PipelineSettings => PipelineSettings.parse({
  version: 1, goal: 'a parser', roles: { plan: ['lead'], execute: ['alice', 'bob'], verify: ['carol', 'alice'] }, storyCap: {}, ...patch,
});
const story = (id: string, blockedBy: string[] = []): StoryInput => ({ id, subject: `story ${id}`, blockedBy, acceptance: [`${id} works`] });
const meta = (stage: TaskPipeline['stage'], key: string, extra: Partial<TaskPipeline> = {}): TaskPipeline => ({ stage, key, story: null, round: 0, verdict: null, findings: [], output: null, ...extra });
type BoardTask = PipelineTaskLike & { pipeline: TaskPipeline };
const t = (id: string, m: TaskPipeline, status: BoardTask['status'] = 'pending', owner: string | null = null): BoardTask => ({ id, status, owner, pipeline: m });

/** Apply a routing's created tasks to a board, numbering them on from the board's size. */
function grow(board: BoardTask[], r: Routing): BoardTask[] {
  return [...board, ...r.create.map((c, i) => t(String(board.length + i + 1), meta(c.stage, c.key, { story: c.story, round: c.round })))];
}
function complete(board: BoardTask[], key: string, owner: string): BoardTask[] {
  return board.map((x) => (x.pipeline.key === key ? { ...x, status: 'completed' as const, owner } : x));
}
function byKey(board: BoardTask[], key: string): BoardTask {
  const found = board.find((x) => x.pipeline.key === key);
  if (!found) throw new Error(`no task ${key}`);
  return found;
}

/** Plan s1, s2 (wave 1), s3 after s1 (wave 2); prd done; every exec task completed by `authors`. */
function throughExec(s: PipelineSettings, authors: Record<string, string> = { s1: 'alice', s2: 'bob', s3: 'alice' }): { state: PipelineState; board: BoardTask[] } {
  let board: BoardTask[] = [t('1', meta('plan', 'plan'), 'completed', 'lead')];
  let r = route(s, initialState(NOW), { id: '1', owner: 'lead', result: null, pipeline: meta('plan', 'plan') }, { stories: [story('s1'), story('s2'), story('s3', ['s1'])] }, board, NOW);
  board = complete(grow(board, r), 'prd', 'lead');
  r = route(s, r.state, { id: '2', owner: 'lead', result: null, pipeline: meta('prd', 'prd') }, { criteria: [{ story: 's1', checks: ['npm test -- s1'] }] }, board, NOW);
  board = grow(board, r);
  let state = r.state;
  for (const [id, who] of Object.entries(authors)) {
    board = complete(board, `exec-${id}`, who);
    const done = byKey(board, `exec-${id}`);
    r = route(s, state, { id: done.id, owner: who, result: null, pipeline: done.pipeline }, {}, board, NOW);
    state = r.state;
    board = grow(board, r);
  }
  return { state, board };
}

describe('stage order', () => {
  it('pipeline.stages-run-plan-prd-exec-verify-fix-report', () => {
    const s = settings();
    const seen: string[] = [];
    let { state, board } = throughExec(s);
    seen.push(state.stage);
    const verify = byKey(board, 'verify-r0');
    let r = route(s, state, { id: verify.id, owner: 'carol', result: null, pipeline: verify.pipeline }, { verdict: 'REVISE', findings: [{ story: 's2', severity: 'major', text: 'no error case' }] }, complete(board, 'verify-r0', 'carol'), NOW);
    board = grow(complete(board, 'verify-r0', 'carol'), r);
    seen.push(r.state.stage);
    board = complete(board, 'fix-r1-s2', 'bob');
    r = route(s, r.state, { id: byKey(board, 'fix-r1-s2').id, owner: 'bob', result: null, pipeline: byKey(board, 'fix-r1-s2').pipeline }, {}, board, NOW);
    seen.push(r.state.stage);
    board = complete(board, 'verify-r1', 'carol');
    r = route(s, r.state, { id: byKey(board, 'verify-r1').id, owner: 'carol', result: null, pipeline: byKey(board, 'verify-r1').pipeline }, { verdict: 'APPROVE' }, board, NOW);
    seen.push(r.state.stage);
    state = r.state;
    board = complete(grow(board, r), 'report', 'lead');
    r = route(s, state, { id: byKey(board, 'report').id, owner: 'lead', result: 'all good', pipeline: byKey(board, 'report').pipeline }, {}, board, NOW);
    expect(seen).toEqual(['verify', 'fix', 'verify', 'report']);
    expect(r.state.status).toBe('done');
    expect(r.transition).toMatchObject({ from: 'report', to: 'done' });
  });

  it('claim.refused-stage_order-before-the-previous-gate', () => {
    const s = settings();
    const state = initialState(NOW);
    const exec = t('5', meta('exec', 'exec-s1', { story: 's1' }));
    const r = checkPipelineClaim({ settings: s, state, tasks: [exec] }, exec, 'alice');
    expect(r).toMatchObject({ ok: false, reason: 'stage_order' });
    expect(checkPipelineClaim({ settings: s, state: { ...state, stage: 'exec' }, tasks: [exec] }, exec, 'alice').ok).toBe(true);
  });

  it('claim.refused-once-the-pipeline-ended', () => {
    const s = settings();
    const plan = t('1', meta('plan', 'plan'));
    const r = checkPipelineClaim({ settings: s, state: { ...initialState(NOW), status: 'stopped', stoppedReason: 'cycle' }, tasks: [plan] }, plan, 'lead');
    expect(r).toMatchObject({ ok: false, reason: 'stage_order' });
  });

  it('claim.refused-wrong_role-for-a-member-without-the-stage-role', () => {
    const s = settings();
    const plan = t('1', meta('plan', 'plan'));
    expect(checkPipelineClaim({ settings: s, state: initialState(NOW), tasks: [plan] }, plan, 'alice')).toMatchObject({ ok: false, reason: 'wrong_role' });
    expect(checkPipelineClaim({ settings: s, state: initialState(NOW), tasks: [plan] }, plan, 'lead').ok).toBe(true);
    // A stage is open to everyone only when none of its roles lists members: review left out does not open verify.
    const verify = t('7', meta('verify', 'verify-r0'));
    const atVerify = { ...initialState(NOW), stage: 'verify' as const };
    expect(checkPipelineClaim({ settings: s, state: atVerify, tasks: [verify] }, verify, 'dan')).toMatchObject({ ok: false, reason: 'wrong_role' });
    const reviewers = settings({ roles: { plan: null, execute: null, test: null, verify: null, review: ['dan'] } });
    expect(checkPipelineClaim({ settings: reviewers, state: atVerify, tasks: [verify] }, verify, 'dan').ok).toBe(true);
    expect(checkPipelineClaim({ settings: reviewers, state: atVerify, tasks: [verify] }, verify, 'erin')).toMatchObject({ ok: false, reason: 'wrong_role' });
    const open = settings({ roles: { plan: null, execute: null, test: null, verify: null, review: null } });
    expect(checkPipelineClaim({ settings: open, state: initialState(NOW), tasks: [plan] }, plan, 'anyone').ok).toBe(true);
  });
});

describe('stories', () => {
  it('cycle.stops-the-pipeline-before-any-story-is-dispatched', () => {
    const s = settings();
    const stories = [story('a', ['c']), story('b', ['a']), story('c', ['b']), story('d')];
    expect(findCycle(stories)).toEqual(['a', 'c', 'b', 'a']);
    const r = route(s, initialState(NOW), { id: '1', owner: 'lead', result: null, pipeline: meta('plan', 'plan') }, { stories }, [], NOW);
    expect(r.create).toEqual([]);
    expect(r.state).toMatchObject({ status: 'stopped', cycle: ['a', 'c', 'b', 'a'], stories: [] });
    expect(r.state.stoppedReason).toContain('a -> c -> b -> a');
    expect(r.transition).toMatchObject({ from: 'plan', to: 'stopped' });
  });

  it('cycle.self-dependency-is-a-cycle', () => {
    expect(findCycle([story('a', ['a'])])).toEqual(['a', 'a']);
    expect(findCycle([story('a'), story('b', ['a'])])).toBeNull();
  });

  it('story-cap.warns-at-10-and-refuses-over-20', () => {
    const s = settings();
    const n = (k: number) => Array.from({ length: k }, (_, i) => story(`s${i + 1}`));
    expect(checkStories(n(9), s)).toMatchObject({ ok: true, value: { warnings: [] } });
    const ten = checkStories(n(10), s);
    expect(ten.ok && ten.value.warnings[0]).toContain('soft cap of 10');
    expect(checkStories(n(20), s).ok).toBe(true);
    expect(checkStories(n(21), s)).toMatchObject({ ok: false, reason: 'story_cap' });
    // The refusal happens at completion, so the plan task stays in progress.
    expect(checkCompletion(meta('plan', 'plan'), { stories: n(21) }, s, initialState(NOW))).toMatchObject({ ok: false, reason: 'story_cap' });
    const warned = route(s, initialState(NOW), { id: '1', owner: 'lead', result: null, pipeline: meta('plan', 'plan') }, { stories: n(12) }, [], NOW);
    expect(warned.state.warnings).toHaveLength(1);
    expect(warned.transition?.risks[0]).toContain('12 stories');
  });

  it('stories.refused-when-ids-repeat-blockers-are-unknown-or-criteria-missing', () => {
    const s = settings();
    expect(checkStories([story('a'), story('a')], s)).toMatchObject({ ok: false, reason: 'invalid_input' });
    expect(checkStories([story('a', ['zz'])], s)).toMatchObject({ ok: false, reason: 'invalid_input' });
    expect(checkStories([{ id: 'a', subject: 'x', acceptance: [] }], s)).toMatchObject({ ok: false, reason: 'invalid_input' });
    expect(checkStories([], s)).toMatchObject({ ok: false, reason: 'invalid_input' });
    expect(checkCompletion(meta('plan', 'plan'), {}, s, initialState(NOW))).toMatchObject({ ok: false, reason: 'invalid_input' });
  });

  it('waves.follow-the-dag', () => {
    const w = waves([story('a'), story('b'), story('c', ['a']), story('d', ['c', 'b'])]);
    expect(Object.fromEntries(w)).toEqual({ a: 1, b: 1, c: 2, d: 3 });
  });

  it('exec.tasks-are-created-blocked-by-their-story-dependencies', () => {
    const s = settings();
    let board: BoardTask[] = [t('1', meta('plan', 'plan'), 'completed', 'lead')];
    let r = route(s, initialState(NOW), { id: '1', owner: 'lead', result: null, pipeline: meta('plan', 'plan') }, { stories: [story('s1'), story('s2', ['s1'])] }, board, NOW);
    board = complete(grow(board, r), 'prd', 'lead');
    r = route(s, r.state, { id: '2', owner: 'lead', result: null, pipeline: meta('prd', 'prd') }, { criteria: [{ story: 's2', checks: ['test -f b'] }] }, board, NOW);
    expect(r.create.map((c) => [c.key, c.blockedByKeys])).toEqual([['exec-s1', []], ['exec-s2', ['exec-s1']]]);
    expect(r.state.stories.map((x) => x.criteria)).toEqual([['s1 works'], ['test -f b']]);
    expect(currentWave(r.state)).toBe(1);
  });
});

describe('claims', () => {
  it('self_verification.refused-for-an-author-allowed-for-another-verifier', () => {
    const s = settings();
    const { state, board } = throughExec(s);
    const verify = byKey(board, 'verify-r0');
    expect(state.stage).toBe('verify');
    expect(checkPipelineClaim({ settings: s, state, tasks: board }, verify, 'alice')).toMatchObject({ ok: false, reason: 'self_verification' });
    expect(checkPipelineClaim({ settings: s, state, tasks: board }, verify, 'carol').ok).toBe(true);
  });

  it('self_verification.a-fixer-becomes-an-author', () => {
    const s = settings({ roles: { plan: ['lead'], execute: ['alice', 'bob', 'carol'], test: null, verify: ['carol', 'dan'], review: null } });
    const { state, board } = throughExec(s);
    const verify = byKey(board, 'verify-r0');
    let r = route(s, state, { id: verify.id, owner: 'dan', result: null, pipeline: verify.pipeline }, { verdict: 'ITERATE', findings: [{ story: 's1', severity: 'minor', text: 'rename' }] }, complete(board, 'verify-r0', 'dan'), NOW);
    let b = complete(grow(complete(board, 'verify-r0', 'dan'), r), 'fix-r1-s1', 'carol');
    r = route(s, r.state, { id: byKey(b, 'fix-r1-s1').id, owner: 'carol', result: null, pipeline: byKey(b, 'fix-r1-s1').pipeline }, {}, b, NOW);
    expect(r.state.stage).toBe('verify');
    expect(checkPipelineClaim({ settings: s, state: r.state, tasks: b }, byKey(b, 'verify-r1'), 'carol')).toMatchObject({ ok: false, reason: 'self_verification' });
    expect(checkPipelineClaim({ settings: s, state: r.state, tasks: b }, byKey(b, 'verify-r1'), 'dan').ok).toBe(true);
  });

  it('parallel_cap.refused-at-max_parallel', () => {
    const s = settings({ maxParallel: 2 });
    const state = { ...initialState(NOW), stage: 'exec' as const };
    const running = [t('3', meta('exec', 'exec-a', { story: 'a' }), 'in_progress', 'alice'), t('4', meta('exec', 'exec-b', { story: 'b' }), 'in_progress', 'bob')];
    const next = t('5', meta('exec', 'exec-c', { story: 'c' }));
    expect(checkPipelineClaim({ settings: s, state, tasks: [...running, next] }, next, 'alice')).toMatchObject({ ok: false, reason: 'parallel_cap' });
    const one = [running[0]!, { ...running[1]!, status: 'completed' as const }];
    expect(checkPipelineClaim({ settings: s, state, tasks: [...one, next] }, next, 'alice').ok).toBe(true);
    expect(PipelineSettings.parse({ version: 1, roles: {}, storyCap: {} }).maxParallel).toBe(5);
  });
});

describe('verdicts', () => {
  it('verdict.approve-and-accept-with-reservations-go-on-to-the-report', () => {
    for (const verdict of ['APPROVE', 'ACCEPT_WITH_RESERVATIONS'] as const) {
      const s = settings();
      const { state, board } = throughExec(s);
      const v = byKey(board, 'verify-r0');
      const r = route(s, state, { id: v.id, owner: 'carol', result: null, pipeline: v.pipeline }, { verdict }, board, NOW);
      expect(r.state.stage).toBe('report');
      expect(r.create.map((c) => c.key)).toEqual(['report']);
      expect(r.state.verdicts.map((x) => x.verdict)).toEqual([verdict]);
    }
  });

  it('verdict.iterate-revise-reject-create-fix-tasks-for-the-affected-stories-and-a-new-verify', () => {
    for (const verdict of ['ITERATE', 'REVISE', 'REJECT'] as const) {
      const s = settings();
      const { state, board } = throughExec(s);
      const v = byKey(board, 'verify-r0');
      const r = route(s, state, { id: v.id, owner: 'carol', result: null, pipeline: v.pipeline }, { verdict, findings: [{ story: 's3', severity: 'major', text: 'crashes on empty input' }] }, board, NOW);
      expect(r.state).toMatchObject({ stage: 'fix', fixRound: 1 });
      expect(r.create.map((c) => [c.key, c.blockedByKeys])).toEqual([['fix-r1-s3', []], ['verify-r1', ['fix-r1-s3']]]);
      expect(r.create[0]!.description).toContain('crashes on empty input');
    }
  });

  it('verdict.a-finding-without-a-story-affects-every-finished-story', () => {
    const s = settings();
    const { state, board } = throughExec(s);
    const v = byKey(board, 'verify-r0');
    const r = route(s, state, { id: v.id, owner: 'carol', result: null, pipeline: v.pipeline }, { verdict: 'REJECT', findings: [{ severity: 'critical', text: 'no tests at all' }] }, board, NOW);
    expect(r.create.map((c) => c.key)).toEqual(['fix-r1-s1', 'fix-r1-s2', 'fix-r1-s3', 'verify-r1']);
  });

  it('verdict.required-on-verify-and-refused-elsewhere', () => {
    const s = settings();
    expect(checkCompletion(meta('verify', 'verify-r0'), {}, s, initialState(NOW))).toMatchObject({ ok: false, reason: 'invalid_input' });
    expect(checkCompletion(meta('exec', 'exec-a'), { verdict: 'APPROVE' }, s, initialState(NOW))).toMatchObject({ ok: false, reason: 'invalid_input' });
    expect(checkCompletion(meta('verify', 'verify-r0'), { verdict: 'REVISE', findings: [{ story: 'nope', severity: 'major', text: 'x' }] }, s, initialState(NOW))).toMatchObject({ ok: false, reason: 'invalid_input' });
  });

  it('fix-loop.ends-BLOCKED_AFTER_VERIFY-after-max_fix_rounds', () => {
    const s = settings({ maxFixRounds: 3 });
    let { state, board } = throughExec(s);
    for (let round = 0; ; round++) {
      const v = byKey(board, `verify-r${round}`);
      board = complete(board, v.pipeline.key, 'carol');
      const r = route(s, state, { id: v.id, owner: 'carol', result: null, pipeline: v.pipeline }, { verdict: 'REVISE', findings: [{ story: 's1', severity: 'major', text: 'still wrong' }] }, board, NOW);
      state = r.state;
      board = grow(board, r);
      if (round === 3) {
        expect(r.create).toEqual([]);
        expect(state).toMatchObject({ status: 'BLOCKED_AFTER_VERIFY', fixRound: 3 });
        expect(r.transition).toMatchObject({ from: 'verify', to: 'BLOCKED_AFTER_VERIFY', verdict: 'REVISE' });
        break;
      }
      expect(state.fixRound).toBe(round + 1);
      const fix = byKey(board, `fix-r${round + 1}-s1`);
      board = complete(board, fix.pipeline.key, 'alice');
      state = route(s, state, { id: fix.id, owner: 'alice', result: null, pipeline: fix.pipeline }, {}, board, NOW).state;
      expect(state.stage).toBe('verify');
    }
    expect(state.verdicts).toHaveLength(4);
  });
});

describe('attempts', () => {
  it('three-failed-attempts.block-the-story-and-its-dependents-others-go-on', () => {
    const s = settings();
    let board: BoardTask[] = [t('1', meta('plan', 'plan'), 'completed', 'lead')];
    let r = route(s, initialState(NOW), { id: '1', owner: 'lead', result: null, pipeline: meta('plan', 'plan') }, { stories: [story('s1'), story('s2'), story('s3', ['s1'])] }, board, NOW);
    board = complete(grow(board, r), 'prd', 'lead');
    r = route(s, r.state, { id: '2', owner: 'lead', result: null, pipeline: meta('prd', 'prd') }, {}, board, NOW);
    board = grow(board, r);
    expect(storyAttemptFailed(s, r.state, 's1', 2, 'tests fail', board, NOW).blocked).toEqual([]);
    const third = storyAttemptFailed(s, r.state, 's1', 3, 'tests fail', board, NOW);
    expect(third.blocked).toEqual(['s1', 's3']);
    expect(third.state.stories.map((x) => [x.id, x.status])).toEqual([['s1', 'blocked'], ['s2', 'pending'], ['s3', 'blocked']]);
    expect(third.state.stories[0]!.reason).toBe('attempt 3 of 3 failed: tests fail');
    expect(third.create).toEqual([]); // s2 is still open
    // s2 finishes: the exec gate passes with the blocked stories left out of the verify.
    board = complete(board, 'exec-s2', 'bob');
    const after = route(s, third.state, { id: byKey(board, 'exec-s2').id, owner: 'bob', result: null, pipeline: byKey(board, 'exec-s2').pipeline }, {}, board, NOW);
    expect(after.state.stage).toBe('verify');
    expect(after.create[0]!.description).not.toContain('s1:');
    expect(after.transition?.risks.join('\n')).toContain('story s1 is blocked');
  });
});
