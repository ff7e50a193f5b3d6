/**
 * How the CLI prints an inbox message on one line. Shared by the full `inbox read` (cli/msg.ts) and
 * its short path (cli/inbox-fast.ts), so both print the same; it loads nothing but visible.ts.
 */
import type { Message } from '../protocol/types.js';
import { visible } from '../protocol/visible.js';

/** One line per message: time, sender, type, request id, text (control characters and newlines escaped). */
export function formatMessage(m: Message): string {
  const req = m.request_id ? ` [${m.request_id}]` : '';
  const payload = m.payload && 'approve' in m.payload ? ` (${m.payload.approve ? 'approved' : 'rejected'})` : '';
  return `${visible(m.time.slice(11, 19))} ${m.from} → ${m.to} ${m.type}${req}${payload}: ${visible(m.text)}`;
}
