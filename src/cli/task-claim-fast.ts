/**
 * The short path of `teamux task claim`, the call a member makes each time it looks for work: the
 * plain form (`task claim [ID] [--as NAME] [--team-dir DIR] [--json]` on a team folder) claims through
 * store/quick-claim.ts, loading neither zod nor the rest of the store, and prints exactly what the
 * full verb (cli/task.ts through cli/context.ts's report) prints, with the same exit codes. Anything
 * else (--help, a NATS store, another flag, no folder given, a name this process may not act as, a
 * staged pipeline, a file the short path does not read the same way) returns null and the full verb
 * runs, with its messages and hints.
 */
import type { CliContext } from './context.js';
import { fastIdentity, plainArgs } from './fast-args.js';
import { OPERATOR } from '../protocol/operator.js';
import { visible } from '../protocol/visible.js';
import { UnsafePathError } from '../store/fsx.js';
import { LockBusyError } from '../store/dir-lock.js';
import { quickClaim } from '../store/quick-claim.js';

/** Exit codes, as context.ts's EXIT_OK, EXIT_BAD_INPUT and EXIT_REFUSED. */
const EXIT_OK = 0;
const EXIT_BAD_INPUT = 1;
const EXIT_REFUSED = 3;

/** Run `task claim` (argv after `claim`) the short way; null: the full verb must run. */
export async function taskClaimFast(argv: readonly string[], ctx: CliContext): Promise<number | null> {
  const o = plainArgs(argv, ['--json'], (a) => /^[1-9][0-9]{0,8}$/.test(a));
  const who = o && fastIdentity(o, ctx);
  if (!o || !who || who.as === OPERATOR) return null;
  const { as } = who;
  const json = o.switches.has('--json');
  let r;
  try {
    r = await quickClaim(who.dir, as, o.positional);
  } catch (err) {
    // What main.ts says for the same errors of the full verb.
    if (err instanceof LockBusyError) {
      if (json) ctx.out(JSON.stringify({ ok: false, reason: 'timeout', message: err.message }));
      ctx.err(`teamux: refused (timeout): ${err.message}`);
      return EXIT_REFUSED;
    }
    if (err instanceof UnsafePathError) {
      if (json) ctx.out(JSON.stringify({ ok: false, reason: 'unsafe_path', message: err.message, path: err.path, hint: err.hint }));
      ctx.err(`teamux: refused: ${err.message}\n  hint: ${err.hint}`);
      return EXIT_BAD_INPUT;
    }
    throw err;
  }
  if (!r) return null;
  // context.ts's report() for a claim (a name not on the roster never gets here).
  if (r.ok) {
    const t = r.value;
    ctx.out(json ? JSON.stringify({ ok: true, ...t }) : `${as} claimed task ${t.id}: ${visible(t.subject)} (revision ${t.revision})`);
    return EXIT_OK;
  }
  if (json) ctx.out(JSON.stringify({ ok: false, reason: r.reason, message: r.message }));
  else ctx.err(`teamux: refused (${r.reason}): ${r.message}`);
  return EXIT_REFUSED;
}
