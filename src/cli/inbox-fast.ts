/**
 * The short path of `teamux inbox read`, the call an agent makes most: the plain form
 * (`inbox read [--as NAME] [--team-dir DIR] [--json] [--peek]` on a team folder) reads and commits
 * the member's cursor with store/inbox.ts alone, loading neither zod nor the rest of the store. It
 * prints exactly what the full verb (cli/msg.ts) prints. Anything else (--wait, --help, a NATS store,
 * another flag, no folder given, a folder the full store would refuse or warn about, a name this
 * process may not act as) returns null and the full verb runs, with its messages and hints.
 */
import * as path from 'node:path';
import type { CliContext } from './context.js';
import { formatMessage } from './message-format.js';
import { UnsafePathError } from '../store/fsx.js';
import { quickMailbox } from '../store/quick-open.js';
import { visible } from '../protocol/visible.js';

interface Plain {
  as?: string;
  teamDir?: string;
  json: boolean;
  peek: boolean;
}

/** The options of the plain form, or null for anything else. */
function plainArgs(argv: readonly string[]): Plain | null {
  if (argv[0] !== 'read') return null;
  const out: Plain = { json: false, peek: false };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    if ((flag === '--json' || flag === '--peek') && inline === undefined) {
      if (flag === '--json') out.json = true;
      else out.peek = true;
      continue;
    }
    if (flag !== '--as' && flag !== '--team-dir') return null;
    const value = inline ?? argv[++i];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('-'))) return null;
    if (flag === '--as') {
      if (out.as !== undefined) return null;
      out.as = value;
    } else {
      if (out.teamDir !== undefined) return null;
      out.teamDir = value;
    }
  }
  return out;
}

/** Run `inbox read` (argv after the verb) the short way; null: the full verb must run. */
export async function inboxReadFast(argv: readonly string[], ctx: CliContext): Promise<number | null> {
  const o = plainArgs(argv);
  if (!o) return null;
  // A NATS store, or a member name this process may not use: the full verb decides and explains.
  if (ctx.env.TEAMUX_STORE || ctx.env.TEAMUX_TEAM) return null;
  const mine = ctx.env.TEAMUX_MEMBER;
  if (mine && o.as !== undefined && o.as !== mine) return null;
  const as = o.as ?? mine;
  const dir = o.teamDir ?? ctx.env.TEAMUX_TEAM_DIR;
  if (!as || !dir) return null;
  const mail = await quickMailbox(path.resolve(ctx.cwd, dir), as);
  if (!mail) return null;
  // Anything amiss while reading (a planted link, a folder that went away): the full verb reports it.
  const r = await mail.unread(as, as).catch(() => null);
  if (!r) return null;
  for (const p of r.problems) ctx.err(`teamux: skipped ${visible(p.path)}: ${visible(p.message)}`);
  if (o.json) ctx.out(JSON.stringify({ ok: true, messages: r.messages, problems: r.problems }));
  else if (r.messages.length > 0) ctx.out(r.messages.map(formatMessage).join('\n'));
  // The cursor moves once the messages are printed (a peek leaves it), as ops/messages.ts commitInbox.
  if (!o.peek && (r.messages.length > 0 || r.problems.length > 0)) {
    try {
      await mail.commit(as, as, r.next);
    } catch (err) {
      // The messages are printed already: report a refused cursor write as main.ts does, not again.
      if (!(err instanceof UnsafePathError)) throw err;
      if (o.json) ctx.out(JSON.stringify({ ok: false, reason: 'unsafe_path', message: err.message, path: err.path, hint: err.hint }));
      ctx.err(`teamux: refused: ${err.message}\n  hint: ${err.hint}`);
      return 1;
    }
  }
  return 0;
}
