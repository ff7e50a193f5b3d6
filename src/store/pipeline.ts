/**
 * The staged pipeline in the team folder: its settings (pipeline/settings.json, written by init from
 * the layout), its state (pipeline/state.json: stage, fix round, stories, verdicts, which completions
 * have been routed), the handoff documents (handoffs/NN-from-to.md) and the final report
 * (pipeline/report.md). Every claim and completion of a pipeline task runs under the pipeline lock,
 * taken before any task lock, so the rules of protocol/pipeline.ts hold whichever front end acts.
 * A completion is written first (with its verdict or output on the task), then routed; a routing cut
 * short by a crash is replayed by the next pipeline operation, and task creation is idempotent by key.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { finalReport, handoffDocument, type Dispatched, type HandoffDocument } from '../protocol/handoff.js';
import { checkCompletion, checkPipelineClaim, fieldsOf, initialState, PipelineSettings, PipelineState, planTask, MAX_FAILED_ATTEMPTS, pipelineSummary, stageConsumers, type CompletionFields, type PipelineSummary, type PipelineTaskSpec, type TaskPipeline } from '../protocol/pipeline.js';
import { route, storyAttemptFailed, type Routing } from '../protocol/pipeline-route.js';
import { retryStories, type RetryPlan } from '../protocol/pipeline-retry.js';
import { byId, isReady } from '../protocol/tasks.js';
import { accept, refuse, type Outcome, type Task } from '../protocol/types.js';
import type { EventLog } from './events.js';
import { atomicWrite, ensureDir, parseJson, readText, writeJson } from './fsx.js';
import { withLock } from './lock.js';
import type { Log } from './log.js';
import type { ClaimGuard, TaskBoard } from './tasks.js';

/** A loaded pipeline: its settings and state. */
export interface PipelineView {
  settings: PipelineSettings;
  state: PipelineState;
}

/** The pipeline of one team folder. */
export class PipelineStore {
  readonly dir: string;
  readonly settingsFile: string;
  readonly stateFile: string;
  readonly handoffDir: string;

  /** `tasks` is null on a store without a team folder board (NATS): no pipeline runs there. */
  constructor(private readonly teamDir: string, private readonly board: TaskBoard | null, private readonly events: EventLog, private readonly log: Log) {
    this.dir = path.join(teamDir, 'pipeline');
    this.settingsFile = path.join(this.dir, 'settings.json');
    this.stateFile = path.join(this.dir, 'state.json');
    this.handoffDir = path.join(teamDir, 'handoffs');
  }

  /** True when the team runs as a pipeline (its settings file exists). */
  active(): boolean {
    return this.board !== null && existsSync(this.settingsFile);
  }

  /** The folder board the pipeline's rules run on (only reached while active()). */
  private get tasks(): TaskBoard {
    if (!this.board) throw new Error('the staged pipeline needs the team folder store');
    return this.board;
  }

  /** Write the settings and, for a new pipeline, its first state and the plan task. */
  async init(settings: Omit<PipelineSettings, 'version'>): Promise<void> {
    // The layout check and `teamux init` refuse this with a hint first; reaching it is a bug.
    if (!this.board) throw new Error('a staged pipeline keeps its rules and state in the team folder, so it cannot run on a NATS store');
    await ensureDir(this.dir);
    await writeJson(this.settingsFile, PipelineSettings.parse({ version: 1, ...settings }));
    await this.locked(async () => {
      if ((await readText(this.stateFile, 'record')) !== undefined) return;
      const s = await this.settings();
      const state = initialState(new Date().toISOString());
      await this.createTasks([planTask(s)], 'teamux', s);
      await writeJson(this.stateFile, state);
    });
  }

  /** The settings and state, or a refusal naming the file that does not read. */
  async load(): Promise<Outcome<PipelineView>> {
    const settings = await this.readFile(this.settingsFile, PipelineSettings);
    if (!settings.ok) return settings;
    const state = await this.readFile(this.stateFile, PipelineState);
    if (!state.ok) return state;
    return accept({ settings: settings.value, state: state.value });
  }

  /** Claim as `by` under the pipeline lock, with the pipeline's rules as the claim's guard. */
  async claim(by: string, id: string | undefined, claim: (guard: ClaimGuard) => Promise<Outcome<Task>>): Promise<Outcome<Task>> {
    return this.locked(async () => {
      await this.recover();
      // An unreadable pipeline file refuses pipeline tasks only; the rest of the board goes on.
      const view = await this.load();
      const guard: ClaimGuard = async (task) => {
        if (!task.pipeline) return accept(undefined);
        if (!view.ok) return view;
        const board = await this.tasks.snapshot();
        return checkPipelineClaim({ settings: view.value.settings, state: view.value.state, tasks: board.tasks }, { ...task, pipeline: task.pipeline }, by);
      };
      const r = await claim(guard);
      if (r.ok && r.value.pipeline) await this.events.record('pipeline_dispatch', { stage: r.value.pipeline.stage, task: r.value.id, story: r.value.pipeline.story, producer: 'teamux', consumer: by, status: 'claimed', verdict: null });
      return r;
    });
  }

  /**
   * Complete pipeline task `id` as `by` with what it carries (a verdict and findings for a verify,
   * the stories for a plan, criteria for a prd), then route it: next stage, new tasks, handoff.
   */
  async complete(by: string, id: string, result: string | null, fields: CompletionFields): Promise<Outcome<{ task: Task; nowReady: string[] }>> {
    return this.locked(async () => {
      await this.recover();
      const view = await this.load();
      let warnings: string[] = [];
      const r = await this.tasks.complete(id, by, result, (done) => {
        if (!done.pipeline) return accept(done);
        if (!view.ok) return view;
        const ok = checkCompletion(done.pipeline, fields, view.value.settings, view.value.state);
        if (!ok.ok) return ok;
        warnings = ok.value.warnings;
        return accept({ ...done, pipeline: withFields(done.pipeline, fields) });
      });
      if (!r.ok || !r.value.task.pipeline || !view.ok) return r;
      for (const w of warnings) await this.events.record('pipeline_warning', { task: id, warning: w });
      const dispatched = await this.routeOne(view.value, r.value.task);
      // Tasks the routing created are ready at once when nothing blocks them.
      const board = await this.tasks.snapshot();
      const ready = dispatched.filter((d) => { const t = board.index.get(d.id); return t !== undefined && isReady(t, board.index); }).map((d) => d.id);
      return accept({ task: r.value.task, nowReady: [...new Set([...r.value.nowReady, ...ready])].sort(byId) });
    });
  }

  /** A story's task became blocked by its failed attempts: the story and its dependents are blocked, the others go on. */
  async storyBlocked(task: Task): Promise<void> {
    if (!this.active()) return;
    await this.locked(() => this.blockStory(task));
  }

  /** Under the lock: apply a blocked story task to the state (a no-op when it was applied already). */
  private async blockStory(task: Task): Promise<void> {
    if (!task.pipeline?.story || (task.pipeline.stage !== 'exec' && task.pipeline.stage !== 'fix')) return;
    const view = await this.load();
    if (!view.ok) return;
    const board = await this.tasks.snapshot();
    const failures = task.attempts.filter((a) => a.outcome === 'failed').length;
    const reason = task.blockedReason ?? task.attempts.at(-1)?.note ?? 'its attempts failed';
    const r = storyAttemptFailed(view.value.settings, view.value.state, task.pipeline.story, Math.max(failures, MAX_FAILED_ATTEMPTS), reason, board.tasks, new Date().toISOString());
    if (r.blocked.length === 0) return;
    for (const s of r.blocked) await this.events.record('pipeline_blocked', { story: s, task: task.id, producer: task.owner ?? 'teamux', consumer: 'teamux', status: 'blocked', verdict: null, reason: r.state.stories.find((x) => x.id === s)?.reason ?? reason });
    await this.apply(view.value, r, null, board.tasks);
  }

  /** Reassign a pipeline task only to a member who could claim it (role, stage, never its own work to verify). */
  async reassign(id: string, to: string, reassign: () => Promise<Outcome<Task>>): Promise<Outcome<Task>> {
    return this.locked(async () => {
      const t = await this.tasks.get(id);
      if (t.ok && t.value.pipeline) {
        const view = await this.load();
        if (!view.ok) return view;
        const board = await this.tasks.snapshot();
        const ok = checkPipelineClaim({ settings: view.value.settings, state: view.value.state, tasks: board.tasks }, { ...t.value, pipeline: t.value.pipeline }, to, { reassign: true });
        if (!ok.ok) return ok;
      }
      return reassign();
    });
  }

  /**
   * The lead's retry of blocked stories (all retryable ones when `stories` is empty), under the
   * pipeline lock: blocked story tasks reopened, a fix round created when the pipeline had ended,
   * dependents pending again, a `pipeline_retry` event, and a handoff when the pipeline runs again.
   */
  async retry(by: string, stories: readonly string[], why: string | null): Promise<Outcome<RetryPlan & { dispatched: Dispatched[] }>> {
    if (!this.active()) return refuse('not_found', 'this team is not a pipeline (its layout has no pipeline: section)');
    return this.locked(async () => {
      await this.recover();
      const view = await this.load();
      if (!view.ok) return view;
      const board = await this.tasks.snapshot();
      const plan = retryStories(view.value.settings, view.value.state, stories, board.tasks, by, why, new Date().toISOString());
      if (!plan.ok) return plan;
      // Tasks first: a crash before the state is written leaves a story pending whose task is open, never the reverse.
      for (const id of plan.value.reopen) {
        const r = await this.tasks.reopen(id, by, `retry${why ? `: ${why}` : ''}`, true);
        if (!r.ok) return r;
      }
      const dispatched = await this.apply(view.value, { state: plan.value.state, create: plan.value.create, transition: plan.value.transition, warnings: [] }, null, board.tasks);
      const after = await this.tasks.snapshot();
      const byKey = new Map(after.tasks.flatMap((t) => (t.pipeline ? [[t.pipeline.key, t.id] as const] : [])));
      for (const [waiter, blocker] of plan.value.waits) {
        const w = byKey.get(waiter);
        const b = byKey.get(blocker);
        if (w && b) await this.tasks.addDependency(w, b);
      }
      await this.events.record('pipeline_retry', {
        stories: plan.value.retried, unblocked: plan.value.unblocked, reopened: plan.value.reopen, dispatched: dispatched.map((d) => d.id), why,
        stage: plan.value.state.stage, fixRound: plan.value.state.fixRound, producer: by, consumer: stageConsumers(view.value.settings, plan.value.state.stage), status: 'retried', verdict: null,
      });
      return accept({ ...plan.value, dispatched });
    });
  }

  /** The id of the story a blocked exec or fix task works on, or null for any other task. */
  async storyOfBlockedTask(id: string): Promise<string | null> {
    if (!this.active()) return null;
    const t = await this.tasks.get(id);
    return t.ok && t.value.status === 'blocked' && t.value.pipeline?.story && (t.value.pipeline.stage === 'exec' || t.value.pipeline.stage === 'fix') ? t.value.pipeline.story : null;
  }

  /** The sidebar's pipeline line data, or null for a team that is not a pipeline (or whose files do not read). */
  async summary(board: readonly Task[]): Promise<PipelineSummary | null> {
    if (!this.active()) return null;
    const view = await this.load();
    return view.ok ? pipelineSummary(view.value.settings, view.value.state, board) : null;
  }

  /** Replay the routing of completed pipeline tasks that a crash left unrouted (oldest first). */
  async recover(): Promise<void> {
    const first = await this.load();
    if (!first.ok) return;
    const stale = await this.tasks.snapshot();
    // Story tasks blocked by failed attempts whose story the state does not show blocked yet.
    for (const t of stale.tasks) {
      const story = first.value.state.stories.find((s) => s.id === t.pipeline?.story);
      if (t.status === 'blocked' && story?.status === 'pending') await this.blockStory(t);
    }
    const view = await this.load();
    if (!view.ok) return;
    const board = await this.tasks.snapshot();
    const routed = new Set(view.value.state.routed);
    const pending = board.tasks.filter((t) => t.pipeline && t.status === 'completed' && !routed.has(t.id));
    if (pending.length === 0) return;
    this.log.warn(`pipeline: replaying the routing of task(s) ${pending.map((t) => t.id).join(', ')} (cut short earlier)`);
    let current = view.value;
    for (const t of pending) {
      await this.routeOne(current, t);
      const again = await this.load();
      if (!again.ok) return;
      current = again.value;
    }
  }

  /** Route one completed pipeline task and apply the result. */
  private async routeOne(view: PipelineView, done: Task): Promise<Dispatched[]> {
    const board = await this.tasks.snapshot();
    const meta = done.pipeline!;
    const r = route(view.settings, view.state, { id: done.id, owner: done.owner ?? 'unknown', result: done.result, pipeline: meta }, fieldsOf(meta), board.tasks, new Date().toISOString());
    const consumer = r.transition && r.transition.to !== meta.stage ? String(r.transition.to) : meta.stage;
    await this.events.record('pipeline_return', { stage: meta.stage, task: done.id, story: meta.story, producer: done.owner, consumer, status: 'completed', verdict: meta.verdict, findings: meta.findings.length });
    return this.apply(view, r, done, board.tasks);
  }

  /** Create the routing's tasks, write its handoff (and the final report when the pipeline ended), then the state. */
  private async apply(view: PipelineView, r: Routing, done: Task | null, before: readonly Task[]): Promise<Dispatched[]> {
    const producer = r.transition?.producer ?? done?.owner ?? 'teamux';
    const dispatched = await this.createTasks(r.create, producer, view.settings);
    let state = r.state;
    if (r.transition) {
      const now = new Date().toISOString();
      const inputs = [
        ...(state.handoffs.length ? [`handoff ${state.handoffs[state.handoffs.length - 1]}`] : []),
        ...(done ? [`task ${done.id} (${done.pipeline!.key}) by ${done.owner}${done.result ? `: ${done.result}` : ''}`] : []),
      ];
      const doc = handoffDocument(r.transition, state, { seq: state.handoffs.length + 1, createdAt: now, retentionDays: view.settings.retentionDays, inputs, dispatched });
      await this.writeDocument(doc);
      state = { ...state, handoffs: [...state.handoffs, doc.path] };
      await this.events.record('pipeline_stage', { from: r.transition.from, to: r.transition.to, producer: r.transition.producer, verdict: r.transition.verdict, status: doc.descriptor.status, handoff: doc.path, contentHash: doc.descriptor.contentHash, ...(state.cycle ? { cycle: state.cycle } : {}) });
      if (state.status !== 'running') {
        const tasks = (await this.tasks.snapshot()).tasks;
        const report = finalReport(state, tasks.length ? tasks : [...before], { producer, createdAt: now, retentionDays: view.settings.retentionDays, summary: done?.pipeline?.stage === 'report' ? done.result : null });
        await this.writeDocument(report);
      }
    }
    await writeJson(this.stateFile, { ...state, updatedAt: new Date().toISOString() });
    return dispatched;
  }

  /** Create pipeline tasks not created yet (by key), their blockers resolved from keys; one dispatch event each. */
  private async createTasks(specs: readonly PipelineTaskSpec[], producer: string, settings: PipelineSettings): Promise<Dispatched[]> {
    if (specs.length === 0) return [];
    const board = await this.tasks.snapshot();
    const byKey = new Map(board.tasks.flatMap((t) => (t.pipeline ? [[t.pipeline.key, t] as const] : [])));
    const out: Dispatched[] = [];
    for (const spec of specs) {
      const existing = byKey.get(spec.key);
      if (existing) {
        out.push({ key: spec.key, id: existing.id, subject: existing.subject });
        continue;
      }
      const blockedBy = spec.blockedByKeys.flatMap((k) => (byKey.has(k) ? [byKey.get(k)!.id] : []));
      const meta: TaskPipeline = { stage: spec.stage, story: spec.story, key: spec.key, round: spec.round, verdict: null, findings: [], output: null };
      const r = await this.tasks.create({ subject: spec.subject, description: spec.description, blockedBy, pipeline: meta });
      if (!r.ok) throw new Error(`pipeline: creating ${spec.key}: ${r.message}`);
      byKey.set(spec.key, r.value);
      out.push({ key: spec.key, id: r.value.id, subject: r.value.subject });
      await this.events.record('pipeline_dispatch', { stage: spec.stage, task: r.value.id, story: spec.story, producer, consumer: stageConsumers(settings, spec.stage), status: 'dispatched', verdict: null });
    }
    return out;
  }

  private async writeDocument(doc: HandoffDocument): Promise<void> {
    const file = path.join(this.teamDir, doc.path);
    await ensureDir(path.dirname(file));
    await atomicWrite(file, doc.text);
  }

  private async settings(): Promise<PipelineSettings> {
    const s = await this.readFile(this.settingsFile, PipelineSettings);
    if (!s.ok) throw new Error(s.message);
    return s.value;
  }

  private async readFile<T>(file: string, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }): Promise<Outcome<T>> {
    const text = await readText(file, 'record');
    if (text === undefined) return refuse('not_found', `${file} does not exist: this team is not a pipeline`);
    const json = parseJson(file, text);
    if (!json.ok) return refuse('not_found', `${file} cannot be read: ${json.problem.message}`);
    const parsed = schema.safeParse(json.value);
    if (!parsed.success) {
      const i = parsed.error.issues[0]!;
      return refuse('not_found', `${file} cannot be read: ${i.path.map(String).join('.') || '(top)'}: ${i.message}`);
    }
    return accept(parsed.data);
  }

  /** Hold the pipeline lock (taken before any task lock or the board lock). */
  private locked<T>(fn: () => Promise<T>): Promise<T> {
    return withLock(this.stateFile, fn);
  }
}

/** A pipeline task's record with what its completion carried. */
function withFields(meta: TaskPipeline, f: CompletionFields): TaskPipeline {
  const output: Record<string, unknown> = {};
  if (f.stories) output['stories'] = f.stories;
  if (f.criteria) output['criteria'] = f.criteria;
  return { ...meta, verdict: f.verdict ?? null, findings: f.findings ?? [], output: Object.keys(output).length ? output : null };
}
