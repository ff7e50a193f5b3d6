/**
 * The plan gate and the tool permissions, decided at dispatch: pure functions of what the member
 * process fixed at its start (a GateAnchor: whether it needs a plan, who approves, the trust key and
 * run from its environment) and of its current plan request, so no model output, hand-edited file or
 * child process can talk its way past them. A member with planRequired may not run a mutating tool
 * until its current plan (the newest of this run) carries an approval signed by its approver and
 * verified against the trust key; a teammate may not run a lead-only tool; a `tools` allowlist in
 * team.json narrows either set further.
 */
import type { PlanStatus } from '../protocol/requests.js';

export { gateAnchorAtStart, memberPlanStatus, untrustedReason, type GateAnchor } from '../protocol/plan-gate.js';

/** Tools that change the world outside the team folder: held back until a required plan is approved. */
export const MUTATING_TOOLS: ReadonlySet<string> = new Set(['bash', 'write_file', 'edit_file']);

/** Whether a tool may run now, and if not, the tool result the model gets instead. */
export type GateDecision = { allow: true } | { allow: false; reason: string };

/**
 * Decide whether `tool` may run for a member whose plan gate is in `status`; `gated` says which tools
 * the gate holds (teamux's own agent: its mutating tools; Claude Code: all but its read-only ones,
 * claude/tool-gate.ts).
 */
export function gateDecision(tool: string, status: PlanStatus, gated: (tool: string) => boolean = (t) => MUTATING_TOOLS.has(t)): GateDecision {
  if (!gated(tool)) return { allow: true };
  if (status === 'not_required' || status === 'approved') return { allow: true };
  const hint = status === 'pending'
    ? 'wait for the plan_approval_response before changing anything'
    : status === 'rejected'
      ? 'revise the plan using the feedback and submit it again with submit_plan'
      : status === 'unverified'
        ? 'the answer on record is not signed by your approver for this plan, so it does not count; wait for a signed answer'
        : 'submit a plan with submit_plan and wait for its approval';
  return { allow: false, reason: `blocked: plan status is ${status} (${hint})` };
}

/** Whether a member may use a tool: one rule for every front end, kept with the ops. */
export { toolPermitted } from '../ops/invoke.js';
