/**
 * The longest each text field of the protocol may be when it is written (docs/protocol.md §2): one
 * table, checked by the store inside its transactions (so every entrance — the CLI, MCP, teamux's
 * agent tools, the ops, the screen — is held to it) and advertised in the ops' input schemas. A
 * subject is shown on one line of the board, so it is short; texts meant to be read whole are
 * longer, and all are far below what a reader takes of one file (store/read-regular.cts READ_CAPS).
 * Lengths are in characters (UTF-16 code units, as JavaScript counts them); messages in bytes as stored.
 */
import { refuse, type Outcome } from './outcome.js';

const KiB = 1024;

/** The limits, by field. */
export const FIELD_LIMITS = {
  /** A task's subject: one line on the board. */
  subject: 1000,
  /** A task's description. */
  description: 256 * KiB,
  /** A completed task's result. */
  result: 256 * KiB,
  /** Why a task was released, failed, blocked or reassigned; a request's answer text or reason. */
  reason: 16 * KiB,
  /** A member's role. */
  role: 500,
  /** The body of a request (a plan, a shutdown reason). */
  body: 256 * KiB,
  /** A spawn request's command line. */
  command: 16 * KiB,
  /** One inbox line as stored (the message's JSON), in bytes. */
  messageBytes: 1024 * KiB,
} as const;

/** A field the table limits by characters. */
export type LimitedField = Exclude<keyof typeof FIELD_LIMITS, 'messageBytes'>;

/** A refusal (`invalid_input`) for the first field longer than its limit, else null. */
export function overLimit(fields: Partial<Record<LimitedField, string | null | undefined>>): Outcome<never> | null {
  for (const [field, value] of Object.entries(fields) as Array<[LimitedField, string | null | undefined]>) {
    const max = FIELD_LIMITS[field];
    if (typeof value === 'string' && value.length > max) {
      return refuse('invalid_input', `the ${field} is ${value.length} characters, more than the ${max} a ${field} may have (docs/protocol.md §2)`);
    }
  }
  return null;
}
