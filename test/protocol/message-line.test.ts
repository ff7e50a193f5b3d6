// The hand-written message check of the inbox read path against the zod Message schema it stands in
// for: on every input below both accept or both refuse, an accepted message comes out as the same
// JSON line (same keys, same order), and a refusal names the same field with the same words.
import { describe, expect, it } from 'vitest';
import { checkMessage } from '../../src/protocol/message-line.js';
import { Message, PROTOCOL_VERSION } from '../../src/protocol/types.js';
import { QUICK_PROTOCOL_VERSION } from '../../src/store/quick-open.js';
import { messageLine, parseMessage } from '../../src/store/inbox.js';

const base = { id: 'msg-1', from: 'lead', to: 'amy', type: 'message', text: 'hi', time: '2026-01-01T00:00:00.000Z' };
const inputs: unknown[] = [
  base,
  { ...base, text: undefined },
  { time: base.time, type: 'result', to: 'amy', from: 'lead', id: 'msg-2' },
  { ...base, payload: { approve: true, nested: { a: [1, 2] } }, request_id: 'req-abcd' },
  { ...base, extra: 'dropped', another: 1 },
  { ...base, payload: {} },
  ...['broadcast', 'idle_notification', 'task_assignment', 'shutdown_request', 'shutdown_response', 'plan_approval_request', 'plan_approval_response'].map((type) => ({ ...base, type })),
  null, [], 'msg', 42, true, {},
  { ...base, id: '' }, { ...base, id: 7 }, { ...base, id: undefined },
  { ...base, from: 'Lead' }, { ...base, from: 'a'.repeat(33) }, { ...base, from: '../x' }, { ...base, from: 3 }, { ...base, from: null },
  { ...base, to: '' }, { ...base, to: undefined },
  { ...base, type: 'telegram' }, { ...base, type: 3 }, { ...base, type: undefined },
  { ...base, text: 5 }, { ...base, text: null },
  { ...base, payload: [] }, { ...base, payload: null }, { ...base, payload: 'x' }, { ...base, payload: 1 },
  { ...base, time: 5 }, { ...base, time: undefined }, { ...base, time: null },
  { ...base, request_id: 5 }, { ...base, request_id: null },
  { ...base, id: '', from: 'X' },
];

describe('message line check', () => {
  it('message.hand-check-agrees-with-the-zod-schema-on-every-input', () => {
    for (const input of inputs) {
      const hand = checkMessage(input);
      const schema = Message.safeParse(input);
      const what = JSON.stringify(input) ?? String(input);
      expect(hand.ok, what).toBe(schema.success);
      if (hand.ok && schema.success) expect(JSON.stringify(hand.msg), what).toBe(JSON.stringify(schema.data));
      if (!hand.ok && !schema.success) {
        const issue = schema.error.issues[0]!;
        expect(hand.path, what).toBe(issue.path.join('.'));
        expect(hand.message, what).toBe(issue.message);
      }
    }
  });

  it('message.lines-written-and-read-back-are-the-schema-output-and-bad-lines-say-why', () => {
    const line = messageLine({ ...base, payload: { approve: false } } as never);
    expect(line.startsWith('{"id":"msg-1"')).toBe(true);
    expect(parseMessage(line)).toEqual({ ok: true, msg: Message.parse(JSON.parse(line)) });
    expect(() => messageLine({ ...base, from: 'Bad' } as never)).toThrow(/from: expected a name matching/);
    expect(parseMessage('{"id":"m"')).toMatchObject({ ok: false, message: expect.stringMatching(/^bad message line: /) });
    expect(parseMessage(JSON.stringify({ ...base, type: 'nope' }))).toEqual({ ok: false, message: expect.stringMatching(/^bad message: type: Invalid option/) });
    // The inbox short path (store/quick-open.ts) reads team.json of the current protocol only.
    expect(QUICK_PROTOCOL_VERSION).toBe(PROTOCOL_VERSION);
    expect(parseMessage('[1]')).toEqual({ ok: false, message: 'bad message: (top): Invalid input: expected object, received array' });
  });
});
