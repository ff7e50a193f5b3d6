/**
 * The sidebar's pipeline line and the verdict badges on tasks, pure: from the pipeline's summary
 * (stage, wave, fix round of its bound, verifier) to one styled row; from a verdict to a short badge.
 */
import type { PipelineSummary, Verdict } from '../protocol/pipeline.js';
import { C, fit, style, type Row } from './text.js';

/** The pipeline line's text: `PIPELINE exec · wave 1/2 · fix 0/3 · verifier carol`. */
export function pipelineLineText(p: PipelineSummary): string {
  const where = p.status === 'running' ? p.stage : p.status === 'done' ? 'done' : p.status === 'stopped' ? 'STOPPED' : 'BLOCKED_AFTER_VERIFY';
  const wave = p.waves > 0 ? ` · wave ${p.wave || p.waves}/${p.waves}` : '';
  return `PIPELINE ${where}${wave} · fix ${p.fixRound}/${p.maxFixRounds} · verifier ${p.verifier ?? '-'}`;
}

/** The pipeline line as a sidebar row: green when done, red when it stopped or is blocked. */
export function pipelineLineRow(p: PipelineSummary, width: number): Row {
  const attr = p.status === 'done' ? style(C.green, C.default, { bold: true }) : p.status === 'running' ? style(C.cyan, C.default, { bold: true }) : style(C.red, C.default, { bold: true });
  return [{ text: fit(pipelineLineText(p), width), attr }];
}

const BADGE: Record<Verdict, string> = { APPROVE: 'APPROVE', ACCEPT_WITH_RESERVATIONS: 'ACCEPT*', ITERATE: 'ITERATE', REVISE: 'REVISE', REJECT: 'REJECT' };

/** A verdict badge for a task row (` [REVISE]`), or '' for a task without one. */
export function verdictBadge(verdict: Verdict | null | undefined): string {
  return verdict ? ` [${BADGE[verdict]}]` : '';
}
