/**
 * The short path of `teamux task claim`, the call a member makes each time it looks for work: the
 * plain form (`task claim [ID] [--as NAME] [--team-dir DIR] [--json]` on a team folder) claims through
 * store/quick-claim.ts, loading neither zod nor the rest of the store, and prints exactly what the
 * full verb (cli/task.ts through cli/context.ts's report) prints, with the same exit codes. Anything
 * else (--help, a NATS store, another flag, no folder given, a name this process may not act as, a
 * staged pipeline, a file the short path does not read the same way) returns null and the full verb
 * runs, with its messages and hints.
 */
import * as path from 'node:path';
import type { CliContext } from './context.js';
import { OPERATOR } from '../protocol/operator.js';
import { visible } from '../protocol/visible.js';
import { UnsafePathError } from '../store/fsx.js';
import { LockBusyError } from '../store/dir-lock.js';
import { quickClaim } from '../store/quick-claim.js';

/** Exit codes, as context.ts's EXIT_OK, EXIT_BAD_INPUT and EXIT_REFUSED. */
const EXIT_OK = 0;
const EXIT_BAD_INPUT = 1;
const EXIT_REFUSED = 3;

interface Plain {
  id?: string;
  as?: string;
  teamDir?: string;
  json: boolean;
}

/** The options of the plain form (argv after `claim`), or null for anything else. */
function plainArgs(argv: readonly string[]): Plain | null {
  const out: Plain = { json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-')) {
      if (out.id !== undefined || !/^[1-9][0-9]{0,8}$/.test(a)) return null;
      out.id = a;
      continue;
    }
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    if (flag === '--json' && inline === undefined) {
      out.json = true;
      continue;
    }
    if (flag !== '--as' && flag !== '--team-dir') return null;
    const value = inline ?? argv[++i];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('-'))) return null;
    const key = flag === '--as' ? 'as' : 'teamDir';
    if (out[key] !== undefined) return null;
    out[key] = value;
  }
  return out;
}

/** Run `task claim` (argv after `claim`) the short way; null: the full verb must run. */
export async function taskClaimFast(argv: readonly string[], ctx: CliContext): Promise<number | null> {
  const o = plainArgs(argv);
  if (!o) return null;
  // A NATS store, or a member name this process may not use: the full verb decides and explains.
  if (ctx.env.TEAMUX_STORE || ctx.env.TEAMUX_TEAM) return null;
  const mine = ctx.env.TEAMUX_MEMBER;
  if (mine && o.as !== undefined && o.as !== mine) return null;
  const as = o.as ?? mine;
  const dir = o.teamDir ?? ctx.env.TEAMUX_TEAM_DIR;
  if (!as || as === OPERATOR || !dir) return null;
  let r;
  try {
    r = await quickClaim(path.resolve(ctx.cwd, dir), as, o.id);
  } catch (err) {
    // What main.ts says for the same errors of the full verb.
    if (err instanceof LockBusyError) {
      if (o.json) ctx.out(JSON.stringify({ ok: false, reason: 'timeout', message: err.message }));
      ctx.err(`teamux: refused (timeout): ${err.message}`);
      return EXIT_REFUSED;
    }
    if (err instanceof UnsafePathError) {
      if (o.json) ctx.out(JSON.stringify({ ok: false, reason: 'unsafe_path', message: err.message, path: err.path, hint: err.hint }));
      ctx.err(`teamux: refused: ${err.message}\n  hint: ${err.hint}`);
      return EXIT_BAD_INPUT;
    }
    throw err;
  }
  if (!r) return null;
  // context.ts's report() for a claim (a name not on the roster never gets here).
  if (r.ok) {
    const t = r.value;
    ctx.out(o.json ? JSON.stringify({ ok: true, ...t }) : `${as} claimed task ${t.id}: ${visible(t.subject)} (revision ${t.revision})`);
    return EXIT_OK;
  }
  if (o.json) ctx.out(JSON.stringify({ ok: false, reason: r.reason, message: r.message }));
  else ctx.err(`teamux: refused (${r.reason}): ${r.message}`);
  return EXIT_REFUSED;
}
