/**
 * The pipeline's routing, pure: what a completed pipeline task leads to (the next stage, the tasks
 * to create, the transition its handoff document describes), and what a story blocked by failed
 * attempts does to its stage's gate. Verdicts are fields: APPROVE and ACCEPT_WITH_RESERVATIONS go on
 * to the report; ITERATE, REVISE and REJECT make fix tasks for the stories the findings name and a new
 * verify task, until max_fix_rounds rounds are spent (then BLOCKED_AFTER_VERIFY). The rules it builds
 * on (stories, cycles, waves) are in pipeline.ts.
 */
import {
  checkStories, CriteriaInput, findCycle, MAX_FAILED_ATTEMPTS, verdictPasses, waves,
  type CompletionFields, type Finding, type PipelineSettings, type PipelineState, type PipelineTaskLike, type PipelineTaskSpec, type Stage, type Story, type TaskPipeline, type Verdict,
} from './pipeline.js';

/** A stage transition, for its handoff document and events. */
export interface Transition {
  from: Stage;
  to: Stage | 'done' | 'stopped' | 'BLOCKED_AFTER_VERIFY';
  producer: string;
  /** Verdict of the verify that caused it, if any. */
  verdict: Verdict | null;
  decisions: string[];
  rejected: string[];
  risks: string[];
  /** Keys of the tasks it dispatches. */
  outputs: string[];
}

/** What routing a completion decided. */
export interface Routing {
  state: PipelineState;
  create: PipelineTaskSpec[];
  transition: Transition | null;
  warnings: string[];
}

/** A completed task as routing reads it. */
export interface CompletedTask {
  id: string;
  owner: string;
  result: string | null;
  pipeline: TaskPipeline;
}

/**
 * Route a completed pipeline task: record what it produced and, when its stage's gate passed, move
 * to the next stage and say which tasks to create. `board` is every pipeline task after the
 * completion (to see whether the rest of a stage is done). Deterministic: same inputs, same routing.
 */
export function route(settings: PipelineSettings, state: PipelineState, done: CompletedTask, fields: CompletionFields, board: readonly PipelineTaskLike[], now: string): Routing {
  let next: PipelineState = { ...state, routed: [...state.routed, done.id], updatedAt: now };
  const meta = done.pipeline;
  const none: Routing = { state: next, create: [], transition: null, warnings: [] };
  if (state.status !== 'running') return none;
  switch (meta.stage) {
    case 'plan': {
      const checked = checkStories(fields.stories ?? [], settings);
      if (!checked.ok) return none; // refused before the completion was written; a replay of a bad file changes nothing
      const stories = checked.value.stories;
      const warnings = checked.value.warnings;
      next = { ...next, warnings: [...next.warnings, ...warnings] };
      const cycle = findCycle(stories);
      if (cycle) {
        next = { ...next, status: 'stopped', cycle, stoppedReason: `dependency cycle among stories: ${cycle.join(' -> ')}` };
        return { state: next, create: [], warnings, transition: { from: 'plan', to: 'stopped', producer: done.owner, verdict: null, decisions: [`stop: the stories' dependencies form a cycle ${cycle.join(' -> ')}; no story was dispatched`], rejected: ['dispatching the stories anyway: a cycle can never finish'], risks: warnings, outputs: [] } };
      }
      const w = waves(stories);
      next = { ...next, stage: 'prd', stories: stories.map((s) => ({ ...s, criteria: [], wave: w.get(s.id)!, status: 'pending', reason: null, authors: [] })) };
      const prd: PipelineTaskSpec = { key: 'prd', stage: 'prd', story: null, round: 0, subject: 'PRD: machine-checkable acceptance criteria per story', description: `Write checks for each story (${stories.map((s) => s.id).join(', ')}); complete with the criteria field.`, blockedByKeys: [] };
      return { state: next, create: [prd], warnings, transition: { from: 'plan', to: 'prd', producer: done.owner, verdict: null, decisions: stories.map((s) => `story ${s.id} (wave ${w.get(s.id)}): ${s.subject}${s.blockedBy.length ? ` — after ${s.blockedBy.join(', ')}` : ''}`), rejected: [], risks: warnings, outputs: ['prd'] } };
    }
    case 'prd': {
      const criteria = CriteriaInput.safeParse(fields.criteria ?? []);
      const byStory = new Map((criteria.success ? criteria.data : []).map((c) => [c.story, c.checks]));
      next = { ...next, stage: 'exec', stories: next.stories.map((s) => ({ ...s, criteria: byStory.get(s.id) ?? s.acceptance })) };
      const create = next.stories.map((s) => execTask(s));
      return { state: next, create, warnings: [], transition: { from: 'prd', to: 'exec', producer: done.owner, verdict: null, decisions: next.stories.map((s) => `story ${s.id}: ${s.criteria.join('; ')}`), rejected: [], risks: [], outputs: create.map((c) => c.key) } };
    }
    case 'exec':
    case 'fix': {
      next = { ...next, stories: next.stories.map((s) => (s.id === meta.story ? { ...s, status: 'done', authors: s.authors.includes(done.owner) ? s.authors : [...s.authors, done.owner] } : s)) };
      return gateAfterWork(next, meta.stage, done.owner, board, settings);
    }
    case 'verify': {
      const verdict = fields.verdict ?? 'REJECT';
      const findings = fields.findings ?? [];
      next = { ...next, verdicts: [...next.verdicts, { task: done.id, round: next.fixRound, verdict, by: done.owner, findings, at: now }] };
      const risks = findings.map((f) => `${f.severity}${f.story ? ` (${f.story})` : ''}: ${f.text}`);
      if (verdictPasses(verdict)) {
        next = { ...next, stage: 'report' };
        const report: PipelineTaskSpec = { key: 'report', stage: 'report', story: null, round: next.fixRound, subject: 'Report: the pipeline’s final report', description: 'Summarise what was built, the verdicts and what remains; complete this task to write the final report.', blockedByKeys: [] };
        return { state: next, create: [report], warnings: [], transition: { from: 'verify', to: 'report', producer: done.owner, verdict, decisions: [`${verdict}: the work goes on to the report`], rejected: [], risks, outputs: ['report'] } };
      }
      // The bound counts the rounds since the lead's last retry (fixBase), which starts it again.
      const spent = next.fixRound - next.fixBase;
      if (spent >= settings.maxFixRounds) {
        next = { ...next, status: 'BLOCKED_AFTER_VERIFY', stoppedReason: `${verdict} after ${spent} fix rounds (max_fix_rounds ${settings.maxFixRounds}); the lead may grant more with \`teamux pipeline retry\`` };
        return { state: next, create: [], warnings: [], transition: { from: 'verify', to: 'BLOCKED_AFTER_VERIFY', producer: done.owner, verdict, decisions: [`${verdict} with the fix rounds spent (${spent}/${settings.maxFixRounds}): the pipeline ends BLOCKED_AFTER_VERIFY`], rejected: ['another fix round: the bound is reached'], risks, outputs: [] } };
      }
      const round = next.fixRound + 1;
      const affected = affectedBy(findings, next.stories);
      next = { ...next, stage: 'fix', fixRound: round };
      const fixes = affected.map((s) => fixTask(s, round, [`${verdict} in round ${round - 1}. Findings:`, ...findings.filter((f) => f.story === undefined || f.story === s.id).map((f) => `- ${f.severity}: ${f.text}`)], []));
      const verify = verifyTask(round, fixes.map((f) => f.key), next.stories);
      return { state: next, create: [...fixes, verify], warnings: [], transition: { from: 'verify', to: 'fix', producer: done.owner, verdict, decisions: [`${verdict}: fix round ${round} of ${settings.maxFixRounds} for ${affected.map((s) => s.id).join(', ') || 'no story'}`], rejected: ['approving as it is: the verifier found the work short of its criteria'], risks, outputs: [...fixes.map((f) => f.key), verify.key] } };
    }
    case 'report': {
      next = { ...next, status: 'done' };
      return { state: next, create: [], warnings: [], transition: { from: 'report', to: 'done', producer: done.owner, verdict: null, decisions: [done.result ?? 'report written'], rejected: [], risks: [], outputs: [] } };
    }
  }
}

/** The finished stories a verdict's findings send to a fix round: those named, or all when a finding names none (or there are none). */
export function affectedBy(findings: readonly Finding[], stories: readonly Story[]): Story[] {
  const named = new Set(findings.flatMap((f) => (f.story ? [f.story] : [])));
  const everyone = findings.length === 0 || findings.some((f) => f.story === undefined);
  return stories.filter((s) => s.status === 'done' && (everyone || named.has(s.id)));
}

/** After an exec or fix task (or a story blocked): when every story of the stage is settled, go to verify. */
function gateAfterWork(state: PipelineState, stage: 'exec' | 'fix', producer: string, board: readonly PipelineTaskLike[], settings: PipelineSettings): Routing {
  const open = board.filter((t) => t.pipeline?.stage === stage && t.status !== 'completed' && (stage === 'exec' || t.pipeline.round === state.fixRound))
    .filter((t) => state.stories.find((s) => s.id === t.pipeline?.story)?.status !== 'blocked');
  if (open.length > 0) return { state, create: [], transition: null, warnings: [] };
  const done = state.stories.filter((s) => s.status === 'done');
  const blocked = state.stories.filter((s) => s.status === 'blocked');
  const risks = blocked.map((s) => `story ${s.id} is blocked: ${s.reason ?? ''}`);
  if (done.length === 0) {
    const next: PipelineState = { ...state, status: 'stopped', stoppedReason: 'every story is blocked' };
    return { state: next, create: [], warnings: [], transition: { from: stage, to: 'stopped', producer, verdict: null, decisions: ['stop: no story was finished, nothing to verify'], rejected: [], risks, outputs: [] } };
  }
  if (stage === 'fix') {
    const next: PipelineState = { ...state, stage: 'verify' };
    return { state: next, create: [], warnings: [], transition: { from: 'fix', to: 'verify', producer, verdict: null, decisions: [`fix round ${state.fixRound} of ${settings.maxFixRounds} done: verify again`], rejected: [], risks, outputs: [`verify-r${state.fixRound}`] } };
  }
  const verify = verifyTask(0, [], state.stories);
  const next: PipelineState = { ...state, stage: 'verify' };
  return { state: next, create: [verify], warnings: [], transition: { from: 'exec', to: 'verify', producer, verdict: null, decisions: done.map((s) => `story ${s.id} done by ${s.authors.join(', ')}`), rejected: [], risks, outputs: [verify.key] } };
}

function execTask(s: Story): PipelineTaskSpec {
  return {
    key: `exec-${s.id}`, stage: 'exec', story: s.id, round: 0, subject: `Story ${s.id} (wave ${s.wave}): ${s.subject}`,
    description: [s.description, s.files.length ? `Files: ${s.files.join(', ')}` : '', `Criteria: ${s.criteria.join('; ')}`].filter(Boolean).join('\n'),
    blockedByKeys: s.blockedBy.map((b) => `exec-${b}`),
  };
}

/** The fix task of story `s` in round `round`, its description opening with `why`. */
export function fixTask(s: Story, round: number, why: string[], blockedByKeys: string[]): PipelineTaskSpec {
  return {
    key: `fix-r${round}-${s.id}`, stage: 'fix', story: s.id, round, subject: `Fix ${s.id} (round ${round}): ${s.subject}`,
    description: [...why, `Criteria: ${s.criteria.join('; ')}`].join('\n'),
    blockedByKeys,
  };
}

/** The verify task of round `round`, waiting for the tasks keyed `after`. */
export function verifyTask(round: number, after: string[], stories: readonly Story[]): PipelineTaskSpec {
  const done = stories.filter((s) => s.status === 'done');
  return {
    key: `verify-r${round}`, stage: 'verify', story: null, round, subject: round === 0 ? 'Verify the stories' : `Verify again after fix round ${round}`,
    description: ['Check each story against its criteria; complete with a verdict and findings (each naming its story).', ...done.map((s) => `- ${s.id}: ${s.criteria.join('; ')}`)].join('\n'),
    blockedByKeys: after,
  };
}

/**
 * A story whose attempt failed: with MAX_FAILED_ATTEMPTS failures it is blocked with the reason, and
 * so are the stories that wait for it; the others go on. Returns the routing of the exec gate too.
 */
export function storyAttemptFailed(settings: PipelineSettings, state: PipelineState, story: string, failures: number, reason: string, board: readonly PipelineTaskLike[], now: string): Routing & { blocked: string[] } {
  const target = state.stories.find((s) => s.id === story);
  if (!target || target.status !== 'pending' || failures < MAX_FAILED_ATTEMPTS || state.status !== 'running') return { state, create: [], transition: null, warnings: [], blocked: [] };
  const blocked = new Map<string, string>([[story, `attempt ${failures} of ${MAX_FAILED_ATTEMPTS} failed: ${reason}`]]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of state.stories) {
      if (blocked.has(s.id) || s.status !== 'pending') continue;
      const up = s.blockedBy.find((b) => blocked.has(b));
      if (up) { blocked.set(s.id, `waits for story ${up}, which is blocked`); grew = true; }
    }
  }
  const next: PipelineState = { ...state, updatedAt: now, stories: state.stories.map((s) => (blocked.has(s.id) ? { ...s, status: 'blocked', reason: blocked.get(s.id)! } : s)) };
  const stage = state.stage === 'fix' ? 'fix' : 'exec';
  if (state.stage !== 'exec' && state.stage !== 'fix') return { state: next, create: [], transition: null, warnings: [], blocked: [...blocked.keys()] };
  return { ...gateAfterWork(next, stage, 'teamux', board, settings), blocked: [...blocked.keys()] };
}

