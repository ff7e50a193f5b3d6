/**
 * What every CLI verb gets: where to print, whether to print JSON, and helpers that turn user
 * mistakes into a message with a hint and exit code 1, and protocol refusals into exit code 3 with a
 * `reason`. Verbs return an exit code; nothing here calls process.exit. The work itself is done by
 * the shared ops of src/ops/, run with opContext().
 */
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { didYouMean } from '../config/suggest.js';
import type { OpContext } from '../ops/op.js';
import { OPERATOR } from '../protocol/trust.js';
import { accept, refuse, type Outcome } from '../protocol/types.js';
import { MAX_MESSAGE_BYTES } from '../store/inbox.js';
import { isRemoteStore, localDirFor, openRemoteTeam, openTeamAt, STORE_MARKER } from '../store/select.js';
import { TeamStore } from '../store/team.js';

export const EXIT_OK = 0;
export const EXIT_BAD_INPUT = 1;
export const EXIT_REFUSED = 3;

/** The streams and environment a verb runs with. */
export interface CliContext {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** All of standard input as text (for `-` arguments); absent where there is none. */
  stdin?: () => Promise<string>;
  /** A screen verb run from bin/teamux's code cache (cli/code-cache.ts). */
  boot?: ScreenBoot;
}

/** How a screen verb's code was loaded, said in teamux.log, and whom to tell once its screen is up. */
export interface ScreenBoot {
  note: string;
  up: () => void;
}

/** A user error: what is wrong and how to fix it. */
export class UsageError {
  constructor(readonly message: string, readonly hint?: string) {}
}

/** Print a user error and return exit code 1. */
export function badInput(ctx: CliContext, json: boolean, message: string, hint?: string): number {
  if (json) ctx.out(JSON.stringify({ ok: false, error: message, hint }));
  ctx.err(`teamux: ${message}${hint ? `\n  hint: ${hint}` : ''}`);
  return EXIT_BAD_INPUT;
}

/**
 * Print an outcome: the value on success, the refusal (exit 3) otherwise. A name not on the roster or
 * an invalid input is the caller's mistake, not the protocol's: printed as bad input (exit 1).
 */
export function report<T>(ctx: CliContext, json: boolean, outcome: Outcome<T>, human: (value: T) => string, hint?: string): number {
  if (outcome.ok) {
    ctx.out(json ? JSON.stringify({ ok: true, ...wrap(outcome.value) }) : human(outcome.value));
    return EXIT_OK;
  }
  const badName = outcome.reason === 'unknown_member' || outcome.reason === 'invalid_input';
  if (json) ctx.out(JSON.stringify({ ok: false, reason: outcome.reason, message: outcome.message, ...(hint ? { hint } : {}) }));
  else if (badName) ctx.err(`teamux: ${outcome.message}${hint ? `\n  hint: ${hint}` : ''}`);
  else ctx.err(`teamux: refused (${outcome.reason}): ${outcome.message}${hint ? `\n  hint: ${hint}` : ''}`);
  return badName ? EXIT_BAD_INPUT : EXIT_REFUSED;
}

/** The hint for a name that is not on the roster: a close match, and who is. */
export async function rosterHint(store: TeamStore, name: string): Promise<string> {
  const names = (await store.config()).members.map((m) => m.name);
  const near = didYouMean(name, names);
  return `${near ? `did you mean "${near}"? ` : ''}the members are ${names.join(', ')} (teamux team show)`;
}

function wrap(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}

/** Options every team verb accepts. */
export const TEAM_OPTIONS = {
  'team-dir': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

/** Parse argv strictly; unknown options and missing values become a UsageError. */
export function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O, usage: string) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    const msg = (err as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    throw new UsageError(msg, `usage: ${usage}`);
  }
}

/**
 * Find the team folder: --team-dir, else $TEAMUX_TEAM_DIR, else the only team under ./.teamux.
 */
export function resolveTeamDir(ctx: CliContext, flag: string | undefined): string {
  if (flag) return path.resolve(ctx.cwd, flag);
  if (ctx.env.TEAMUX_TEAM_DIR) return path.resolve(ctx.cwd, ctx.env.TEAMUX_TEAM_DIR);
  const local = path.join(ctx.cwd, '.teamux');
  if (existsSync(local)) {
    // A folder team has team.json; a team on a NATS store leaves store.json in its local folder.
    const teams = readdirSync(local).filter((n) => existsSync(path.join(local, n, 'team.json')) || existsSync(path.join(local, n, STORE_MARKER)));
    if (teams.length === 1) return path.join(local, teams[0]!);
    if (teams.length > 1) throw new UsageError(`${local} holds several teams (${teams.join(', ')})`, 'pick one with --team-dir or TEAMUX_TEAM_DIR');
  }
  const near = teamsBelow(ctx.cwd);
  const shown = near.slice(0, 5).join(', ') + (near.length > 5 ? `, … (${near.length} in all)` : '');
  throw new UsageError('no team folder given', `pass --team-dir DIR or set TEAMUX_TEAM_DIR (teamux init prints the folder)${near.length > 0 ? `; teams below this folder: ${shown}` : ''}`);
}

/** Team folders one or two levels below `cwd` (`examples/demo/.teamux/demo`), relative to it, for a hint. */
function teamsBelow(cwd: string): string[] {
  const dirs = (d: string): string[] => {
    try {
      return readdirSync(d, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules').map((e) => path.join(d, e.name));
    } catch {
      return [];
    }
  };
  const out: string[] = [];
  for (const project of [...dirs(cwd), ...dirs(cwd).flatMap(dirs)]) {
    const local = path.join(project, '.teamux');
    for (const team of existsSync(local) ? dirs(local) : []) {
      if (path.basename(team) !== 'archive' && existsSync(path.join(team, 'team.json'))) out.push(path.relative(cwd, team));
    }
  }
  return out.sort();
}

/** Stores opened for one CLI run, closed when its verb returns (a NATS connection would keep the process up). */
const openedBy = new WeakMap<CliContext, TeamStore[]>();

/**
 * Take the global store options out of argv: `--store URL` and `--team NAME` (any verb) become
 * TEAMUX_STORE and TEAMUX_TEAM in the verb's environment, so every verb and `agent`/`mcp` accept them.
 */
export function storeOptions(argv: string[], ctx: CliContext): { argv: string[]; ctx: CliContext } {
  const rest: string[] = [];
  const env: NodeJS.ProcessEnv = { ...ctx.env };
  let changed = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const m = /^--(store|team)(?:=(.*))?$/.exec(a);
    if (!m || argv.includes('--')) {
      rest.push(a);
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined || value === '') throw new UsageError(`--${m[1]} needs a value`, m[1] === 'store' ? 'write --store nats://HOST:4222' : 'write --team NAME (the team name in the layout)');
    env[m[1] === 'store' ? 'TEAMUX_STORE' : 'TEAMUX_TEAM'] = value;
    changed = true;
  }
  return changed ? { argv: rest, ctx: { ...ctx, env } } : { argv, ctx };
}

/** Close `store` (its NATS connection) when this run's verb returns, as openTeam's are. */
export function closeAfterRun(ctx: CliContext, store: TeamStore): TeamStore {
  if (store.backend.kind !== 'folder') openedBy.set(ctx, [...(openedBy.get(ctx) ?? []), store]);
  return store;
}

/** Close what openTeam opened for this run. */
export async function closeStores(ctx: CliContext): Promise<void> {
  for (const store of openedBy.get(ctx)?.splice(0) ?? []) await store.backend.close();
}

/**
 * Open a team on the NATS store TEAMUX_STORE names: team TEAMUX_TEAM (or the last part of --team-dir),
 * with --team-dir / TEAMUX_TEAM_DIR (default ./.teamux/TEAM) as this machine's local folder.
 */
async function openRemote(ctx: CliContext, url: string, flag: string | undefined, who: string): Promise<TeamStore> {
  const localFlag = flag ?? ctx.env.TEAMUX_TEAM_DIR;
  const team = ctx.env.TEAMUX_TEAM ?? (localFlag ? path.basename(path.resolve(ctx.cwd, localFlag)) : undefined);
  if (!team) throw new UsageError(`--store ${url.replace(/\/\/[^@/]*@/, '//')} needs the team's name`, 'add --team NAME (or set TEAMUX_TEAM)');
  const dir = localFlag ? path.resolve(ctx.cwd, localFlag) : localDirFor(ctx.cwd, team);
  const r = await openRemoteTeam(url, team, dir, ctx.env, who);
  if (!r.ok) throw new UsageError(r.error.message, r.error.hint);
  openedBy.set(ctx, [...(openedBy.get(ctx) ?? []), r.store]);
  return r.store;
}

/** The NATS store URL in effect: --store / TEAMUX_STORE, else the layout's `store:`; undefined for the folder. */
export function storeOf(ctx: CliContext, layoutStore: string | null = null): string | undefined {
  const url = ctx.env.TEAMUX_STORE?.trim() || layoutStore || undefined;
  if (url === undefined || url === 'folder') return undefined;
  if (!isRemoteStore(url)) throw new UsageError(`store "${url}" is neither "folder" nor a nats:// or tls:// URL`, 'use --store nats://HOST:4222 (or unset TEAMUX_STORE for the team folder)');
  return url;
}

/** Open the team a verb works on: the folder, or the NATS store that --store / TEAMUX_STORE names. */
export async function openTeam(ctx: CliContext, flag: string | undefined, who = 'cli'): Promise<TeamStore> {
  const url = storeOf(ctx);
  const remote = url ? await openRemote(ctx, url, flag, who) : null;
  if (remote) {
    remote.shortLived = who === 'cli';
    return remote;
  }
  const dir = resolveTeamDir(ctx, flag);
  const r = await openTeamAt(dir, ctx.env, who);
  if (!r.ok) throw new UsageError(r.error.message, r.error.hint);
  closeAfterRun(ctx, r.store);
  for (const w of r.warnings) ctx.err(`teamux: warning: ${w}`);
  // Every verb but `agent` is a short-lived call: its claims are held by the member's process (§7).
  r.store.shortLived = who === 'cli';
  return r.store;
}

/** What an op runs with when a verb acts as `as` (null: as nobody); an unknown member is a refusal. */
export async function opContext(store: TeamStore, as: string | null): Promise<Outcome<OpContext>> {
  const team = await store.config();
  if (as === null) return accept({ store, team, me: null });
  const me = team.members.find((m) => m.name === as);
  return me ? accept({ store, team, me }) : refuse('unknown_member', `${JSON.stringify(as)} is not a member of this team`);
}

/**
 * The member a verb acts as: --as/--from, else $TEAMUX_MEMBER. Inside a member's pane (TEAMUX_MEMBER
 * set) a different name is refused, so a member's tools cannot act as another member by passing a
 * flag. Unsetting the variable defeats this; that is why plan decisions are signed (docs/protocol.md).
 */
export function actingAs(ctx: CliContext, value: string | undefined, flag = '--as'): string {
  const mine = ctx.env.TEAMUX_MEMBER;
  if (mine && value !== undefined && value !== mine) {
    throw new UsageError(`${flag} ${value}: this process belongs to member ${mine} (TEAMUX_MEMBER) and cannot act as another member`, `leave out ${flag}, or pass ${flag} ${mine}`);
  }
  if (value === OPERATOR) throw new UsageError(`${flag} ${OPERATOR}: "${OPERATOR}" is the operator at the teamux screen; the command line cannot act as it`, `act as a member with ${flag} NAME`);
  const who = value ?? mine;
  if (!who) throw new UsageError(`say who is acting with ${flag} NAME`, 'or run inside a teamux pane, where TEAMUX_MEMBER is set');
  return who;
}

/**
 * The text of a message from its positionals: the words joined, or standard input for a lone `-`
 * (one trailing newline dropped), so a message longer than a command line allows can be sent.
 */
export async function messageText(ctx: CliContext, positionals: string[], usage: string): Promise<string> {
  let text = positionals.join(' ');
  if (positionals.length === 1 && positionals[0] === '-') {
    if (!ctx.stdin) throw new UsageError('cannot read the message from standard input here', `usage: ${usage}`);
    text = (await ctx.stdin()).replace(/\r?\n$/, '');
  }
  if (!text) throw new UsageError('missing message text', `usage: ${usage}`);
  // The limit is on the stored line; leave room for the JSON around the text.
  const size = Buffer.byteLength(JSON.stringify(text));
  if (size > MAX_MESSAGE_BYTES - 4096) {
    throw new UsageError(`the message is ${size} bytes; a message can be at most about ${Math.floor(MAX_MESSAGE_BYTES / 1024)} KiB`, 'put large content in a file in the project and send its path');
  }
  return text;
}

/** Exactly one positional argument, or a UsageError. */
export function onePositional(positionals: string[], what: string, usage: string): string {
  if (positionals.length !== 1) {
    throw new UsageError(positionals.length === 0 ? `missing ${what}` : `expected one ${what}, got ${positionals.length}: ${positionals.join(' ')}`, `usage: ${usage}`);
  }
  return positionals[0]!;
}

/** A task id argument, checked. */
export function taskIdArg(value: string): string {
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw new UsageError(`"${value}" is not a task id`, 'task ids are positive whole numbers, as `teamux task list` shows them');
  return value;
}
