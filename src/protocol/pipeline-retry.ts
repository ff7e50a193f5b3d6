/**
 * The lead's retry of pipeline stories, pure: what `teamux pipeline retry` (and the retry_story lead
 * tool, and `task reopen` on a blocked story task) does to the pipeline's state and board.
 *
 * - A story blocked by its third failed attempt, while its stage (exec or fix) runs or after every
 *   story was blocked: its blocked task is reopened (its failed attempts count again from zero), the
 *   story is pending again, and so are the stories that were blocked only because they wait for it.
 *   In a fix round, a story whose blocked task belongs to an earlier stage gets a fix task of the
 *   round instead, and the round's verify waits for it.
 * - A pipeline that ended (BLOCKED_AFTER_VERIFY after max_fix_rounds, or done with stories blocked):
 *   a new fix round for the stories named (by default the ones the last verdict sent back, and the
 *   blocked ones), and a verify after it. The fix loop's bound starts again from this round.
 * - Refused, with the reason, while plan, prd, verify or report run (wait for the gate), for a pipeline
 *   stopped by a dependency cycle (the plan itself is wrong), and for a story that is not blocked.
 */
import { affectedBy, fixTask, verifyTask, type Transition } from './pipeline-route.js';
import type { PipelineSettings, PipelineState, PipelineTaskLike, PipelineTaskSpec, Story } from './pipeline.js';
import { accept, refuse, type Outcome } from './types.js';

/** What a retry does: the new state, the tasks to reopen and create, and the handoff's transition (when the pipeline was over). */
export interface RetryPlan {
  state: PipelineState;
  /** Ids of blocked story tasks to reopen. */
  reopen: string[];
  create: PipelineTaskSpec[];
  /** Keys of existing tasks that must also wait for created ones: [waiter key, blocker key]. */
  waits: Array<[string, string]>;
  /** The stories retried, and the dependents that are pending again with them. */
  retried: string[];
  unblocked: string[];
  /** A pipeline that had ended runs again: the handoff document's transition. */
  transition: Transition | null;
}

/** The story's task blocked by failed attempts (exec or fix), the latest when there are several. */
function blockedTaskOf(board: readonly PipelineTaskLike[], story: string): PipelineTaskLike | undefined {
  return board.filter((t) => t.status === 'blocked' && t.pipeline?.story === story && (t.pipeline.stage === 'exec' || t.pipeline.stage === 'fix')).at(-1);
}

/**
 * Retry `requested` stories (all retryable ones when empty) as `by`. The caller applies the plan under
 * the pipeline lock: reopens, creates, adds the waits, writes the state and records the events.
 */
export function retryStories(settings: PipelineSettings, state: PipelineState, requested: readonly string[], board: readonly PipelineTaskLike[], by: string, why: string | null, now: string): Outcome<RetryPlan> {
  const known = new Map(state.stories.map((s) => [s.id, s]));
  for (const id of requested) {
    if (!known.has(id)) return refuse('not_found', `"${id}" is not a story of this pipeline (stories: ${[...known.keys()].join(', ') || 'none yet'})`);
  }
  if (state.cycle) return refuse('illegal_transition', `the pipeline stopped on a dependency cycle (${state.cycle.join(' -> ')}): no story was dispatched, so there is nothing to retry; start again from a plan without the cycle`);
  const ownBlocked = (s: Story): boolean => s.status === 'blocked' && blockedTaskOf(board, s.id) !== undefined;
  const ended = state.status === 'BLOCKED_AFTER_VERIFY' || state.status === 'done';
  const working = (state.status === 'running' || state.status === 'stopped') && (state.stage === 'exec' || state.stage === 'fix');
  if (!ended && !working) {
    return refuse('stage_order', `the pipeline is at ${state.stage}; a story is retried while exec or fix runs or once the pipeline has ended, so wait for the ${state.stage} gate`);
  }
  const last = state.verdicts.at(-1);
  const sentBack = state.status === 'BLOCKED_AFTER_VERIFY' && last ? affectedBy(last.findings, state.stories).map((s) => s.id) : [];
  const targets = requested.length ? [...new Set(requested)] : state.stories.filter((s) => ownBlocked(s) || sentBack.includes(s.id)).map((s) => s.id);
  if (targets.length === 0) return refuse('illegal_transition', `no story to retry: none is blocked${state.status === 'BLOCKED_AFTER_VERIFY' ? ' or sent back by the last verdict' : ''} (pipeline ${state.status} at ${state.stage})`);
  for (const id of targets) {
    const s = known.get(id)!;
    const retryable = ownBlocked(s) || (state.status === 'BLOCKED_AFTER_VERIFY' && s.status === 'done');
    if (retryable) continue;
    if (s.status === 'blocked') return refuse('illegal_transition', `story ${id} is blocked because ${s.reason ?? 'a story it waits for is blocked'}: retry that story, and ${id} follows`);
    return refuse('illegal_transition', `story ${id} is ${s.status}, not blocked${s.status === 'done' ? '; a verify verdict sends finished work back to a fix round' : ''}`);
  }
  // Dependents blocked only by a retried story (directly or through another such one) are pending again.
  const stillBlocked = new Set(state.stories.filter((s) => s.status === 'blocked' && !targets.includes(s.id)).map((s) => s.id));
  const unblocked: string[] = [];
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of state.stories) {
      if (!stillBlocked.has(s.id) || ownBlocked(s) || s.blockedBy.some((b) => stillBlocked.has(b))) continue;
      stillBlocked.delete(s.id);
      unblocked.push(s.id);
      grew = true;
    }
  }
  const again = new Set([...targets, ...unblocked]);
  const stories = state.stories.map((s): Story => (again.has(s.id) && s.status === 'blocked' ? { ...s, status: 'pending', reason: null } : s));
  const base: PipelineState = { ...state, stories, status: 'running', stoppedReason: null, updatedAt: now };
  const reason = why ? `: ${why}` : '';

  if (working && state.stage === 'exec') {
    // Dependents' exec tasks wait for their blockers' tasks already: reopening the blocked ones is enough.
    return accept({ state: base, reopen: targets.map((id) => blockedTaskOf(board, id)!.id), create: [], waits: [], retried: targets, unblocked, transition: null });
  }
  if (working) {
    // A fix round runs: a story blocked in this round's fix task reopens it; others get one, and the round's verify waits for it.
    const round = state.fixRound;
    const reopen: string[] = [];
    const create: PipelineTaskSpec[] = [];
    for (const id of [...targets, ...unblocked]) {
      const t = blockedTaskOf(board, id);
      if (t?.pipeline?.stage === 'fix' && t.pipeline.round === round) reopen.push(t.id);
      else create.push(fixTask(known.get(id)!, round, [`Retried by ${by} in fix round ${round}${reason}.`], depsIn(known.get(id)!, again, round)));
    }
    return accept({ state: base, reopen, create, waits: create.map((c) => [`verify-r${round}`, c.key]), retried: targets, unblocked, transition: null });
  }
  // The pipeline had ended: a new fix round, and the bound starts again from it.
  const round = state.fixRound + 1;
  const create = [...targets, ...unblocked].map((id) => fixTask(known.get(id)!, round, [`Retried by ${by} after the pipeline ended ${state.status}${reason}.`, ...(last ? last.findings.filter((f) => f.story === undefined || f.story === id).map((f) => `- ${f.severity}: ${f.text}`) : [])], depsIn(known.get(id)!, again, round)));
  const next: PipelineState = { ...base, stage: 'fix', fixRound: round, fixBase: state.fixRound };
  const verify = verifyTask(round, create.map((c) => c.key), stories);
  return accept({
    state: next, reopen: [], create: [...create, verify], waits: [], retried: targets, unblocked,
    transition: {
      from: 'verify', to: 'fix', producer: by, verdict: null,
      decisions: [`retry by ${by}${reason}: fix round ${round} for ${[...again].join(', ')}; the fix loop's bound starts again (max_fix_rounds ${settings.maxFixRounds} from this round)`],
      rejected: [`leaving the pipeline ${state.status}`], risks: state.stoppedReason ? [state.stoppedReason] : [], outputs: [...create.map((c) => c.key), verify.key],
    },
  });
}

/** The fix keys of this round that story `s` waits for (its blockers retried with it). */
function depsIn(s: Story, again: ReadonlySet<string>, round: number): string[] {
  return s.blockedBy.filter((b) => again.has(b)).map((b) => `fix-r${round}-${b}`);
}
