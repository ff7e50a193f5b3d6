/**
 * The team report, pure: from the task files (their attempts, statuses and any pipeline fields) and
 * each member's spend, what was done and blocked, the verdicts and rounds, the parallelism achieved
 * (workers busy at once, from the attempts), durations, and tokens and cost per member. The CLI
 * (`teamux report`) gathers the inputs and prints it as Markdown or JSON.
 */
import type { Task } from './types.js';

/** One member busy on one task, in ms since the epoch. */
export interface Interval {
  owner: string;
  task: string;
  start: number;
  end: number;
}

/** Tokens and dollars of one member (dollars null: unknown). */
export interface Spend {
  model: string | null;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  usd: number | null;
}

/** A task's pipeline fields, when it has them (read structurally: the pipeline adds them to tasks). */
interface PipelineFields {
  stage?: string;
  story?: string | null;
  round?: number;
  verdict?: string | null;
  findings?: unknown[];
}

/** What the report says. */
export interface TeamReport {
  team: string;
  generatedAt: string;
  span: { start: string | null; end: string | null; ms: number };
  tasks: { total: number; completed: number; inProgress: number; pending: number; blocked: number; deleted: number };
  done: Array<{ id: string; subject: string; owner: string | null; attempts: number; ms: number | null }>;
  blocked: Array<{ id: string; subject: string; reason: string | null; attempts: number }>;
  /** Each story's status: from the pipeline's state when there is one (with why it is blocked), else from its tasks. */
  stories: Array<{ story: string; status: 'done' | 'blocked' | 'open'; tasks: string[]; reason?: string | null }>;
  /** Where the staged pipeline ended or stands; null: the team is no pipeline. */
  pipeline: { status: string; stage: string; reason: string | null; fixRounds: number } | null;
  verdicts: Array<{ task: string; story: string | null; round: number; verdict: string; by: string | null; findings: number }>;
  rounds: number;
  parallelism: { peak: number; average: number; busyMs: number };
  members: Array<{ name: string; runtime: string; completed: number; attempts: number; failed: number; abandoned: number; busyMs: number; spend: Spend }>;
  total: { input: number; output: number; usd: number | null };
}

/** When each member was busy on each task: its attempts, or for a task from before attempts its claim. */
export function workIntervals(tasks: readonly Task[], now: number): Interval[] {
  const out: Interval[] = [];
  for (const t of tasks) {
    const attempts = t.attempts.length > 0 ? t.attempts
      : t.claimedAt && t.owner ? [{ owner: t.owner, startedAt: t.claimedAt, endedAt: t.completedAt }] : [];
    for (const a of attempts) {
      const start = Date.parse(a.startedAt);
      const end = a.endedAt ? Date.parse(a.endedAt) : now;
      if (Number.isFinite(start) && Number.isFinite(end) && end >= start) out.push({ owner: a.owner, task: t.id, start, end });
    }
  }
  return out;
}

/**
 * Workers busy at once: the peak, and the average over the span from the first start to the last end
 * (a member on two tasks at once counts once). busyMs is the time at least one worker was busy.
 */
export function parallelism(intervals: readonly Interval[]): { peak: number; average: number; busyMs: number; start: number | null; end: number | null } {
  if (intervals.length === 0) return { peak: 0, average: 0, busyMs: 0, start: null, end: null };
  const edges = intervals.flatMap((i) => [{ at: i.start, owner: i.owner, d: 1 }, { at: i.end, owner: i.owner, d: -1 }]);
  // Ends before starts at the same instant: a hand-over is not two workers at once.
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  const busy = new Map<string, number>();
  let workers = 0;
  let peak = 0;
  let area = 0;
  let busyMs = 0;
  let last = edges[0]!.at;
  for (const e of edges) {
    area += workers * (e.at - last);
    if (workers > 0) busyMs += e.at - last;
    last = e.at;
    const n = (busy.get(e.owner) ?? 0) + e.d;
    busy.set(e.owner, n);
    if (e.d === 1 && n === 1) workers++;
    if (e.d === -1 && n === 0) workers--;
    peak = Math.max(peak, workers);
  }
  const start = edges[0]!.at;
  const end = edges[edges.length - 1]!.at;
  return { peak, average: end > start ? area / (end - start) : peak, busyMs, start, end };
}

function pipelineOf(t: Task): PipelineFields | null {
  const p = (t as unknown as { pipeline?: PipelineFields | null }).pipeline;
  return p && typeof p === 'object' ? p : null;
}

/** The pipeline's state as the report reads it (protocol/pipeline.ts PipelineState). */
export interface ReportPipeline {
  status: string;
  stage: string;
  stoppedReason: string | null;
  fixRound: number;
  stories: ReadonlyArray<{ id: string; status: 'pending' | 'done' | 'blocked'; reason: string | null }>;
}

/** Build the report; `pipeline`, when the team runs one, gives the stories' statuses and where it ended. */
export function buildReport(team: string, tasks: readonly Task[], members: ReadonlyArray<{ name: string; runtime: string; spend: Spend }>, now: number, pipeline: ReportPipeline | null = null): TeamReport {
  const live = tasks.filter((t) => t.status !== 'deleted');
  const count = (s: Task['status']): number => tasks.filter((t) => t.status === s).length;
  const intervals = workIntervals(live, now);
  const par = parallelism(intervals);
  const done = live.filter((t) => t.status === 'completed').map((t) => {
    const first = t.attempts[0]?.startedAt ?? t.claimedAt;
    const ms = first && t.completedAt ? Date.parse(t.completedAt) - Date.parse(first) : null;
    return { id: t.id, subject: t.subject, owner: t.owner, attempts: t.attempts.length, ms };
  });
  const blocked = live.filter((t) => t.status === 'blocked').map((t) => ({ id: t.id, subject: t.subject, reason: t.blockedReason, attempts: t.attempts.length }));
  const byStory = new Map<string, Task[]>();
  for (const t of live) {
    const story = pipelineOf(t)?.story;
    if (story) byStory.set(story, [...(byStory.get(story) ?? []), t]);
  }
  const fromTasks = [...byStory].map(([story, ts]) => ({
    story,
    status: ts.some((t) => t.status === 'blocked') ? 'blocked' as const : ts.every((t) => t.status === 'completed') ? 'done' as const : 'open' as const,
    tasks: ts.map((t) => t.id),
  }));
  // The pipeline's state knows what the tasks cannot show: a story blocked because it waits for a blocked one.
  const stories = pipeline
    ? pipeline.stories.map((s) => ({ story: s.id, status: s.status === 'pending' ? 'open' as const : s.status, tasks: (byStory.get(s.id) ?? []).map((t) => t.id), reason: s.reason }))
    : fromTasks;
  const verdicts = live.flatMap((t) => {
    const p = pipelineOf(t);
    return p?.verdict ? [{ task: t.id, story: p.story ?? null, round: p.round ?? 0, verdict: p.verdict, by: t.owner, findings: p.findings?.length ?? 0 }] : [];
  });
  const rows = members.map((m) => {
    const attempts = tasks.flatMap((t) => t.attempts.filter((a) => a.owner === m.name));
    const mine = intervals.filter((i) => i.owner === m.name);
    return {
      name: m.name, runtime: m.runtime,
      completed: attempts.filter((a) => a.outcome === 'completed').length,
      attempts: attempts.length,
      failed: attempts.filter((a) => a.outcome === 'failed').length,
      abandoned: attempts.filter((a) => a.outcome === 'abandoned').length,
      busyMs: parallelism(mine).busyMs,
      spend: m.spend,
    };
  });
  const priced = members.filter((m) => m.spend.usd !== null);
  return {
    team,
    generatedAt: new Date(now).toISOString(),
    span: { start: par.start === null ? null : new Date(par.start).toISOString(), end: par.end === null ? null : new Date(par.end).toISOString(), ms: par.start === null ? 0 : par.end! - par.start },
    tasks: { total: live.length, completed: count('completed'), inProgress: count('in_progress'), pending: count('pending'), blocked: count('blocked'), deleted: count('deleted') },
    done, blocked, stories, verdicts,
    pipeline: pipeline ? { status: pipeline.status, stage: pipeline.stage, reason: pipeline.stoppedReason, fixRounds: pipeline.fixRound } : null,
    rounds: verdicts.reduce((m, v) => Math.max(m, v.round), 0),
    parallelism: { peak: par.peak, average: Math.round(par.average * 100) / 100, busyMs: par.busyMs },
    members: rows,
    total: {
      input: members.reduce((s, m) => s + m.spend.input + m.spend.cacheRead + m.spend.cacheWrite, 0),
      output: members.reduce((s, m) => s + m.spend.output, 0),
      usd: priced.length === 0 ? null : priced.reduce((s, m) => s + m.spend.usd!, 0),
    },
  };
}
