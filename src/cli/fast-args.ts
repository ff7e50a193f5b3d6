/**
 * What the CLI's short paths (inbox-fast.ts, task-claim-fast.ts) share: reading the plain form of a
 * verb's arguments (`--as NAME`, `--team-dir DIR`, a few switches, at most one positional) and
 * deciding who acts on which folder. Anything outside the plain form is null, so the full verb runs
 * and gives its own messages and hints. Owns no state.
 */
import * as path from 'node:path';
import type { CliContext } from './context.js';

/** The plain form: the member and folder named, the switches given, the one positional. */
export interface PlainArgs {
  as?: string;
  teamDir?: string;
  switches: Set<string>;
  positional?: string;
}

/** Read `argv` as the plain form with these `switches` and a positional `positional` accepts; null for anything else. */
export function plainArgs(argv: readonly string[], switches: readonly string[], positional: (a: string) => boolean = () => false): PlainArgs | null {
  const out: PlainArgs = { switches: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-')) {
      if (out.positional !== undefined || !positional(a)) return null;
      out.positional = a;
      continue;
    }
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    if (switches.includes(flag) && inline === undefined) {
      out.switches.add(flag);
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

/** Who acts, on which team folder (absolute); null when the full verb must decide (a NATS store, a name this process may not use, nothing named). */
export function fastIdentity(o: PlainArgs, ctx: CliContext): { as: string; dir: string } | null {
  if (ctx.env.TEAMUX_STORE || ctx.env.TEAMUX_TEAM) return null;
  const mine = ctx.env.TEAMUX_MEMBER;
  if (mine && o.as !== undefined && o.as !== mine) return null;
  const as = o.as ?? mine;
  const dir = o.teamDir ?? ctx.env.TEAMUX_TEAM_DIR;
  if (!as || !dir) return null;
  return { as, dir: path.resolve(ctx.cwd, dir) };
}
