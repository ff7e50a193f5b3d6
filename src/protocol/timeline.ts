/**
 * The run as a picture's data, pure: one row per member, a bar per task attempt (claimed → completed,
 * failed, abandoned, released or reassigned; open while it runs), the member's waits for an answer
 * (its plan and permission requests, from opened to answered) and its idle gaps (between one attempt's
 * end and the next one's start), and the pipeline's stages marked where their first attempt began.
 * Built from what the board and the requests already hold, so the web view and `teamux report --html`
 * draw the same thing (web/timeline-svg.ts).
 */
import type { AttemptOutcome, ProtocolRequest, Task } from './types.js';

/** One attempt of a task by one member, ms since the epoch. */
export interface TimelineBar {
  task: string;
  subject: string;
  start: number;
  end: number;
  /** null: still running. */
  outcome: AttemptOutcome | null;
  stage: string | null;
}

/** A stretch of time in a member's row. */
export interface TimelineSpan {
  start: number;
  end: number;
  /** For a wait: what it waited for ("plan", "Bash"). */
  label?: string;
}

export interface TimelineRow {
  member: string;
  bars: TimelineBar[];
  waits: TimelineSpan[];
  idle: TimelineSpan[];
}

export interface Timeline {
  start: number;
  end: number;
  rows: TimelineRow[];
  stages: Array<{ time: number; stage: string }>;
}

const ms = (iso: string | null | undefined, fallback: number): number => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t : fallback;
};

/** The timeline of a run at `now`; members are the given ones first (roster order), then any other owner. */
export function buildTimeline(tasks: readonly Task[], requests: readonly ProtocolRequest[], members: readonly string[], now: number): Timeline {
  const rows = new Map<string, TimelineRow>();
  const row = (member: string): TimelineRow => {
    let r = rows.get(member);
    if (!r) rows.set(member, (r = { member, bars: [], waits: [], idle: [] }));
    return r;
  };
  for (const m of members) row(m);
  const firstOfStage = new Map<string, number>();
  for (const t of tasks) {
    const stage = t.pipeline?.stage ?? null;
    for (const a of t.attempts) {
      const start = ms(a.startedAt, NaN);
      if (!Number.isFinite(start)) continue;
      const end = Math.max(start, a.endedAt ? ms(a.endedAt, now) : now);
      row(a.owner).bars.push({ task: t.id, subject: t.subject, start, end, outcome: a.endedAt ? a.outcome : null, stage });
      if (stage && start < (firstOfStage.get(stage) ?? Infinity)) firstOfStage.set(stage, start);
    }
  }
  for (const q of requests) {
    if (q.type !== 'plan_approval' && q.type !== 'permission') continue;
    const start = ms(q.createdAt, NaN);
    if (!Number.isFinite(start)) continue;
    const end = Math.max(start, q.status === 'pending' ? now : ms(q.resolvedAt ?? q.response?.at, start));
    row(q.from).waits.push({ start, end, label: q.type === 'plan_approval' ? 'plan' : String(q.payload?.['tool'] ?? 'permission') });
  }
  let start = Infinity;
  let end = -Infinity;
  for (const r of rows.values()) {
    r.bars.sort((a, b) => a.start - b.start);
    r.waits.sort((a, b) => a.start - b.start);
    let busyUntil = -Infinity;
    for (const b of r.bars) {
      if (Number.isFinite(busyUntil) && b.start > busyUntil) r.idle.push({ start: busyUntil, end: b.start });
      busyUntil = Math.max(busyUntil, b.end);
    }
    for (const s of [...r.bars, ...r.waits]) {
      start = Math.min(start, s.start);
      end = Math.max(end, s.end);
    }
  }
  if (!Number.isFinite(start)) start = end = now;
  const stages = [...firstOfStage].map(([stage, time]) => ({ stage, time })).sort((a, b) => a.time - b.time);
  return { start, end: Math.max(end, start + 1), rows: [...rows.values()], stages };
}
