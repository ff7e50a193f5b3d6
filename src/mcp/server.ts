/**
 * `teamux mcp`: the team protocol as an MCP server over stdio, for one member fixed at start-up.
 * Thin I/O around src/mcp/tools.ts: tools/list offers the ops the member may call (team.json is
 * re-read on every request, so a changed allowlist or roster applies at once), tools/call runs the
 * op through the shared call path and answers with a result (a refusal or bad input is isError).
 * Replies that must only count once delivered (read_inbox's cursor) are committed after the
 * transport has written the response. Nothing but JSON-RPC goes to stdout; diagnostics go to
 * teamux.log. Unknown methods (Claude Code's `server/discover` probe) get "method not found".
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { opByName } from '../ops/index.js';
import { invoke } from '../ops/invoke.js';
import { failReply, type OpContext } from '../ops/op.js';
import type { Member, TeamConfig } from '../protocol/types.js';
import type { TeamStore } from '../store/team.js';
import { callResult, instructions, SERVER_NAME, toolsForMember } from './tools.js';
import { NO_TRUST, type McpTrust } from './trust.js';

/** The version teamux reports at initialize. */
export const SERVER_VERSION = '0.1.0';

/** Where the server reads and writes (the process's stdio unless a test says otherwise). */
export interface McpStreams {
  input: NodeJS.ReadableStream & { pause(): unknown };
  output: NodeJS.WritableStream;
}

/**
 * The stdio transport, plus two duties: run a callback once each response has been written, and
 * when the client closes stdin, answer the requests already received before closing.
 */
class DeliveringTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  // Requests received and not yet answered; set once stdin has ended.
  private readonly unanswered = new Set<RequestId>();
  private draining = false;

  constructor(private readonly inner: StdioServerTransport, private readonly written: (message: JSONRPCMessage) => Promise<void>) {}

  async start(): Promise<void> {
    this.inner.onmessage = (message: JSONRPCMessage) => {
      if ('method' in message && 'id' in message && message.id !== undefined) this.unanswered.add(message.id);
      this.onmessage?.(message);
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    await this.inner.start();
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    await this.inner.send(message);
    await this.written(message);
    if (('result' in message || 'error' in message) && message.id !== undefined) this.unanswered.delete(message.id);
    if (this.draining && this.unanswered.size === 0) await this.close();
  }

  /** The client closed stdin: close once every request received has its answer. */
  async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    // Let messages already read reach their handlers before deciding nothing is in flight.
    await new Promise((r) => setImmediate(r));
    if (this.unanswered.size === 0) await this.close();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The member `name` and the team as team.json has them now, or why not. */
async function whoIsCalling(store: TeamStore, name: string): Promise<{ team: TeamConfig; me: Member } | { error: string }> {
  const read = await store.readConfig();
  if (!read.ok) return { error: read.error.message };
  const me = read.config.members.find((m) => m.name === name);
  return me ? { team: read.config, me } : { error: `${name} is no longer a member of team ${read.config.name}` };
}

/**
 * Serve the protocol as member `name` until the client closes stdin; resolves then. The caller has
 * checked that the member exists, and fixed its trust (plan gate anchor, the lead's signer) at start.
 */
export async function serveMcp(store: TeamStore, name: string, streams: McpStreams = { input: process.stdin, output: process.stdout }, trust: McpTrust = NO_TRUST): Promise<void> {
  const first = await whoIsCalling(store, name);
  if ('error' in first) throw new Error(first.error);
  const server = new Server({ name: SERVER_NAME, version: SERVER_VERSION }, { capabilities: { tools: {} }, instructions: instructions(first.team, first.me) });
  // Aborted when the client closes stdin: waits in progress (read_inbox wait_s) end and answer.
  const ending = new AbortController();
  // Replies to commit once written, by JSON-RPC request id.
  const onDelivery = new Map<RequestId, { commit: () => Promise<void>; settle: () => void }>();
  // Calls of a serial op (read_inbox) queue here, so two parallel reads never return the same messages.
  let serialTail: Promise<void> = Promise.resolve();

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const who = await whoIsCalling(store, name);
    if ('error' in who) throw new McpError(ErrorCode.InternalError, who.error);
    return { tools: toolsForMember(who.me) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = request.params.name;
    const who = await whoIsCalling(store, name);
    if ('error' in who) return callResult(failReply(`refused: ${who.error}`));
    const op = opByName(tool);
    if (!op) return callResult(failReply(`unknown tool "${tool}"; the tools you have are: ${toolsForMember(who.me).map((t) => t.name).join(', ')}`));
    let settle = (): void => {};
    if (op.serial) {
      const before = serialTail;
      serialTail = new Promise((resolve) => { settle = resolve; });
      await before;
    }
    try {
      // The lead's enrolment settles within moments of start (or its timeout); every call sees its outcome.
      const enrolled = trust.signing ? await trust.signing : null;
      const ctx: OpContext = {
        store, team: who.team, me: who.me, signal: AbortSignal.any([extra.signal, ending.signal]), anchor: trust.anchor,
        signer: enrolled && 'signer' in enrolled ? enrolled.signer : null,
        ...(enrolled && 'why' in enrolled ? { unsignedWhy: enrolled.why } : {}),
      };
      const reply = await invoke(op, request.params.arguments ?? {}, ctx);
      if (reply.isError) store.log.info(`mcp ${name}: ${tool} → ${reply.text.split('\n', 1)[0]}`);
      if (reply.delivered && !extra.signal.aborted) {
        // The next serial call waits until this reply is written and committed (or dropped).
        onDelivery.set(extra.requestId, { commit: reply.delivered, settle });
        settle = () => {};
        extra.signal.addEventListener('abort', () => dropDelivery(extra.requestId), { once: true });
      }
      return callResult(reply);
    } finally {
      settle();
    }
  });

  const dropDelivery = (id: RequestId): void => {
    onDelivery.get(id)?.settle();
    onDelivery.delete(id);
  };
  const delivered = async (message: JSONRPCMessage): Promise<void> => {
    if (!('id' in message) || message.id === undefined) return;
    const pending = onDelivery.get(message.id);
    if (!pending) return;
    onDelivery.delete(message.id);
    try {
      if ('result' in message) await pending.commit();
    } catch (err) {
      store.log.error(`mcp ${name}: could not commit a delivered reply`, err);
    } finally {
      pending.settle();
    }
  };

  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  server.onerror = (err) => store.log.warn(`mcp ${name}: ${err.message}`);
  const transport = new DeliveringTransport(new StdioServerTransport(streams.input as NodeJS.ReadStream, streams.output as NodeJS.WriteStream), delivered);
  // The client closing our stdin is the end of the session, once the requests it sent are answered.
  const end = (): void => {
    ending.abort();
    void transport.drain();
  };
  streams.input.once('end', end);
  streams.input.once('close', end);
  await server.connect(transport);
  store.log.info(`mcp server up for ${name} (pid ${process.pid})`);
  await closed;
  streams.input.off('end', end);
  streams.input.off('close', end);
  store.log.info(`mcp server for ${name} closed`);
}
