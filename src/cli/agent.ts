/**
 * `teamux agent --as NAME`: run a member as teamux's own agent in the current terminal (its pane).
 * This verb only wires things: options from flags and the environment, the team store, the endpoint
 * (the API, or the demo server in TEAMUX_DEMO_URL), stdout as the pane, stdin in raw mode as the
 * keyboard, and signals. The agent itself is src/agent/runtime.ts. Exit code 0 after an approved
 * shutdown; 130 after a double Ctrl-C; 143/129 after SIGTERM/SIGHUP.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { loadApiKey } from '../agent/api-key.js';
import { PaneConsole } from '../agent/console.js';
import { endpointFor, resolveOptions } from '../agent/options.js';
import { Pane, streamSink } from '../agent/pane.js';
import { AgentRuntime } from '../agent/runtime.js';
import { watchConnection } from '../store/connection.js';
import { actingAs, openTeam, parse, report, TEAM_OPTIONS, UsageError, type CliContext } from './context.js';
import type { Verb } from './verb.js';

const USAGE = 'agent --as NAME [--model ID] [--max-tokens N] [--system-prompt-file FILE | --system-prompt TEXT] [--auto-claim] [--compact-at TOKENS] [--prompt TEXT] [--cwd DIR]';

const OPTIONS = {
  ...TEAM_OPTIONS,
  as: { type: 'string' },
  model: { type: 'string' },
  'max-tokens': { type: 'string' },
  'system-prompt-file': { type: 'string' },
  'system-prompt': { type: 'string' },
  'auto-claim': { type: 'boolean', default: false },
  'compact-at': { type: 'string' },
  prompt: { type: 'string' },
  cwd: { type: 'string' },
} as const;

async function run(ctx: CliContext, argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS, USAGE);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, `usage: ${USAGE}`);
  const name = actingAs(ctx, values.as);
  const store = await openTeam(ctx, values['team-dir'], `agent:${name}`);
  const member = await store.member(name);
  if (!member.ok) return report(ctx, values.json, member, () => '');
  if (values['system-prompt-file'] && values['system-prompt'] !== undefined) throw new UsageError('give --system-prompt-file or --system-prompt, not both');
  // Without a flag, the layout's system_prompt arrives in TEAMUX_AGENT_SYSTEM_PROMPT (see resolveOptions).
  let systemPrompt = values['system-prompt'];
  if (values['system-prompt-file']) {
    const file = path.resolve(ctx.cwd, values['system-prompt-file']);
    systemPrompt = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read --system-prompt-file ${file}: ${err.code ?? err.message}`);
    });
  }
  // A key file or command is read here, in this process; the key goes into no environment.
  const loaded = ctx.env.TEAMUX_DEMO_URL?.trim() ? null : await loadApiKey(ctx.env);
  if (loaded && !loaded.ok) throw new UsageError(loaded.message, loaded.hint);
  for (const w of loaded?.warnings ?? []) {
    ctx.err(`teamux: warning: ${w}`);
    store.log.warn(w);
  }
  const endpoint = endpointFor(ctx.env, name, loaded?.key ?? null);
  const team = await store.config();
  const resolved = resolveOptions({
    name,
    cwd: path.resolve(ctx.cwd, values.cwd ?? '.'),
    model: values.model,
    maxTokens: values['max-tokens'],
    systemPrompt,
    autoClaim: values['auto-claim'],
    compactAt: values['compact-at'],
    ...(values.prompt !== undefined ? { kickoff: values.prompt } : {}),
    isLead: member.value.kind === 'lead',
    demo: endpoint.ok && endpoint.demo,
  }, ctx.env, team.name);
  if (!resolved.ok) throw new UsageError(resolved.message, `usage: ${USAGE}`);

  const pane = new Pane(streamSink(process.stdout));
  const runtime = new AgentRuntime({ store, options: resolved.options, endpoint, pane, env: ctx.env });
  const keyboard = new PaneConsole(runtime, pane);
  // On a NATS store, a lost connection shows in the pane; the store retries until it is back.
  const connection = watchConnection(store.backend, (line, state) => pane.line(line, state === 'connected' ? 'cyan' : 'red'));
  try {
    return await withTerminal(runtime, keyboard, pane, () => runtime.run());
  } finally {
    connection.dispose();
  }
}

/** Wire stdin, resizes and signals to the agent for the length of `body`, and undo it all afterwards. */
async function withTerminal(runtime: AgentRuntime, keyboard: PaneConsole, pane: Pane, body: () => Promise<number>): Promise<number> {
  const stdin = process.stdin;
  const tty = Boolean(stdin.isTTY);
  const onData = (chunk: string | Buffer): void => keyboard.feed(chunk.toString());
  const onResize = (): void => pane.resize();
  const onSigint = (): void => keyboard.feed('\x03');
  const onSigterm = (): void => runtime.exit(143, 'SIGTERM');
  const onSighup = (): void => runtime.exit(129, 'SIGHUP');
  const onOutError = (): void => undefined;
  if (tty) stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.on('data', onData);
  stdin.on('error', onOutError);
  process.stdout.on('resize', onResize);
  process.stdout.on('error', onOutError);
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  process.on('SIGHUP', onSighup);
  try {
    return await body();
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    process.off('SIGHUP', onSighup);
    process.stdout.off('resize', onResize);
    stdin.off('data', onData);
    if (tty) stdin.setRawMode(false);
    stdin.pause();
    keyboard.dispose();
    runtime.dispose();
  }
}

export const agentVerb: Verb = {
  name: 'agent',
  usage: [
    USAGE,
    'env: TEAMUX_TEAM_DIR, TEAMUX_MEMBER (for --as), ANTHROPIC_API_KEY or TEAMUX_API_KEY_FILE or TEAMUX_API_KEY_COMMAND, ANTHROPIC_BASE_URL, TEAMUX_AGENT_MODEL, TEAMUX_AGENT_SYSTEM_PROMPT, TEAMUX_AGENT_COMPACT_AT, TEAMUX_DEMO_URL (demo server)',
    'keys: type + Enter to steer (delivered at the next turn boundary), Esc interrupts, Ctrl-C twice exits',
  ],
  examples: [
    'teamux agent --as alice',
    'teamux agent --as lead --model claude-opus-5-5 --max-tokens 16000 --system-prompt-file prompts/lead.md',
    'TEAMUX_DEMO_URL=http://127.0.0.1:4100 teamux agent --as bob --team-dir .teamux/demo',
    'teamux agent --store nats://10.0.0.5:4222 --team webapp --as bob   # a member on another machine',
  ],
  run,
};
