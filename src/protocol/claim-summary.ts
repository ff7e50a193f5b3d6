/**
 * Why claim-next found nothing to claim although tasks were ready, pure: the refusals the claim's
 * guard (the pipeline's rules: wrong_role, self_verification, parallel_cap, stage_order) gave for
 * each ready task, summed up in the `no_ready_task` message — `3 tasks waiting: 2 wrong_role
 * (7, 8), 1 parallel_cap (9)` and the first reason of each kind — so a member (CLI, MCP or teamux's
 * agent) knows whether to wait, or that the work is not for it.
 */
import { byId } from './tasks.js';
import { refuse, type Outcome, type RefusalReason } from './outcome.js';

/** One ready task the guard refused. */
export interface GuardRefusal {
  id: string;
  reason: RefusalReason;
  message: string;
}

/** The message when no task is ready at all. */
export const NONE_READY = 'no task is ready to claim';

/** The `no_ready_task` refusal for `by`, naming the ready tasks that were refused and why. */
export function noReadyTask(by: string, refused: readonly GuardRefusal[]): Outcome<never> {
  if (refused.length === 0) return refuse('no_ready_task', NONE_READY);
  const groups = new Map<RefusalReason, GuardRefusal[]>();
  for (const r of [...refused].sort((a, b) => byId(a.id, b.id))) groups.set(r.reason, [...(groups.get(r.reason) ?? []), r]);
  // The commonest reason first; ties in a fixed order.
  const ordered = [...groups.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  const counts = ordered.map(([reason, list]) => `${list.length} ${reason} (${list.map((r) => r.id).join(', ')})`).join(', ');
  const why = ordered.map(([reason, list]) => `${reason}: ${list[0]!.message}`).join('; ');
  const n = refused.length;
  return refuse('no_ready_task', `no task ${by} can claim now: ${n} task${n === 1 ? '' : 's'} waiting: ${counts} — ${why}`);
}
