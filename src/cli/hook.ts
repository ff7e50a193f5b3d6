/**
 * `teamux hook EVENT --as NAME`: the command Claude Code's hooks run (see src/agents/claude/launch.ts), with
 * the hook's JSON on stdin. It must be quick (every Stop runs it), so the store and the hook logic
 * are imported only once the arguments are known to be good.
 */
import { EXIT_BAD_INPUT, actingAs, onePositional, openTeam, parse, TEAM_OPTIONS, UsageError } from './context.js';
import { armPreToolDeadline, preToolDeadlineMs } from '../agents/claude/hook-deadline.js';
import type { CliContext } from './context.js';
import type { Verb } from './verb.js';

const USAGE = 'hook EVENT --as NAME [--team-dir DIR] [--permission-timeout SECONDS]   (the hook JSON on stdin)';

async function readStdin(): Promise<string> {
  // bin/teamux's Stop fast path may have read it already before falling back to here.
  const { preReadStdin } = (await import('../agents/claude/stop-fast.cjs')).default;
  if (preReadStdin !== undefined) return preReadStdin;
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const c of process.stdin as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`, (err) => (err ? reject(err) : resolve())));
}

export const hookVerb: Verb = {
  name: 'hook',
  usage: [USAGE],
  examples: ['echo \'{"hook_event_name":"Stop"}\' | teamux hook Stop --as alice'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, { ...TEAM_OPTIONS, as: { type: 'string' }, 'permission-timeout': { type: 'string' } }, USAGE);
    const event = onePositional(positionals, 'hook event', USAGE);
    if (event === 'PreToolUse') return preToolUse(ctx, values);
    return runEvent(ctx, event, values);
  },
};

type HookValues = { as?: string; 'team-dir'?: string; 'permission-timeout'?: string };

/**
 * PreToolUse fails closed: Claude Code runs the tool when the hook exits with anything but 2, times
 * out or is killed, so every error is a refusal (exit 2) and so is the hook's own deadline, well
 * before Claude Code's (agents/claude/hook-deadline.ts; a native teammate's permission wait comes on top).
 */
async function preToolUse(ctx: CliContext, values: HookValues): Promise<number> {
  const wait = values['permission-timeout'] === undefined ? 0 : Math.max(0, Number(values['permission-timeout']) * 1000 || 0);
  const disarm = armPreToolDeadline(preToolDeadlineMs(wait, ctx.env), ctx.err);
  try {
    return await runEvent(ctx, 'PreToolUse', values);
  } catch (err) {
    const hint = (err as { hint?: unknown }).hint;
    ctx.err(`teamux: ${(err as Error).message}${typeof hint === 'string' ? `\n  hint: ${hint}` : ''}\n  (the plan gate could not be checked, so the tool call is refused)`);
    return 2;
  } finally {
    disarm();
  }
}

/** One hook event through the store; what goes wrong is thrown (PreToolUse turns it into a refusal). */
async function runEvent(ctx: CliContext, event: string, values: HookValues): Promise<number> {
  const member = actingAs(ctx, values.as);
  const timeout = Number(values['permission-timeout'] ?? '120');
  if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`--permission-timeout "${values['permission-timeout']}" is not a number of seconds`, `usage: ${USAGE}`);
  const store = await openTeam(ctx, values['team-dir'], `hook:${member}`);
  const [{ parseHookInput }, { runHook }] = await Promise.all([import('../agents/claude/hook-answers.js'), import('../agents/claude/hook-run.js')]);
  const parsed = parseHookInput(await readStdin());
  if (!parsed.ok) {
    ctx.err(`teamux: ${parsed.message}\n  hint: Claude Code pipes the hook's JSON to stdin; run this from a hook`);
    return event === 'PreToolUse' ? 2 : EXIT_BAD_INPUT;
  }
  const stopping = new AbortController();
  const onSignal = (): void => stopping.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    return await runHook(store, { event, member, input: parsed.input, permissionTimeoutMs: timeout * 1000 }, { out: writeOut, err: ctx.err, signal: stopping.signal });
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}
