/**
 * The short path of `teamux inbox read`, the call an agent makes most: the plain form
 * (`inbox read [--as NAME] [--team-dir DIR] [--json] [--peek]` on a team folder) reads and commits
 * the member's cursor with store/inbox.ts alone, loading neither zod nor the rest of the store. It
 * prints exactly what the full verb (cli/msg.ts) prints. Anything else (--wait, --help, a NATS store,
 * another flag, no folder given, a folder the full store would refuse or warn about, a name this
 * process may not act as) returns null and the full verb runs, with its messages and hints.
 */
import type { CliContext } from './context.js';
import { fastIdentity, plainArgs } from './fast-args.js';
import { formatMessage } from './message-format.js';
import { UnsafePathError } from '../store/fsx.js';
import { quickMailbox } from '../store/quick-open.js';
import { visible } from '../protocol/visible.js';

/** Run `inbox read` (argv after the verb) the short way; null: the full verb must run. */
export async function inboxReadFast(argv: readonly string[], ctx: CliContext): Promise<number | null> {
  if (argv[0] !== 'read') return null;
  const o = plainArgs(argv.slice(1), ['--json', '--peek']);
  const who = o && fastIdentity(o, ctx);
  if (!o || !who) return null;
  const { as } = who;
  const json = o.switches.has('--json');
  const mail = await quickMailbox(who.dir, as);
  if (!mail) return null;
  // Anything amiss while reading (a planted link, a folder that went away): the full verb reports it.
  const r = await mail.unread(as, as).catch(() => null);
  if (!r) return null;
  for (const p of r.problems) ctx.err(`teamux: skipped ${visible(p.path)}: ${visible(p.message)}`);
  if (json) ctx.out(JSON.stringify({ ok: true, messages: r.messages, problems: r.problems }));
  else if (r.messages.length > 0) ctx.out(r.messages.map(formatMessage).join('\n'));
  // The cursor moves once the messages are printed (a peek leaves it), as ops/messages.ts commitInbox.
  if (!o.switches.has('--peek') && (r.messages.length > 0 || r.problems.length > 0)) {
    try {
      await mail.commit(as, as, r.next);
    } catch (err) {
      // The messages are printed already: report a refused cursor write as main.ts does, not again.
      if (!(err instanceof UnsafePathError)) throw err;
      if (json) ctx.out(JSON.stringify({ ok: false, reason: 'unsafe_path', message: err.message, path: err.path, hint: err.hint }));
      ctx.err(`teamux: refused: ${err.message}\n  hint: ${err.hint}`);
      return 1;
    }
  }
  return 0;
}
