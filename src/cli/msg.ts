/**
 * `teamux msg …` and `teamux inbox read`: sending to one member or all of them, and reading an
 * inbox with a cursor, through the shared ops (src/ops/messages.ts). `inbox read --wait` sleeps on a
 * file watch until something arrives; the cursor moves only after the messages were printed.
 */
import { broadcast, commitInbox, readInbox, sendTyped } from '../ops/messages.js';
import { MessageType } from '../protocol/types.js';
import { visible } from '../protocol/visible.js';
import { actingAs, EXIT_OK, EXIT_REFUSED, messageText, openTeam, parse, report, rosterHint, TEAM_OPTIONS, UsageError } from './context.js';
import { dispatch, runAs } from './task.js';
import type { SubVerb, Verb } from './verb.js';
import { formatMessage } from './message-format.js';

export { formatMessage };

const msgSub: SubVerb[] = [
  {
    name: 'send',
    usage: 'msg send --from A --to B [--type T] [--request-id R] TEXT|-',
    async run(ctx, argv) {
      const opts = { ...TEAM_OPTIONS, from: { type: 'string' }, to: { type: 'string' }, type: { type: 'string', default: 'message' }, 'request-id': { type: 'string' } } as const;
      const { values, positionals } = parse(argv, opts, this.usage);
      const from = actingAs(ctx, values.from, '--from');
      if (!values.to) throw new UsageError('missing --to', `usage: ${this.usage}`);
      const type = MessageType.safeParse(values.type);
      if (!type.success) throw new UsageError(`--type "${values.type}" is not a message type`, `use one of: ${MessageType.options.join(', ')}`);
      if (type.data === 'broadcast') throw new UsageError('use `teamux msg broadcast` to send to everyone');
      const text = await messageText(ctx, positionals, this.usage);
      const store = await openTeam(ctx, values['team-dir']);
      const to = values.to;
      const kind = type.data;
      const r = await runAs(store, from, (octx) => sendTyped(octx, { to, text, type: kind, request_id: values['request-id'] }));
      const hint = !r.ok && r.reason === 'unknown_member' ? await rosterHint(store, (await store.member(from)).ok ? to : from) : undefined;
      return report(ctx, values.json, r, (m) => `sent ${m.type} ${m.id} to ${m.to}`, hint);
    },
  },
  {
    name: 'broadcast',
    usage: 'msg broadcast --from A TEXT|-',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, from: { type: 'string' } }, this.usage);
      const from = actingAs(ctx, values.from, '--from');
      const text = await messageText(ctx, positionals, this.usage);
      const store = await openTeam(ctx, values['team-dir']);
      const r = await runAs(store, from, (octx) => broadcast.run({ text }, octx));
      const hint = !r.ok && r.reason === 'unknown_member' ? await rosterHint(store, from) : undefined;
      return report(ctx, values.json, r, (ms) => `broadcast to ${ms.length} member${ms.length === 1 ? '' : 's'}: ${ms.map((m) => m.to).join(', ')}`, hint);
    },
  },
];

export const msgVerb: Verb = {
  name: 'msg',
  usage: msgSub.map((s) => s.usage),
  examples: ['teamux msg send --from lead --to alice "please take task 2"', 'teamux msg send --from alice --to lead --type result "task 2 done"', 'teamux msg broadcast --from lead "wrap up in 5 minutes"', 'git diff | teamux msg send --from alice --to lead -'],
  run: (ctx, argv) => dispatch('msg', msgSub, ctx, argv),
};

const inboxSub: SubVerb[] = [
  {
    name: 'read',
    usage: 'inbox read --as NAME [--wait SECONDS] [--peek]',
    async run(ctx, argv) {
      const { values } = parse(argv, { ...TEAM_OPTIONS, as: { type: 'string' }, wait: { type: 'string' }, peek: { type: 'boolean', default: false } }, this.usage);
      const as = actingAs(ctx, values.as);
      const wait = values.wait === undefined ? 0 : Number(values.wait);
      if (!Number.isFinite(wait) || wait < 0 || wait > 86_400) throw new UsageError(`--wait "${values.wait}" is not a number of seconds`, 'give 0 to 86400');
      const store = await openTeam(ctx, values['team-dir']);
      const got = await runAs(store, as, (octx) => readInbox.run({ wait_s: wait, peek: values.peek }, octx));
      if (!got.ok) return report(ctx, values.json, got, () => '');
      const r = got.value;
      for (const p of r.problems) ctx.err(`teamux: skipped ${visible(p.path)}: ${visible(p.message)}`);
      if (wait > 0 && r.messages.length === 0) {
        await commitInbox(store, r);
        if (values.json) ctx.out(JSON.stringify({ ok: false, reason: 'timeout', message: `no message for ${as} within ${wait}s`, messages: [], problems: r.problems }));
        else ctx.err(`teamux: no message for ${as} within ${wait}s`);
        return EXIT_REFUSED;
      }
      if (values.json) ctx.out(JSON.stringify({ ok: true, messages: r.messages, problems: r.problems }));
      else if (r.messages.length > 0) ctx.out(r.messages.map(formatMessage).join('\n'));
      // The cursor moves once the messages are printed (a peek leaves it).
      await commitInbox(store, r);
      return EXIT_OK;
    },
  },
];

export const inboxVerb: Verb = {
  name: 'inbox',
  usage: inboxSub.map((s) => s.usage),
  examples: ['teamux inbox read --as alice', 'teamux inbox read --as alice --wait 30 --json'],
  run: (ctx, argv) => dispatch('inbox', inboxSub, ctx, argv),
};

