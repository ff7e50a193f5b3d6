/**
 * Outcomes of protocol operations: a value, or a refusal with a machine-readable reason (exit code 3
 * on the CLI). A leaf module without zod, so the pure task rules and the CLI's short paths can use
 * it without loading the schemas; types.ts re-exports it.
 */

/** Why the protocol refused an operation (exit code 3 on the CLI). */
export type RefusalReason =
  | 'not_found'
  | 'already_claimed'
  | 'blocked'
  | 'already_completed'
  | 'conflict'
  | 'not_owner'
  | 'cycle'
  | 'unknown_member'
  | 'duplicate'
  | 'not_pending'
  | 'type_mismatch'
  | 'wrong_responder'
  | 'self_approval'
  | 'unsigned'
  | 'untrusted_screen'
  | 'no_ready_task'
  | 'timeout'
  /** Pipeline claims: the task's stage has not been reached (or the pipeline ended). */
  | 'stage_order'
  /** Pipeline claims: the member has no role for that stage. */
  | 'wrong_role'
  /** Pipeline claims: a member may not verify work it authored. */
  | 'self_verification'
  /** Pipeline claims: max_parallel stories are in progress already. */
  | 'parallel_cap'
  /** A plan with more stories than story_cap allows. */
  | 'story_cap'
  /** The task's status has no such transition (claim a completed task, reopen a pending one…). */
  | 'illegal_transition'
  /** Merge: root has uncommitted changes to tracked files (or a merge would overwrite untracked ones). */
  | 'dirty'
  /** Merge: root is not on the base branch the team's worktrees start from. */
  | 'wrong_branch'
  /** The call was malformed or makes no sense (a message to oneself); the CLI exits 1 for it. */
  | 'invalid_input';

/** The result of an operation the protocol may refuse: a value, never an exception. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; reason: RefusalReason; message: string };

/** Build a refusal. */
export function refuse<T = never>(reason: RefusalReason, message: string): Outcome<T> {
  return { ok: false, reason, message };
}

/** Build a success. */
export function accept<T>(value: T): Outcome<T> {
  return { ok: true, value };
}
