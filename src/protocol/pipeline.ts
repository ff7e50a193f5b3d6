/**
 * The staged pipeline's rules, pure: stage order plan → prd → exec → verify → fix → report, the
 * stories a plan hands over (cap, cycles, waves from the DAG), who may claim a pipeline task
 * (stage order, role, verifier ≠ author, parallel cap), what a completion routes to (verdicts are
 * fields: APPROVE and ACCEPT_WITH_RESERVATIONS go on; ITERATE, REVISE and REJECT make fix tasks and a
 * new verify task, up to max_fix_rounds, then BLOCKED_AFTER_VERIFY), and what three failed attempts
 * do to a story. The store (src/store/pipeline.ts) applies these inside its transaction; nothing here
 * reads a file, so every rule is unit-tested on plain values.
 */
import { z } from 'zod';
import { Finding, StageSchema, StoryId, TaskPipeline, VERDICTS, VerdictSchema, type Stage, type Verdict } from './pipeline-fields.js';
import { accept, refuse, type Outcome, type Task } from './types.js';

export { Finding, StageSchema, STAGES, StoryId, TaskPipeline, VERDICTS, VerdictSchema, type Stage, type Verdict } from './pipeline-fields.js';


/** Verdicts that let the pipeline go on to the report. */
export function verdictPasses(v: Verdict): boolean {
  return v === 'APPROVE' || v === 'ACCEPT_WITH_RESERVATIONS';
}

/** The roles a layout gives members; each stage is claimable by the members of its roles. */
export const ROLES = ['plan', 'execute', 'test', 'verify', 'review'] as const;
export type Role = (typeof ROLES)[number];

/** Which roles may claim a stage's tasks. */
export const STAGE_ROLES: Record<Stage, readonly Role[]> = {
  plan: ['plan'], prd: ['plan'], exec: ['execute', 'test'], fix: ['execute', 'test'], verify: ['verify', 'review'], report: ['plan'],
};

/** How many attempts a story gets before it is blocked. */
export const MAX_FAILED_ATTEMPTS = 3;

/** The pipeline's settings as the store keeps them (pipeline/settings.json). */
export const PipelineSettings = z.object({
  version: z.literal(1),
  goal: z.string().default(''),
  /** Members per role; a role left out (null) is open to every member. */
  roles: z.object({
    plan: z.array(z.string()).nullable().default(null),
    execute: z.array(z.string()).nullable().default(null),
    test: z.array(z.string()).nullable().default(null),
    verify: z.array(z.string()).nullable().default(null),
    review: z.array(z.string()).nullable().default(null),
  }),
  maxParallel: z.number().int().min(1).default(5),
  maxFixRounds: z.number().int().min(1).default(3),
  storyCap: z.object({ warn: z.number().int().min(1).default(10), max: z.number().int().min(1).default(20) }),
  /** Days a handoff document is kept (its expiresAt). */
  retentionDays: z.number().int().min(1).default(30),
});
export type PipelineSettings = z.infer<typeof PipelineSettings>;


/** A story as a plan hands it over. */
export const StoryInput = z.strictObject({
  id: StoryId,
  subject: z.string().min(1),
  description: z.string().default(''),
  blockedBy: z.array(StoryId).default([]),
  files: z.array(z.string().min(1)).default([]).describe('the files the story may touch'),
  acceptance: z.array(z.string().min(1)).min(1, { message: 'a story needs at least one testable acceptance criterion' }),
});
export type StoryInput = z.input<typeof StoryInput>;


/** The prd stage's output: machine-checkable criteria per story. */
export const CriteriaInput = z.array(z.strictObject({ story: StoryId, checks: z.array(z.string().min(1)).min(1) }));

export const StoryStatus = z.enum(['pending', 'done', 'blocked']);
export const Story = z.object({
  id: StoryId, subject: z.string(), description: z.string(), blockedBy: z.array(StoryId), files: z.array(z.string()),
  acceptance: z.array(z.string()), criteria: z.array(z.string()), wave: z.number().int().min(1),
  status: StoryStatus, reason: z.string().nullable(), authors: z.array(z.string()),
});
export type Story = z.infer<typeof Story>;

export const PIPELINE_STATUSES = ['running', 'done', 'stopped', 'BLOCKED_AFTER_VERIFY'] as const;
export const PipelineStatus = z.enum(PIPELINE_STATUSES);
export type PipelineStatus = z.infer<typeof PipelineStatus>;

/** One verdict given, in order. */
export const VerdictRecord = z.object({ task: z.string(), round: z.number().int().min(0), verdict: VerdictSchema, by: z.string(), findings: z.array(Finding), at: z.string() });
export type VerdictRecord = z.infer<typeof VerdictRecord>;

/** The pipeline's state (pipeline/state.json), changed only under the pipeline lock. */
export const PipelineState = z.object({
  version: z.literal(1),
  status: PipelineStatus,
  stage: StageSchema,
  /** Verify → fix rounds so far. */
  fixRound: z.number().int().min(0),
  stories: z.array(Story),
  verdicts: z.array(VerdictRecord),
  /** Completed pipeline tasks whose routing has been applied (a crash in between is replayed). */
  routed: z.array(z.string()),
  /** Why the pipeline stopped, when it did; the cycle when a cycle stopped it. */
  stoppedReason: z.string().nullable(),
  cycle: z.array(z.string()).nullable(),
  warnings: z.array(z.string()),
  /** Handoff documents written so far, relative to the team folder, oldest first. */
  handoffs: z.array(z.string()),
  updatedAt: z.string(),
});
export type PipelineState = z.infer<typeof PipelineState>;


/** A pipeline task the routing asks the store to create. */
export interface PipelineTaskSpec {
  key: string;
  stage: Stage;
  story: string | null;
  round: number;
  subject: string;
  description: string;
  /** Keys of pipeline tasks it waits for. */
  blockedByKeys: string[];
}

/** What a completion carries besides its result text. */
export interface CompletionFields {
  verdict?: Verdict | undefined;
  findings?: Finding[] | undefined;
  stories?: StoryInput[] | undefined;
  criteria?: z.input<typeof CriteriaInput> | undefined;
}

/** The first state of a pipeline. */
export function initialState(now: string): PipelineState {
  return { version: 1, status: 'running', stage: 'plan', fixRound: 0, stories: [], verdicts: [], routed: [], stoppedReason: null, cycle: null, warnings: [], handoffs: [], updatedAt: now };
}

/** The plan task every pipeline starts with. */
export function planTask(settings: PipelineSettings): PipelineTaskSpec {
  const goal = settings.goal || 'the team goal';
  return {
    key: 'plan', stage: 'plan', story: null, round: 0, subject: `Plan: ${oneLineOf(goal)}`,
    description: `Break ${goal} into stories with dependencies, file scope and testable acceptance criteria; complete this task with them (the stories field).`,
    blockedByKeys: [],
  };
}

/**
 * The members who may take a stage's tasks: everyone listed under the stage's roles; when none of
 * its roles has a list, everyone (null).
 */
export function stageMembers(settings: PipelineSettings, stage: Stage): string[] | null {
  const lists = STAGE_ROLES[stage].map((r) => settings.roles[r]).filter((l): l is string[] => l !== null);
  return lists.length === 0 ? null : [...new Set(lists.flat())];
}

/** The members who may claim a stage's tasks, as text ("*" when open to everyone). */
export function stageConsumers(settings: PipelineSettings, stage: Stage): string {
  return stageMembers(settings, stage)?.join(',') ?? '*';
}

/** The cycle in a story graph, as a closed path ["a","b","a"], or null. */
export function findCycle(stories: ReadonlyArray<{ id: string; blockedBy?: readonly string[] | undefined }>): string[] | null {
  const deps = new Map(stories.map((s) => [s.id, s.blockedBy ?? []]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    state.set(id, 'open');
    stack.push(id);
    for (const up of deps.get(id) ?? []) {
      if (state.get(up) === 'open') return [...stack.slice(stack.indexOf(up)), up];
      if (state.get(up) === undefined && deps.has(up)) {
        const c = visit(up);
        if (c) return c;
      }
    }
    stack.pop();
    state.set(id, 'done');
    return null;
  };
  for (const s of stories) {
    if (state.has(s.id)) continue;
    const c = visit(s.id);
    if (c) return c;
  }
  return null;
}

/** Each story's wave: 1 for stories with no blockers, else one more than its latest blocker (acyclic graphs only). */
export function waves(stories: ReadonlyArray<{ id: string; blockedBy?: readonly string[] | undefined }>): Map<string, number> {
  const deps = new Map(stories.map((s) => [s.id, s.blockedBy ?? []]));
  const out = new Map<string, number>();
  const wave = (id: string): number => {
    const known = out.get(id);
    if (known !== undefined) return known;
    const w = 1 + Math.max(0, ...(deps.get(id) ?? []).map(wave));
    out.set(id, w);
    return w;
  };
  for (const s of stories) wave(s.id);
  return out;
}

/** The plan's stories checked: ids unique, blockers known, within the cap; a warning at the soft cap. */
export function checkStories(input: readonly StoryInput[], settings: PipelineSettings): Outcome<{ stories: z.output<typeof StoryInput>[]; warnings: string[] }> {
  const parsed = z.array(StoryInput).safeParse(input);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    return refuse('invalid_input', `stories.${i.path.join('.')}: ${i.message}`);
  }
  const stories = parsed.data;
  if (stories.length === 0) return refuse('invalid_input', 'a plan needs at least one story');
  if (stories.length > settings.storyCap.max) {
    return refuse('story_cap', `${stories.length} stories is over the cap of ${settings.storyCap.max}; merge stories or split the goal into several pipelines`);
  }
  const ids = new Set<string>();
  for (const s of stories) {
    if (ids.has(s.id)) return refuse('invalid_input', `story id "${s.id}" is used twice`);
    ids.add(s.id);
  }
  for (const s of stories) {
    for (const b of s.blockedBy) if (!ids.has(b)) return refuse('invalid_input', `story ${s.id} is blocked by "${b}", which is not a story of this plan (stories: ${[...ids].join(', ')})`);
  }
  const warnings = stories.length >= settings.storyCap.warn ? [`${stories.length} stories: at or over the soft cap of ${settings.storyCap.warn}; consider fewer, larger stories`] : [];
  return accept({ stories, warnings });
}

/** What a claim needs to know about the board: the pipeline tasks. */
export interface ClaimView {
  settings: PipelineSettings;
  state: PipelineState;
  /** Every task of the board (the pipeline ones carry `pipeline`). */
  tasks: readonly PipelineTaskLike[];
}

/** A task as the pipeline rules read it. */
export type PipelineTaskLike = Pick<Task, 'id' | 'status' | 'owner'> & { pipeline?: TaskPipeline | null | undefined };

/** The members who authored the work a verify task checks: the owners of the stories' exec and fix tasks. */
export function authorsOf(state: PipelineState): Set<string> {
  return new Set(state.stories.flatMap((s) => s.authors));
}

/**
 * May `by` claim pipeline task `task` now? Refusals: `stage_order` (not the current stage, or the
 * pipeline has ended), `wrong_role`, `self_verification`, `parallel_cap`.
 */
export function checkPipelineClaim(view: ClaimView, task: PipelineTaskLike & { pipeline: TaskPipeline }, by: string, opts: { reassign?: boolean } = {}): Outcome<void> {
  const { settings, state } = view;
  const stage = task.pipeline.stage;
  if (state.status !== 'running') return refuse('stage_order', `the pipeline has ended (${state.status}${state.stoppedReason ? `: ${state.stoppedReason}` : ''})`);
  if (stage !== state.stage) {
    return refuse('stage_order', `task ${task.id} belongs to the ${stage} stage; the pipeline is at ${state.stage}, and ${stage} waits for its gate`);
  }
  const allowed = stageMembers(settings, stage);
  if (allowed !== null && !allowed.includes(by)) {
    return refuse('wrong_role', `${by} may not take ${stage} tasks (roles ${STAGE_ROLES[stage].join(' or ')}: ${allowed.join(', ')})`);
  }
  if (stage === 'verify' && authorsOf(state).has(by)) {
    return refuse('self_verification', `${by} authored work that task ${task.id} verifies; another member must verify it`);
  }
  // A reassignment moves a claim; it does not add one.
  if ((stage === 'exec' || stage === 'fix') && !opts.reassign) {
    const running = view.tasks.filter((t) => t.status === 'in_progress' && (t.pipeline?.stage === 'exec' || t.pipeline?.stage === 'fix')).length;
    if (running >= settings.maxParallel) return refuse('parallel_cap', `${running} stories are in progress, the most max_parallel allows (${settings.maxParallel}); wait for one to finish`);
  }
  return accept(undefined);
}

/** A pipeline task changes status only by claim, complete and release, where the pipeline's rules run. */
export function checkPipelineUpdate(task: { id: string; status: Task['status']; pipeline?: TaskPipeline | undefined } | undefined, patch: { status?: Task['status'] | undefined }): Outcome<void> {
  if (!task?.pipeline || patch.status === undefined || patch.status === task.status) return accept(undefined);
  return refuse('invalid_input', `task ${task.id} is a ${task.pipeline.stage} task of the pipeline: change its status with task_claim, task_complete or task_release`);
}

/** Reopening or deleting a pipeline task would undo its routing or leave its stage's gate waiting forever: refused. */
export function checkPipelineTransition(task: { id: string; pipeline?: TaskPipeline | undefined } | undefined, kind: 'reopen' | 'delete'): Outcome<void> {
  if (!task?.pipeline) return accept(undefined);
  return refuse('invalid_input', `task ${task.id} is a ${task.pipeline.stage} task of the pipeline; the pipeline ${kind === 'reopen' ? 'reopens work through verify verdicts (fix rounds)' : 'keeps its tasks until it ends'}, so it cannot be ${kind === 'reopen' ? 'reopened' : 'deleted'} by hand`);
}

/** The completion fields a pipeline task recorded (verdict, findings, stories, criteria). */
export function fieldsOf(meta: TaskPipeline): CompletionFields {
  const out = meta.output ?? {};
  return {
    verdict: meta.verdict ?? undefined, findings: meta.findings,
    stories: Array.isArray(out['stories']) ? (out['stories'] as StoryInput[]) : undefined,
    criteria: Array.isArray(out['criteria']) ? (out['criteria'] as z.input<typeof CriteriaInput>) : undefined,
  };
}

/** Check what a pipeline task's completion carries, before it is written: a refusal leaves the task in progress. */
export function checkCompletion(meta: TaskPipeline, fields: CompletionFields, settings: PipelineSettings, state: PipelineState): Outcome<{ warnings: string[] }> {
  if (meta.stage === 'verify') {
    if (!fields.verdict) return refuse('invalid_input', `a verify task is completed with a verdict (${VERDICTS.join(', ')}) and findings`);
    const known = new Set(state.stories.map((s) => s.id));
    for (const f of fields.findings ?? []) if (f.story !== undefined && !known.has(f.story)) return refuse('invalid_input', `finding names story "${f.story}", which is not a story of this pipeline`);
    return accept({ warnings: [] });
  }
  if (fields.verdict) return refuse('invalid_input', `only verify tasks carry a verdict; task is in the ${meta.stage} stage`);
  if (meta.stage === 'plan') {
    if (!fields.stories) return refuse('invalid_input', 'the plan task is completed with its stories (id, subject, blockedBy, files, acceptance)');
    const r = checkStories(fields.stories, settings);
    return r.ok ? accept({ warnings: r.value.warnings }) : r;
  }
  if (meta.stage === 'prd' && fields.criteria) {
    const parsed = CriteriaInput.safeParse(fields.criteria);
    if (!parsed.success) return refuse('invalid_input', `criteria: ${parsed.error.issues[0]!.message}`);
    const known = new Set(state.stories.map((s) => s.id));
    for (const c of parsed.data) if (!known.has(c.story)) return refuse('invalid_input', `criteria name story "${c.story}", which is not a story of this pipeline`);
  }
  return accept({ warnings: [] });
}

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
      if (next.fixRound >= settings.maxFixRounds) {
        next = { ...next, status: 'BLOCKED_AFTER_VERIFY', stoppedReason: `${verdict} after ${next.fixRound} fix rounds (max_fix_rounds ${settings.maxFixRounds})` };
        return { state: next, create: [], warnings: [], transition: { from: 'verify', to: 'BLOCKED_AFTER_VERIFY', producer: done.owner, verdict, decisions: [`${verdict} with the fix rounds spent (${next.fixRound}/${settings.maxFixRounds}): the pipeline ends BLOCKED_AFTER_VERIFY`], rejected: ['another fix round: the bound is reached'], risks, outputs: [] } };
      }
      const round = next.fixRound + 1;
      const named = new Set(findings.flatMap((f) => (f.story ? [f.story] : [])));
      const everyone = findings.length === 0 || findings.some((f) => f.story === undefined);
      const affected = next.stories.filter((s) => s.status === 'done' && (everyone || named.has(s.id)));
      next = { ...next, stage: 'fix', fixRound: round };
      const fixes = affected.map((s): PipelineTaskSpec => ({
        key: `fix-r${round}-${s.id}`, stage: 'fix', story: s.id, round, subject: `Fix ${s.id} (round ${round}): ${s.subject}`,
        description: [`${verdict} in round ${round - 1}. Findings:`, ...findings.filter((f) => f.story === undefined || f.story === s.id).map((f) => `- ${f.severity}: ${f.text}`), `Criteria: ${s.criteria.join('; ')}`].join('\n'),
        blockedByKeys: [],
      }));
      const verify = verifyTask(round, fixes.map((f) => f.key), next.stories);
      return { state: next, create: [...fixes, verify], warnings: [], transition: { from: 'verify', to: 'fix', producer: done.owner, verdict, decisions: [`${verdict}: fix round ${round} of ${settings.maxFixRounds} for ${affected.map((s) => s.id).join(', ') || 'no story'}`], rejected: ['approving as it is: the verifier found the work short of its criteria'], risks, outputs: [...fixes.map((f) => f.key), verify.key] } };
    }
    case 'report': {
      next = { ...next, status: 'done' };
      return { state: next, create: [], warnings: [], transition: { from: 'report', to: 'done', producer: done.owner, verdict: null, decisions: [done.result ?? 'report written'], rejected: [], risks: [], outputs: [] } };
    }
  }
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

function verifyTask(round: number, after: string[], stories: readonly Story[]): PipelineTaskSpec {
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

/** The wave the pipeline is working on: the lowest wave with a pending story (0 when none). */
export function currentWave(state: PipelineState): number {
  const pending = state.stories.filter((s) => s.status === 'pending').map((s) => s.wave);
  return pending.length ? Math.min(...pending) : 0;
}

/** What the sidebar's pipeline line shows. */
export interface PipelineSummary {
  status: PipelineStatus;
  stage: Stage;
  wave: number;
  waves: number;
  fixRound: number;
  maxFixRounds: number;
  verifier: string | null;
}

/** The pipeline line's data from the settings, the state and the board. */
export function pipelineSummary(settings: PipelineSettings, state: PipelineState, board: readonly PipelineTaskLike[]): PipelineSummary {
  return {
    status: state.status, stage: state.stage, wave: currentWave(state), waves: Math.max(0, ...state.stories.map((s) => s.wave)),
    fixRound: state.fixRound, maxFixRounds: settings.maxFixRounds, verifier: currentVerifier(board),
  };
}

/** The verifier of the latest verify task, from the board (its owner), or null. */
export function currentVerifier(board: readonly PipelineTaskLike[]): string | null {
  const verifies = board.filter((t) => t.pipeline?.stage === 'verify' && t.owner !== null);
  return verifies.length ? verifies[verifies.length - 1]!.owner : null;
}

function oneLineOf(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}
