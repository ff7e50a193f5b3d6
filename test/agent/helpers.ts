/**
 * Shared set-up for the agent tests: a real team folder (initTeam), a scripted Messages API server
 * on 127.0.0.1 and AgentRuntimes running in-process against it through the real SDK, their panes
 * captured as text. Everything started here is stopped after each test.
 */
import { afterEach } from 'vitest';
import { Pane, type PaneSink } from '../../src/agent/pane.js';
import { AgentRuntime } from '../../src/agent/runtime.js';
import { resolveOptions, type AgentOptions, type Endpoint } from '../../src/agent/options.js';
import { startScriptedServer, type LoggedRequest, type ScriptedServer, type ScriptedServerOptions } from '../../src/demo/server.js';
import type { Script, ScriptInput } from '../../src/demo/script.js';
import type { Message } from '../../src/protocol/types.js';
import { initTeam, type MemberSpec } from '../../src/store/init.js';
import { TeamStore } from '../../src/store/team.js';
import { TrustAuthority } from '../../src/store/trust.js';
import { tempDir, waitFor } from '../helpers/team.js';

export { waitFor };

const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Run `fn` after the current test. */
export function later(fn: () => void | Promise<void>): void {
  cleanups.push(fn);
}

/** A lead and agent teammates in a fresh team folder; `root` is where the members work. */
export async function agentTeam(teammates: string[], overrides: Record<string, Partial<MemberSpec>> = {}): Promise<{ store: TeamStore; dir: string; root: string }> {
  const tmp = tempDir('teamux-agent-');
  later(tmp.cleanup);
  const dir = `${tmp.dir}/.teamux/t`;
  const members: MemberSpec[] = [
    { name: 'lead', role: 'Plans and reviews', kind: 'lead', runtime: 'agent', speaksProtocol: true, planRequired: false, planApprover: null, tools: null, ...overrides.lead },
    ...teammates.map((n) => ({ name: n, role: `${n}'s work`, kind: 'teammate' as const, runtime: 'agent' as const, speaksProtocol: true, planRequired: false, planApprover: 'lead', tools: null, ...overrides[n] })),
  ];
  const { store } = await initTeam(dir, { name: 't', root: tmp.dir, layoutFile: null, members, seedTasks: [] });
  return { store, dir, root: tmp.dir };
}

/** A scripted server closed after the test. */
export async function scripted(scripts: Record<string, ScriptInput | Script>, opts: Partial<ScriptedServerOptions> = {}): Promise<ScriptedServer> {
  const server = await startScriptedServer({ scripts, ...opts });
  later(() => server.close());
  return server;
}

/** A pane sink that keeps everything as text. */
export class CaptureSink implements PaneSink {
  text = '';
  /** Every write, in order. */
  readonly writes: string[] = [];
  constructor(readonly tty = false, private readonly size = { columns: 100, rows: 30 }) {}
  write(text: string): void {
    this.text += text;
    this.writes.push(text);
  }
  columns(): number {
    return this.size.columns;
  }
  rows(): number {
    return this.size.rows;
  }
}

/** A running in-process agent. */
export interface AgentHandle {
  runtime: AgentRuntime;
  sink: CaptureSink;
  /** Resolves with the exit code. */
  done: Promise<number>;
  output(): string;
}

/** Options for a test agent: fast retries, no kickoff. */
export function testOptions(name: string, cwd: string, overrides: Partial<AgentOptions> = {}): AgentOptions {
  const r = resolveOptions({ name, cwd, isLead: false, demo: false, kickoff: null }, {}, 't');
  if (!r.ok) throw new Error(r.message);
  return { ...r.options, retry: { attempts: 6, baseMs: 5, maxMs: 40 }, heartbeatMs: 500, ...overrides };
}

/** The endpoint of a scripted server for `name`. */
export function endpointOf(server: ScriptedServer, name: string, apiKey = 'test-key'): Endpoint {
  return { ok: true, baseURL: server.url, apiKey, headers: { 'x-teamux-member': name }, demo: false };
}

/** Start an agent for `name`; it is stopped after the test. */
export function startAgent(
  store: TeamStore,
  name: string,
  endpoint: Endpoint,
  cwd: string,
  overrides: Partial<AgentOptions> = {},
  env?: NodeJS.ProcessEnv,
): AgentHandle {
  const sink = new CaptureSink();
  const runtime = new AgentRuntime({ store, options: testOptions(name, cwd, overrides), endpoint, pane: new Pane(sink), env });
  const done = runtime.run();
  later(async () => {
    runtime.exit(0, 'test over');
    await done;
  });
  return { runtime, sink, done, output: () => sink.text };
}

/** Messages in `member`'s inbox, read with a test-only cursor that leaves the member's own alone. */
export async function inbox(store: TeamStore, member: string): Promise<Message[]> {
  const all: Message[] = [];
  const r = await store.mail.unread(member, 'observer');
  all.push(...r.messages);
  return all;
}

/** Wait for a message in `member`'s inbox matching `pred`. */
export function waitForMessage(store: TeamStore, member: string, pred: (m: Message) => boolean, what: string, timeoutMs = 10_000): Promise<Message> {
  return waitFor(async () => (await inbox(store, member)).find(pred), what, timeoutMs);
}

/** Requests the server answered for `member` (Messages calls only). */
export function callsOf(server: ScriptedServer, member: string): LoggedRequest[] {
  return server.requests.filter((r) => r.member === member && r.path === '/v1/messages');
}

type Body = { messages: { role: string; content: unknown }[]; system?: string; tools?: { name: string }[]; tool_choice?: unknown };

/** A request's body, typed loosely. */
export function bodyOf(r: LoggedRequest | undefined): Body {
  if (!r) throw new Error('no such request');
  return r.body as Body;
}

/** All text in a message's content (text blocks and tool_result contents), joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: string; content?: unknown }) => (b.type === 'text' ? b.text : b.type === 'tool_result' ? contentText(b.content) : ''))
    .join('\n');
}

/** The last user message of a request body. */
export function lastUser(r: LoggedRequest | undefined): { role: string; content: unknown } {
  const msgs = bodyOf(r).messages.filter((m) => m.role === 'user');
  return msgs[msgs.length - 1]!;
}

/** A teamux screen's trust root over a team: a new run, its own store handle that signs as the operator, and the env members get. */
export async function trustRoot(dir: string): Promise<{ screen: TeamStore; authority: TrustAuthority; run: string; env: NodeJS.ProcessEnv }> {
  const opened = await TeamStore.open(dir, 'mux');
  if (!opened.ok) throw new Error(opened.error.message);
  const screen = opened.store;
  const { run } = await screen.startRun();
  const authority = new TrustAuthority(screen.paths, (await screen.config()).name, run, screen.log);
  await authority.serve();
  later(() => authority.dispose());
  screen.decisionSigner = authority.signer();
  return { screen, authority, run, env: { ...process.env, TEAMUX_TRUST_KEY: authority.publicKey, TEAMUX_RUN: run } };
}
