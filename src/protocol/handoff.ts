/**
 * Handoff documents, pure: one Markdown file per stage transition of the pipeline, and the final
 * report when it ends. A document is a descriptor (front matter: kind, path, contentHash = sha256 of
 * the body, createdAt, producer, sizeBytes, retention, expiresAt, status) over a body with the
 * sections Inputs, Decisions, Rejected Alternatives, Risks, Outputs and Remaining Work. The store
 * writes what these functions return (src/store/pipeline.ts); the text is built from the routing's
 * fields, never from a model's prose alone.
 */
import { createHash } from 'node:crypto';
import type { PipelineState } from './pipeline.js';
import type { Transition } from './pipeline-route.js';
import type { Task } from './types.js';

/** What a handoff's front matter says about its body. */
export interface HandoffDescriptor {
  kind: 'handoff' | 'report';
  path: string;
  contentHash: string;
  createdAt: string;
  producer: string;
  sizeBytes: number;
  retention: string;
  expiresAt: string;
  status: string;
}

/** A document ready to write: its path (relative to the team folder), descriptor and full text. */
export interface HandoffDocument {
  path: string;
  descriptor: HandoffDescriptor;
  text: string;
}

/** Where the transition's document goes: handoffs/NN-from-to.md. */
export function handoffPath(seq: number, t: Pick<Transition, 'from' | 'to'>): string {
  return `handoffs/${String(seq).padStart(2, '0')}-${t.from}-${t.to.toLowerCase().replace(/_/g, '-')}.md`;
}

/** The status word of a transition: passed, returned (to a fix round), stopped, blocked or done. */
export function transitionStatus(t: Transition): string {
  if (t.to === 'stopped') return 'stopped';
  if (t.to === 'BLOCKED_AFTER_VERIFY') return 'blocked';
  if (t.to === 'done') return 'done';
  if (t.from === 'verify' && t.to === 'fix') return 'returned';
  return 'passed';
}

/** A dispatched task as the Outputs section lists it. */
export interface Dispatched {
  key: string;
  id: string;
  subject: string;
}

/** The document of one stage transition. */
export function handoffDocument(t: Transition, state: PipelineState, opts: { seq: number; createdAt: string; retentionDays: number; inputs: string[]; dispatched: Dispatched[] }): HandoffDocument {
  const remaining = state.stories.filter((s) => s.status !== 'done').map((s) => `story ${s.id} (${s.status}${s.reason ? `: ${s.reason}` : ''}): ${s.subject}`);
  const next = t.to === 'done' || t.to === 'stopped' || t.to === 'BLOCKED_AFTER_VERIFY' ? [] : [`the ${t.to} stage`];
  const body = [
    `# Handoff: ${t.from} → ${t.to}${t.verdict ? ` (${t.verdict})` : ''}`,
    '',
    section('Inputs', opts.inputs),
    section('Decisions', t.decisions),
    section('Rejected Alternatives', t.rejected),
    section('Risks', t.risks),
    section('Outputs', opts.dispatched.map((d) => `task ${d.id} (${d.key}): ${d.subject}`)),
    section('Remaining Work', [...remaining, ...next]),
  ].join('\n');
  return document('handoff', handoffPath(opts.seq, t), body, t.producer, transitionStatus(t), opts.createdAt, opts.retentionDays);
}

/** Peak and average number of pipeline tasks in progress at once, from claim and completion times. */
export function parallelism(tasks: ReadonlyArray<Pick<Task, 'claimedAt' | 'completedAt'>>): { peak: number; average: number } {
  const spans = tasks.flatMap((t) => (t.claimedAt && t.completedAt ? [[Date.parse(t.claimedAt), Date.parse(t.completedAt)] as const] : []));
  if (spans.length === 0) return { peak: 0, average: 0 };
  const edges = spans.flatMap(([a, b]) => [[a, 1], [b, -1]] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (now += d));
  const busy = spans.reduce((sum, [a, b]) => sum + (b - a), 0);
  const wall = Math.max(...spans.map(([, b]) => b)) - Math.min(...spans.map(([a]) => a));
  return { peak, average: wall > 0 ? Math.round((busy / wall) * 100) / 100 : peak };
}

/** The final report of a pipeline that ended: stories done and blocked, verdicts and rounds, parallelism, durations. */
export function finalReport(state: PipelineState, tasks: readonly Task[], opts: { producer: string; createdAt: string; retentionDays: number; summary: string | null }): HandoffDocument {
  const mine = tasks.filter((t) => t.pipeline);
  const work = mine.filter((t) => t.pipeline!.stage === 'exec' || t.pipeline!.stage === 'fix');
  const par = parallelism(work);
  const times = mine.flatMap((t) => [Date.parse(t.createdAt), ...(t.completedAt ? [Date.parse(t.completedAt)] : [])]);
  const seconds = times.length ? Math.round((Math.max(...times) - Math.min(...times)) / 1000) : 0;
  const done = state.stories.filter((s) => s.status === 'done');
  const blocked = state.stories.filter((s) => s.status !== 'done');
  const body = [
    `# Pipeline report: ${state.status}`,
    '',
    section('Inputs', [`${state.stories.length} stories from the plan`, ...state.handoffs.map((h) => `handoff ${h}`)]),
    section('Decisions', [
      `status: ${state.status}${state.stoppedReason ? ` (${state.stoppedReason})` : ''}`,
      ...state.verdicts.map((v) => `verdict ${v.verdict} by ${v.by} in round ${v.round} (task ${v.task}), ${v.findings.length} finding(s)`),
      `fix rounds: ${state.fixRound}`,
      ...(opts.summary ? [`summary: ${opts.summary}`] : []),
    ]),
    section('Rejected Alternatives', state.verdicts.filter((v) => v.verdict !== 'APPROVE' && v.verdict !== 'ACCEPT_WITH_RESERVATIONS').map((v) => `round ${v.round} as it stood: ${v.verdict}`)),
    section('Risks', [...state.warnings, ...state.verdicts.flatMap((v) => v.findings.map((f) => `${f.severity}${f.story ? ` (${f.story})` : ''}: ${f.text}`))]),
    section('Outputs', [
      `stories done: ${done.length}${done.length ? ` (${done.map((s) => `${s.id} by ${s.authors.join('+')}`).join(', ')})` : ''}`,
      `stories blocked: ${blocked.length}${blocked.length ? ` (${blocked.map((s) => `${s.id}: ${s.reason ?? s.status}`).join('; ')})` : ''}`,
      `parallelism: peak ${par.peak}, average ${par.average} stories in progress`,
      `duration: ${seconds} s over ${mine.length} pipeline tasks`,
      ...mine.filter((t) => t.completedAt && t.claimedAt).map((t) => `task ${t.id} ${t.pipeline!.key} by ${t.owner}: ${Math.round((Date.parse(t.completedAt!) - Date.parse(t.claimedAt!)) / 1000)} s${t.pipeline!.verdict ? `, ${t.pipeline!.verdict}` : ''}`),
    ]),
    section('Remaining Work', blocked.map((s) => `story ${s.id}: ${s.subject}`)),
  ].join('\n');
  return document('report', 'pipeline/report.md', body, opts.producer, state.status, opts.createdAt, opts.retentionDays);
}

function section(title: string, items: readonly string[]): string {
  const lines = items.length ? items.map((i) => `- ${i.replace(/\s*\n\s*/g, ' ')}`) : ['- none'];
  return [`## ${title}`, '', ...lines, ''].join('\n');
}

function document(kind: HandoffDescriptor['kind'], path: string, body: string, producer: string, status: string, createdAt: string, retentionDays: number): HandoffDocument {
  const expires = new Date(Date.parse(createdAt) + retentionDays * 86_400_000).toISOString();
  const descriptor: HandoffDescriptor = {
    kind, path, contentHash: `sha256:${createHash('sha256').update(body, 'utf8').digest('hex')}`, createdAt, producer,
    sizeBytes: Buffer.byteLength(body, 'utf8'), retention: `${retentionDays}d`, expiresAt: expires, status,
  };
  const front = Object.entries(descriptor).map(([k, v]) => `${k}: ${typeof v === 'number' ? v : JSON.stringify(v)}`);
  return { path, descriptor, text: ['---', ...front, '---', body].join('\n') };
}

/** Split a document into its descriptor fields and body, and check the body against contentHash and sizeBytes. */
export function readHandoff(text: string): { fields: Record<string, string | number>; body: string; intact: boolean } | null {
  const m = /^---\n([^]*?)\n---\n([^]*)$/.exec(text);
  if (!m) return null;
  const fields: Record<string, string | number> = {};
  for (const line of m[1]!.split('\n')) {
    const i = line.indexOf(': ');
    if (i < 0) continue;
    const raw = line.slice(i + 2);
    fields[line.slice(0, i)] = raw.startsWith('"') ? (JSON.parse(raw) as string) : Number(raw);
  }
  const body = m[2]!;
  const hash = `sha256:${createHash('sha256').update(body, 'utf8').digest('hex')}`;
  return { fields, body, intact: fields['contentHash'] === hash && fields['sizeBytes'] === Buffer.byteLength(body, 'utf8') };
}
