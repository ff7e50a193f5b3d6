// FakePaneHost: a PaneHost whose processes are objects the test drives (emit output, exit) and
// inspects (what was written, which signals arrived), so key actions run without ptys in milliseconds.
import type { Disposable, PaneExit, PaneHost, PaneProcess, PaneSpec } from '../../src/host/types.js';

/** A process the test plays: output in with emit(), input out in `written`. */
export class FakeProcess implements PaneProcess {
  readonly written: string[] = [];
  readonly signals: NodeJS.Signals[] = [];
  exitInfo: PaneExit | null = null;
  private readonly dataListeners = new Set<(d: string) => void>();
  private readonly exitListeners = new Set<(e: PaneExit) => void>();
  /** When set, SIGTERM ends the process with this code (a program that honours signals). */
  exitOnSignal = true;

  constructor(readonly spec: PaneSpec, readonly pid: number) {}

  get id(): string {
    return this.spec.id;
  }

  onData(listener: (data: string | Uint8Array) => void): Disposable {
    this.dataListeners.add(listener);
    return { dispose: () => void this.dataListeners.delete(listener) };
  }

  onExit(listener: (exit: PaneExit) => void): Disposable {
    this.exitListeners.add(listener);
    return { dispose: () => void this.exitListeners.delete(listener) };
  }

  write(data: string): void {
    this.written.push(data);
  }

  resize(cols: number, rows: number): void {
    this.spec.cols = cols;
    this.spec.rows = rows;
  }

  pause(): void {}
  resume(): void {}

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.signals.push(signal);
    if (this.exitOnSignal || signal === 'SIGKILL') this.exit(null, signal);
  }

  dispose(): void {
    this.dataListeners.clear();
  }

  /** Print output in the pane. */
  emit(text: string): void {
    for (const l of this.dataListeners) l(text);
  }

  /** End the process. */
  exit(code: number | null, signal: string | null = null): void {
    if (this.exitInfo) return;
    this.exitInfo = { exitCode: code, signal };
    for (const l of [...this.exitListeners]) l(this.exitInfo);
  }

  /** Everything written to the process, joined. */
  get input(): string {
    return this.written.join('');
  }
}

/** Spawns FakeProcesses, by pane id. */
export class FakePaneHost implements PaneHost {
  readonly kind: 'pty' | 'tmux';
  readonly procs = new Map<string, FakeProcess>();
  disposed: { kill?: boolean } | null = null;
  /** Pane ids whose spawn fails (a command that is not installed). */
  readonly failing = new Set<string>();

  constructor(kind: 'pty' | 'tmux' = 'pty') {
    this.kind = kind;
  }

  async spawn(spec: PaneSpec): Promise<PaneProcess> {
    if (this.failing.has(spec.id)) throw new Error(`spawn ${spec.command} ENOENT`);
    // This test process's own pid: alive, so the roster's liveness check sees the member running.
    const p = new FakeProcess({ ...spec }, process.pid);
    this.procs.set(spec.id, p);
    return p;
  }

  async dispose(options?: { kill?: boolean }): Promise<void> {
    this.disposed = options ?? {};
    if (options?.kill) for (const p of this.procs.values()) p.exit(null, 'SIGKILL');
  }

  /** The process of pane `id` (throws when there is none, a test bug). */
  proc(id: string): FakeProcess {
    const p = this.procs.get(id);
    if (!p) throw new Error(`no fake process for ${id}`);
    return p;
  }
}
