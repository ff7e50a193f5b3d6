/**
 * The Stop hook's fast path (and PreToolUse's, when there is no Perl), and their own entry: every idle Claude Code turn runs it, so it is one
 * CommonJS file (dist/agents/claude/stop-fast.cjs, no ES module graph to load) that requires nothing but
 * node:fs, node:path and node:child_process (no zod, no store): scripts/bundle.mjs bundles into it
 * the rule modules it imports (the plan gate's allowlist, tool-gate.ts; "nothing unread", store/unread-peek.ts; the store's plain reader of team files, store/read-regular.cts), which import nothing but node:fs and node:path. Claude Code's Stop hook runs it
 * directly (`node dist/agents/claude/stop-fast.cjs hook Stop --as NAME --team-dir DIR`, see launch.ts);
 * bin/teamux also tries it first for `teamux hook Stop`.
 * When the member's inbox has nothing past its cursor, it answers at once (no output: Claude stops)
 * and leaves the bookkeeping (activity idle, the result and idle_notification to the lead) to a
 * detached `teamux hook StopIdle` that does it through the store, under the same cursor lock the pane
 * wake takes. Anything else (unread bytes, an unexpected argv, no team) goes the full way: run as the
 * entry, it then loads the CLI (dist/cli/main.js) with the stdin it already read.
 */
import { spawn } from 'node:child_process';
import { readRegularSync, type ReadKind } from '../../store/read-regular.cjs';
import * as path from 'node:path';
import { nothingUnread } from '../../store/unread-peek.js';
import { claudeToolGated } from './tool-gate.js';

export { nothingUnread };

/** The stdin the fast path already read, for the full hook when it falls back (read it as a property of the module: it is set late). */
export let preReadStdin: string | undefined;

/** bin/teamux, which runs the detached bookkeeping and is the full CLI. */
export const TEAMUX_BIN = path.join(__dirname, '..', '..', '..', 'bin', 'teamux');

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** A team file's text, as the store reads it (no link, no FIFO, capped); '' when missing or refused: the full hook then explains. */
function readTeamFile(file: string, kind: ReadKind): string {
  try {
    const r = readRegularSync(file, kind);
    return r && 'text' in r ? r.text : '';
  } catch {
    return '';
  }
}

function isMember(dir: string, member: string): boolean {
  try {
    const cfg = JSON.parse(readTeamFile(path.join(dir, 'team.json'), 'roster')) as { members?: Array<{ name?: unknown }> };
    return Array.isArray(cfg.members) && cfg.members.some((m) => m?.name === member);
  } catch {
    return false;
  }
}

function isJsonObject(text: string): boolean {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Handle `hook Stop --as NAME --team-dir DIR` (the exact argv teamux generates) when nothing is
 * unread; true when handled. `teamuxBin` is the launcher that runs the detached bookkeeping.
 */
export async function fastStop(argv: readonly string[], teamuxBin: string): Promise<boolean> {
  const [verb, event, asFlag, member, dirFlag, dir, ...rest] = argv;
  if (verb !== 'hook' || event !== 'Stop' || asFlag !== '--as' || dirFlag !== '--team-dir' || rest.length > 0) return false;
  if (!member || !NAME.test(member) || !dir || !path.isAbsolute(dir) || !isMember(dir, member)) return false;
  preReadStdin = await readAll(process.stdin);
  // Input that is not a JSON object is reported by the full hook.
  if (!isJsonObject(preReadStdin)) return false;
  // Bytes past the cursor may be a message: the full hook decides (and hands it over).
  if (!nothingUnread(dir, member)) return false;
  const child = spawn(process.execPath, [teamuxBin, 'hook', 'StopIdle', '--as', member, '--team-dir', dir], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  child.on('error', () => undefined);
  await new Promise<void>((resolve) => child.stdin.end(preReadStdin, () => resolve()));
  child.unref();
  return true;
}

/**
 * Handle `hook PreToolUse --as NAME --team-dir DIR` when no gate can apply (noGateApplies): no
 * objection, at once; true when handled. The same rule as the Perl form (hook-perl.ts), for machines
 * without Perl.
 */
export async function fastPreToolUse(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const [verb, event, asFlag, member, dirFlag, dir, ...rest] = argv;
  if (verb !== 'hook' || event !== 'PreToolUse' || asFlag !== '--as' || dirFlag !== '--team-dir' || rest.length > 0) return false;
  if (!member || !NAME.test(member) || !dir || !path.isAbsolute(dir)) return false;
  preReadStdin = await readAll(process.stdin);
  return noGateApplies(dir, member, preReadStdin, env);
}

/**
 * True when no gate can apply to `member`'s tool call (the hook's input as `inputText`): no budget on
 * the member or the team in team.json, and a tool on the plan gate's allowlist (tool-gate.ts) or a
 * member whose plan is not required and that is not a teammate of Claude Code's own team. Any doubt
 * is false: the full hook decides.
 */
export function noGateApplies(dir: string, member: string, inputText: string, env: NodeJS.ProcessEnv): boolean {
  let input: { tool_name?: unknown };
  let cfg: { budget?: unknown; members?: Array<{ name?: unknown; budget?: unknown; planRequired?: unknown; claudeTeam?: unknown }> };
  try {
    input = JSON.parse(inputText) as typeof input;
    cfg = JSON.parse(readTeamFile(path.join(dir, 'team.json'), 'roster')) as typeof cfg;
  } catch {
    return false;
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !Array.isArray(cfg?.members)) return false;
  const me = cfg.members.find((m) => m?.name === member);
  if (!me || (cfg.budget !== undefined && cfg.budget !== null) || (me.budget !== undefined && me.budget !== null)) return false;
  const tool = input.tool_name ?? '';
  if (typeof tool !== 'string') return false;
  return !(claudeToolGated(tool) && (me.planRequired || env.TEAMUX_PLAN_REQUIRED === '1' || me.claudeTeam));
}

// Run as Claude Code's Stop or PreToolUse hook: the fast path, else the full CLI in this same process.
if (require.main === module) {
  void (async () => {
    const argv = process.argv.slice(2);
    if ((await fastStop(argv, TEAMUX_BIN)) || (await fastPreToolUse(argv))) process.exit(0);
    const cli = path.join(__dirname, '..', '..', 'cli', 'main.js');
    const { main } = (await import(require('node:url').pathToFileURL(cli).href)) as { main: () => Promise<void> };
    await main();
  })();
}
