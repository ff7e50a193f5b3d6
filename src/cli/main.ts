/**
 * The teamux command: one table of verbs (as tmux's cmd_table), argument errors turned into a message
 * with a hint and exit code 1, and anything unexpected logged without a stack trace on the terminal.
 * Start-up cost is the floor of every CLI call: `--version` and `--help` load nothing but this file
 * and the verb table, a verb loads only its own module graph, and the error classes are imported only
 * when a verb has thrown (its module has loaded them already).
 */
import { visible } from '../protocol/visible.js';
import type { CliContext, ScreenBoot } from './context.js';
import { verbs } from './table.js';
import { verbHelp } from './verb.js';

/** Bad input: the exit code (the same as context.ts's EXIT_BAD_INPUT, kept here so help loads nothing). */
const EXIT_BAD_INPUT = 1;

/** Top-level help: every verb with its summary. */
export function mainHelp(): string {
  const width = Math.max(...verbs.map((v) => v.name.length));
  return [
    'teamux — a terminal multiplexer for teams of AI agents',
    '',
    'usage: teamux VERB [args]   (teamux VERB --help for details)',
    '',
    ...verbs.map((v) => `  ${v.name.padEnd(width)}  ${v.summary}`),
    '',
    'Team verbs find the team folder with --team-dir DIR or $TEAMUX_TEAM_DIR,',
    'or a team on a NATS server with --store nats://HOST:4222 --team NAME ($TEAMUX_STORE, $TEAMUX_TEAM).',
  ].join('\n');
}

/** Run the CLI with argv (without node and script); returns the exit code. */
export async function runCli(argv: string[], raw: CliContext): Promise<number> {
  let ctx = guarded(raw);
  const [name, ...given] = argv;
  let rest = given;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    ctx.out(mainHelp());
    return name === undefined ? EXIT_BAD_INPUT : 0;
  }
  if (name === '--version' || name === '-V') {
    ctx.out('teamux 0.1.0');
    return 0;
  }
  try {
    // The plain `inbox read` an agent runs all the time takes a short path that loads no zod (cli/inbox-fast.ts).
    if (name === 'inbox' && !rest.includes('--help') && !rest.includes('-h')) {
      const code = await (await import('./inbox-fast.js')).inboxReadFast(rest, ctx);
      if (code !== null) return code;
    }
    // So does `task claim`, the call a member makes each time it looks for work (cli/task-claim-fast.ts).
    if (name === 'task' && rest[0] === 'claim' && !rest.includes('--help') && !rest.includes('-h')) {
      const code = await (await import('./task-claim-fast.js')).taskClaimFast(rest.slice(1), ctx);
      if (code !== null) return code;
    }
  } catch (err) {
    // A refusal on the short path (a planted file, a busy lock) reads as the full verb's would.
    return await verbError(err, rest, ctx);
  }
  const entry = verbs.find((v) => v.name === name);
  if (!entry) {
    ctx.err(`teamux: unknown verb "${name}"\n  hint: one of ${verbs.map((v) => v.name).join(', ')} (teamux --help)`);
    return EXIT_BAD_INPUT;
  }
  // A screen keeps V8's young generation small (cli/screen-heap.ts): before its modules load.
  if (name === 'start' || name === 'attach') (await import('./screen-heap.js')).keepYoungGenerationSmall(name, ctx.env);
  const verb = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    ctx.out(verbHelp(verb, entry.summary));
    return 0;
  }
  // Every verb's module has loaded context.js already: importing it here costs nothing more.
  const { storeOptions, closeStores } = await import('./context.js');
  try {
    ({ argv: rest, ctx } = storeOptions(given, ctx));
    return await verb.run(ctx, rest);
  } catch (err) {
    return await verbError(err, rest, ctx);
  } finally {
    await closeStores(ctx);
  }
}

/** A verb's thrown error as the exit code and lines it means (a bug is thrown on). */
async function verbError(err: unknown, rest: string[], ctx: CliContext): Promise<number> {
  const [{ LockBusyError }, { UnsafePathError }, { UsageError, EXIT_REFUSED }] = await Promise.all([import('../store/lock.js'), import('../store/fsx.js'), import('./context.js')]);
  if (err instanceof LockBusyError) {
    if (rest.includes('--json')) ctx.out(JSON.stringify({ ok: false, reason: 'timeout', message: err.message }));
    ctx.err(`teamux: refused (timeout): ${err.message}`);
    return EXIT_REFUSED;
  }
  if (err instanceof UnsafePathError) {
    if (rest.includes('--json')) ctx.out(JSON.stringify({ ok: false, reason: 'unsafe_path', message: err.message, path: err.path, hint: err.hint }));
    ctx.err(`teamux: refused: ${err.message}\n  hint: ${err.hint}`);
    return EXIT_BAD_INPUT;
  }
  if (err instanceof UsageError) {
    if (rest.includes('--json')) ctx.out(JSON.stringify({ ok: false, error: err.message, hint: err.hint }));
    ctx.err(`teamux: ${err.message}${err.hint ? `\n  hint: ${err.hint}` : ''}`);
    return EXIT_BAD_INPUT;
  }
  throw err;
}

/**
 * The context with every line made safe for a terminal: control characters in team data (or in an
 * error that quotes it) are shown escaped. Verbs escape their one-line fields themselves, so a
 * newline in a subject cannot forge a line; this is the net under them. JSON lines stay the same
 * JSON value (see protocol/visible.ts). A TAB moves the cursor and nothing else, so it stays (diffs and
 * tables keep their columns).
 */
function guarded(ctx: CliContext): CliContext {
  return { ...ctx, out: (t) => ctx.out(visible(t, { lines: true, tabs: true })), err: (t) => ctx.err(visible(t, { lines: true, tabs: true })) };
}

/** Entry point for bin/teamux (`boot`: a screen verb run through the code cache, cli/code-cache.ts). */
export async function main(boot?: ScreenBoot): Promise<void> {
  const ctx: CliContext = {
    ...(boot ? { boot } : {}),
    out: (t) => process.stdout.write(t.endsWith('\n') ? t : t + '\n'),
    err: (t) => process.stderr.write(t.endsWith('\n') ? t : t + '\n'),
    env: process.env,
    cwd: process.cwd(),
    stdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
  // A closed pipe on stdout (teamux … | head) is not an error worth a trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
  });
  try {
    process.exitCode = await runCli(process.argv.slice(2), ctx);
  } catch (err) {
    const e = err as Error;
    ctx.err(`teamux: internal error: ${visible(e.message, { lines: true })}\n  hint: this is a bug; please report it with the command you ran`);
    if (process.env.TEAMUX_DEBUG) ctx.err(visible(e.stack ?? '', { lines: true }));
    process.exitCode = 70;
  }
  // Claude Code acts on a hook's answer when the hook's process has exited: end as soon as the output
  // is flushed, not after Node has wound down whatever is left (tens of ms, more on a loaded machine).
  if (process.argv[2] === 'hook') {
    await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((resolve) => s.write('', () => resolve()))));
    process.exit();
  }
}
