/**
 * The settings one agent runs with, and where the model calls go. Flags win over the environment,
 * the environment over the defaults; every setting a user can get wrong comes back as a message
 * (a value), never as an exception. Choosing the endpoint is pure too: demo mode (TEAMUX_DEMO_URL,
 * set by `teamux start` when no key is set) talks to the scripted server with a dummy key and the
 * `x-teamux-member` header that picks the member's script.
 */

/** The model used when neither the layout, a flag nor TEAMUX_AGENT_MODEL names one. */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';
export const DEFAULT_MAX_TOKENS = 8192;
/** Estimated context size (tokens) past which older turns are summarised. */
export const DEFAULT_COMPACT_AT = 150_000;
export const DEFAULT_HEARTBEAT_MS = 5_000;

/** How API failures are retried (429, 529, 5xx, a stream that breaks with an error event). */
export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  attempts: number;
  /** Delay before the second attempt; doubled for each further one. */
  baseMs: number;
  /** The longest delay, also the cap on a server's retry-after. */
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseMs: 1_000, maxMs: 30_000 };

/** Everything that shapes one agent's behaviour. */
export interface AgentOptions {
  /** The member this process speaks for. */
  name: string;
  /** Where bash runs and relative file paths resolve. */
  cwd: string;
  model: string;
  maxTokens: number;
  /** Extra instructions appended to the identity block of the system prompt. */
  systemPrompt: string | null;
  /** Claim ready tasks from the board when idle. */
  autoClaim: boolean;
  compactAt: number;
  /** Assistant turns kept verbatim when compacting. */
  compactKeep: number;
  /** First user turn of a fresh conversation; null waits for a message. */
  kickoff: string | null;
  heartbeatMs: number;
  retry: RetryPolicy;
  /** True when talking to the scripted demo server. */
  demo: boolean;
}

/** Where model calls go: a ready endpoint, or why there is none. */
export type Endpoint =
  | { ok: true; baseURL: string | undefined; apiKey: string; headers: Record<string, string>; demo: boolean }
  | { ok: false; reason: string };

/** The endpoint for `member` given the environment and a key read from a key file or command (pure). */
export function endpointFor(env: NodeJS.ProcessEnv, member: string, apiKey: string | null = null): Endpoint {
  const demoUrl = env.TEAMUX_DEMO_URL?.trim();
  if (demoUrl) return { ok: true, baseURL: demoUrl, apiKey: 'demo', headers: { 'x-teamux-member': member }, demo: true };
  const key = apiKey ?? env.ANTHROPIC_API_KEY?.trim();
  if (!key) {
    return {
      ok: false,
      reason: 'no ANTHROPIC_API_KEY is set, so this agent cannot call a model. Set the key (or a key file or command: the layout\'s api_key, TEAMUX_API_KEY_FILE) and restart the member, or run `teamux start` without a key for the offline demo.',
    };
  }
  const baseURL = env.ANTHROPIC_BASE_URL?.trim() || undefined;
  return { ok: true, baseURL, apiKey: key, headers: {}, demo: false };
}

/** Option values as flags (or the layout) give them; undefined means "not given". */
export interface OptionInput {
  name: string;
  cwd: string;
  model?: string;
  maxTokens?: string | number;
  systemPrompt?: string | null;
  autoClaim?: boolean;
  compactAt?: string | number;
  kickoff?: string | null;
  isLead: boolean;
  demo: boolean;
}

/** The default first turn of a lead whose conversation is new. */
export function defaultKickoff(team: string): string {
  return `You have just started as the lead of team "${team}". Look at the task board (task_list) and your teammates, plan the work, and get it going.`;
}

/** Settle the options: flags, then env (TEAMUX_AGENT_MODEL, TEAMUX_AGENT_SYSTEM_PROMPT, TEAMUX_AGENT_COMPACT_AT), then defaults. */
export function resolveOptions(input: OptionInput, env: NodeJS.ProcessEnv, team: string): { ok: true; options: AgentOptions } | { ok: false; message: string } {
  const model = input.model?.trim() || env.TEAMUX_AGENT_MODEL?.trim() || DEFAULT_MODEL;
  const maxTokens = positiveInt(input.maxTokens, DEFAULT_MAX_TOKENS);
  if (maxTokens === null) return { ok: false, message: `--max-tokens "${input.maxTokens}" is not a positive whole number` };
  const compactAt = positiveInt(input.compactAt ?? env.TEAMUX_AGENT_COMPACT_AT, DEFAULT_COMPACT_AT);
  if (compactAt === null) return { ok: false, message: `--compact-at "${input.compactAt ?? env.TEAMUX_AGENT_COMPACT_AT}" is not a positive number of tokens` };
  const kickoff = input.kickoff !== undefined ? input.kickoff : input.isLead ? defaultKickoff(team) : null;
  const systemPrompt = input.systemPrompt !== undefined && input.systemPrompt !== null ? input.systemPrompt : env.TEAMUX_AGENT_SYSTEM_PROMPT ?? null;
  return {
    ok: true,
    options: {
      name: input.name,
      cwd: input.cwd,
      model,
      maxTokens,
      systemPrompt: systemPrompt?.trim() ? systemPrompt : null,
      autoClaim: input.autoClaim ?? false,
      compactAt,
      compactKeep: 2,
      kickoff,
      heartbeatMs: DEFAULT_HEARTBEAT_MS,
      retry: DEFAULT_RETRY,
      demo: input.demo,
    },
  };
}

function positiveInt(value: string | number | undefined, fallback: number): number | null {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isInteger(n) && n > 0 ? n : null;
}
