/**
 * The team folder's lock protocol, in one place (proper-lockfile's): the lock on a file is the folder
 * `<file>.lock`, taken with mkdir, kept fresh by its holder moving the folder's mtime every
 * `updateMs`, stale once the mtime is `staleMs` old (then anyone may remove it and take it), released
 * with rmdir. Its three speakers read these figures from here: store/lock.ts (proper-lockfile),
 * store/dir-lock.ts (the same protocol without the package) and the Perl status line
 * (agents/claude/hook-perl.ts, the figures written into the script). Imports nothing.
 */
export const LOCK_PROTOCOL = {
  /** The lock folder's name: the target's, with this appended. */
  suffix: '.lock',
  /** A lock whose mtime has not moved for this long is stale. */
  staleMs: 5_000,
  /** How often a holder moves its lock's mtime. */
  updateMs: 1_000,
  /** Retries while the lock is busy: about 10 s, backing off from minTimeoutMs to maxTimeoutMs by factor. */
  retries: 300,
  minTimeoutMs: 1,
  maxTimeoutMs: 40,
  factor: 1.3,
} as const;
