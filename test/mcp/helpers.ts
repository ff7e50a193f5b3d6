// MCP test helpers: the real SDK client (Client + StdioClientTransport) against a real `teamux mcp`
// child process on a real team folder, and the same server driven with raw JSON-RPC lines.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, waitFor } from '../helpers/team.js';

/** The environment for a child: ours, without anything that would pick a team for it. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('TEAMUX_')) env[k] = v;
  return { ...env, ...extra };
}

/** A connected SDK client for member `as` of the team in `dir`; close() ends the child. */
export async function mcpClient(dir: string, as: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--as', as, '--team-dir', dir], env: childEnv(), stderr: 'pipe' });
  const client = new Client({ name: 'teamux-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A tool call's text and error flag. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as { type: string; text?: string }[];
  return { text: content.map((c) => c.text ?? '').join(''), isError: r.isError === true };
}

/** `teamux mcp` driven by raw JSON-RPC lines, for what the SDK client would not send. */
export class RawMcp {
  readonly child: ChildProcessWithoutNullStreams;
  private buffered = '';
  stderr = '';

  constructor(args: string[], env = childEnv()) {
    this.child = spawn(process.execPath, [BIN, 'mcp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (s: string) => { this.buffered += s; });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (s: string) => { this.stderr += s; });
  }

  /** Write one line (a JSON-RPC message, or garbage). */
  send(line: string | object): void {
    this.child.stdin.write((typeof line === 'string' ? line : JSON.stringify(line)) + '\n');
  }

  /** Every complete JSON line written to stdout so far. */
  lines(): unknown[] {
    return this.buffered.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as unknown);
  }

  /** All stdout so far, as written. */
  get raw(): string {
    return this.buffered;
  }

  /** Wait for the response with this id. */
  async response(id: number, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    return waitFor(() => this.lines().find((m) => (m as { id?: unknown }).id === id) as Record<string, unknown> | undefined, `the response to request ${id}`, timeoutMs);
  }

  /** Send initialize and notifications/initialized as Claude Code does, and wait for the answer. */
  async initialize(id = 1): Promise<Record<string, unknown>> {
    this.send({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'claude-code', version: '2.1.328' } } });
    const r = await this.response(id);
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }

  /** Close stdin and wait for the exit code. */
  async end(timeoutMs = 20_000): Promise<number | null> {
    this.child.stdin.end();
    return this.exited(timeoutMs);
  }

  /** Wait for the child to exit. */
  async exited(timeoutMs = 20_000): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`teamux mcp did not exit within ${timeoutMs} ms`)), timeoutMs);
      this.child.once('exit', (code) => {
        clearTimeout(t);
        resolve(code);
      });
    });
  }

  /** Kill it if it still runs. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
