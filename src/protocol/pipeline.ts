/**
 * The staged pipeline's rules, pure: stage order plan → prd → exec → verify → fix → report, the
 * stories a plan hands over (cap, cycles, waves from the DAG), who may claim a pipeline task
 * (stage order, role, verifier ≠ author, parallel cap), what a completion routes to (verdicts are
 * fields: APPROVE and ACCEPT_WITH_RESERVATIONS go on; ITERATE, REVISE and REJECT make fix tasks and a
 * new verify task, up to max_fix_rounds, then BLOCKED_AFTER_VERIFY), and what three failed attempts
 * do to a story. The store (src/store/pipeline.ts) applies these inside its transaction; nothing here
 * reads a file, so every rule is unit-tested on plain values.
 */
import { z } from './zod.js';
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
  /** Rounds spent before the lead's last retry: the bound max_fix_rounds counts from here. */
  fixBase: z.number().int().min(0).default(0),
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
}).refine((s) => s.fixBase <= s.fixRound, { path: ['fixBase'], message: 'fixBase (rounds before the last retry) is larger than fixRound' });
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
  return { version: 1, status: 'running', stage: 'plan', fixRound: 0, fixBase: 0, stories: [], verdicts: [], routed: [], stoppedReason: null, cycle: null, warnings: [], handoffs: [], updatedAt: now };
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
  if (kind === 'reopen') return refuse('illegal_transition', `task ${task.id} is a ${task.pipeline.stage} task of the pipeline, which reopens work through verify verdicts (fix rounds); only a story task blocked by its failed attempts is reopened by hand, and a story the pipeline ended on is retried with \`teamux pipeline retry STORY\` (the retry_story tool)`);
  return refuse('invalid_input', `task ${task.id} is a ${task.pipeline.stage} task of the pipeline; the pipeline keeps its tasks until it ends, so it cannot be deleted by hand`);
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
  /** Fix rounds spent of the current bound (since the lead's last retry). */
  fixRound: number;
  maxFixRounds: number;
  verifier: string | null;
}

/** The pipeline line's data from the settings, the state and the board. */
export function pipelineSummary(settings: PipelineSettings, state: PipelineState, board: readonly PipelineTaskLike[]): PipelineSummary {
  return {
    status: state.status, stage: state.stage, wave: currentWave(state), waves: Math.max(0, ...state.stories.map((s) => s.wave)),
    fixRound: state.fixRound - state.fixBase, maxFixRounds: settings.maxFixRounds, verifier: currentVerifier(board),
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
