/**
 * A TmuxRunner that touches nothing: it records the argv of every one-shot command, every control
 * line written, and every signal, and answers from scripts the test provides. Its control processes
 * speak the real wire format (`%begin`/`%end` guards, flags 0 for the attach, 1 for stdin commands,
 * `%exit` on detach), so the ControlClient and TmuxHost run unmodified on top of it.
 */

import type { Disposable } from '../types.js';
import { Listeners } from './listeners.js';
import type { ControlProcess, TmuxResult, TmuxRunner } from './runner.js';

/** A scripted answer to one command of a control line. */
export interface FakeReply {
  /** false answers with %error. Default true. */
  ok?: boolean;
  lines?: string[];
}

/** Splits a control line into its `;`-separated commands (quotes and backslashes respected). */
export function splitSequence(line: string): string[] {
  const commands: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '\\' && i + 1 < line.length) {
      current += ch + line[++i];
    } else if (ch === '"') {
      quoted = !quoted;
      current += ch;
    } else if (!quoted && ch === ';' && (i === 0 || line[i - 1] === ' ') && (i + 1 === line.length || line[i + 1] === ' ')) {
      commands.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  commands.push(current.trim());
  return commands.filter((command) => command !== '');
}

/** Escapes bytes the way tmux writes a %output value. */
export function encodeOutputValue(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b < 0x20 || b === 0x5c ? `\\${b.toString(8).padStart(3, '0')}` : String.fromCharCode(b);
  return out;
}

/** Records what the tmux backend asks of the OS. */
export class FakeTmuxRunner implements TmuxRunner {
  /** argv of every run() call, in order. */
  readonly runs: string[][] = [];
  /** Every control client started, in order. */
  readonly clients: FakeControlProcess[] = [];
  /** Every signal sent. */
  readonly signals: { pid: number; signal: NodeJS.Signals }[] = [];
  /** Answers run(); default: exit 0 with no output. */
  onRun: (args: readonly string[]) => Partial<TmuxResult> = () => ({});
  /** Answers each command of a control line; default: success with no lines. */
  onCommand: (command: string, client: FakeControlProcess) => FakeReply = () => ({});
  /** Lines of the attach reply; set attachError to make the attach fail. */
  attachError: string[] | undefined;

  run(args: readonly string[]): Promise<TmuxResult> {
    this.runs.push([...args]);
    return Promise.resolve({ stdout: '', stderr: '', code: 0, ...this.onRun(args) });
  }

  control(args: readonly string[]): ControlProcess {
    const client = new FakeControlProcess([...args], this);
    this.clients.push(client);
    return client;
  }

  signal(pid: number, signal: NodeJS.Signals): boolean {
    this.signals.push({ pid, signal });
    return true;
  }

  /** Every control line written by every client, in order. */
  get lines(): string[] {
    return this.clients.flatMap((client) => client.lines);
  }
}

/** A fake `tmux -C` process. */
export class FakeControlProcess implements ControlProcess {
  readonly pid = 4242;
  /** Command lines received on stdin. */
  readonly lines: string[] = [];
  /** True once stdin was closed (a detach). */
  ended = false;

  private readonly data = new Listeners<Uint8Array>();
  private readonly stderr = new Listeners<string>();
  private readonly exits = new Listeners<{ code: number | null; signal: string | null }>();
  private exitInfo: { code: number | null; signal: string | null } | undefined;
  private number = 300;
  private partial = '';

  constructor(
    readonly args: string[],
    private readonly runner: FakeTmuxRunner,
  ) {
    queueMicrotask(() => {
      const error = runner.attachError;
      this.reply(0, error ? { ok: false, lines: error } : {});
      if (error) this.detach();
    });
  }

  write(text: string): void {
    if (this.exitInfo || this.ended) return;
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) {
      this.lines.push(line);
      const replies: FakeReply[] = [];
      for (const command of splitSequence(line)) {
        const reply = this.runner.onCommand(command, this);
        replies.push(reply);
        if (reply.ok === false) break;
      }
      queueMicrotask(() => replies.forEach((reply) => this.reply(1, reply)));
    }
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    queueMicrotask(() => this.detach());
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.exit(null, signal);
  }

  onData(listener: (chunk: Uint8Array) => void): Disposable {
    return this.data.add(listener);
  }

  onStderr(listener: (text: string) => void): Disposable {
    return this.stderr.add(listener);
  }

  onExit(listener: (code: number | null, signal: string | null) => void): Disposable {
    return this.exits.add(({ code, signal }) => listener(code, signal));
  }

  /** Writes protocol text (or bytes) to the client's stdout, as tmux would. */
  emit(chunk: string | Uint8Array): void {
    if (this.exitInfo) return;
    this.data.emit(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  }

  /** Emits `%output` for a pane. */
  output(paneId: string, bytes: Uint8Array | string): void {
    const raw = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
    this.emit(Buffer.concat([Buffer.from(`%output ${paneId} `), Buffer.from(encodeOutputValue(raw), 'latin1'), Buffer.from('\n')]));
  }

  /** Sends `%exit` and ends the process, as tmux does when the client detaches. */
  detach(reason?: string): void {
    this.emit(reason ? `%exit ${reason}\n` : '%exit\n');
    this.exit(0, null);
  }

  /** Ends the process. */
  exit(code: number | null, signal: string | null): void {
    if (this.exitInfo) return;
    this.exitInfo = { code, signal };
    this.exits.emit(this.exitInfo);
  }

  private reply(flags: number, reply: FakeReply): void {
    const guard = `1796025000 ${this.number++} ${flags}`;
    const body = (reply.lines ?? []).map((line) => `${line}\n`).join('');
    this.emit(`%begin ${guard}\n${body}%${reply.ok === false ? 'error' : 'end'} ${guard}\n`);
  }
}
