/**
 * An inbox line's message, checked by hand: the same rules as the zod `Message` schema of
 * protocol/types.ts (which keeps the TypeScript type and is checked against this in
 * test/protocol/message-line.test.ts), without loading zod. Reading an inbox is the floor of
 * `teamux inbox read` and of every hook that looks for mail, and zod's module graph alone costs
 * about as much as starting node. Owns the name pattern and the message types, which types.ts
 * re-exports.
 */

/** Member and team names: safe as file names, never able to reach outside the team folder. */
export const NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

/** The message types of the protocol. */
export const MESSAGE_TYPES = [
  'message',
  'broadcast',
  'result',
  'idle_notification',
  'task_assignment',
  'shutdown_request',
  'shutdown_response',
  'plan_approval_request',
  'plan_approval_response',
] as const;

/** A message as the schema returns it (the same shape as types.ts's Message). */
export interface CheckedMessage {
  id: string;
  from: string;
  to: string;
  type: (typeof MESSAGE_TYPES)[number];
  text: string;
  payload?: Record<string, unknown>;
  time: string;
  request_id?: string;
}

const TYPES: ReadonlySet<string> = new Set(MESSAGE_TYPES);

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * `value` as a message (known keys only, in the schema's order, text defaulting to ''), or the first
 * problem as `path: what` the way the zod schema words it.
 */
export function checkMessage(value: unknown): { ok: true; msg: CheckedMessage } | { ok: false; path: string; message: string } {
  const bad = (path: string, message: string) => ({ ok: false as const, path, message });
  const expected = (path: string, want: string, v: unknown) => bad(path, `Invalid input: expected ${want}, received ${kind(v)}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return expected('', 'object', value);
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'string') return expected('id', 'string', v.id);
  if (v.id.length < 1) return bad('id', 'Too small: expected string to have >=1 characters');
  for (const key of ['from', 'to'] as const) {
    const name = v[key];
    if (typeof name !== 'string') return expected(key, 'string', name);
    if (!NAME_PATTERN.test(name)) return bad(key, `expected a name matching ${NAME_PATTERN.source}`);
  }
  if (typeof v.type !== 'string' || !TYPES.has(v.type)) return bad('type', `Invalid option: expected one of ${MESSAGE_TYPES.map((t) => `"${t}"`).join('|')}`);
  if (v.text !== undefined && typeof v.text !== 'string') return expected('text', 'string', v.text);
  if (v.payload !== undefined && (typeof v.payload !== 'object' || v.payload === null || Array.isArray(v.payload))) return expected('payload', 'record', v.payload);
  if (typeof v.time !== 'string') return expected('time', 'string', v.time);
  if (v.request_id !== undefined && typeof v.request_id !== 'string') return expected('request_id', 'string', v.request_id);
  // Built key by key in the schema's order: a written line starts with {"id":"msg-… (torn-line recovery looks for it).
  const msg: Record<string, unknown> = { id: v.id, from: v.from, to: v.to, type: v.type, text: v.text ?? '' };
  if (v.payload !== undefined) msg.payload = v.payload;
  msg.time = v.time;
  if (v.request_id !== undefined) msg.request_id = v.request_id;
  return { ok: true, msg: msg as unknown as CheckedMessage };
}
