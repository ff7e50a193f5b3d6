/**
 * The node-pty host: each member runs in its own pseudo-terminal (TERM=xterm-256color), owned by
 * this process, started by host/pty-spawn.ts's stand-in for node-pty's fork. Bytes arrive as UTF-8
 * strings; flow control (pause/resume) and read pacing (holdReads) both stop and start the read of
 * the master's descriptor, so that output waits in the kernel for the frame that shows it, and an
 * ended process's exit is told once its output has been read (pty-spawn.ts). Disposing the host
 * with `kill` ends every process it started: SIGTERM first, then SIGKILL for any that linger.
 */
import { readSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import pty from 'node-pty';
import { installPaneSpawn, paneOutputEnded, paneReading } from './pty-spawn.js';
import type { Disposable, PaneExit, PaneHost, PaneProcess, PaneSpec } from './types.js';

/** The libuv stream handle under node-pty's read socket (net.Socket's `_handle`). */
interface ReadHandle {
  reading: boolean;
  readStop(): number;
  readStart(): number;
}

/** The parts of node-pty's read stream (a tty.ReadStream) a pane uses. */
interface ReadSocket {
  destroyed?: boolean;
  _handle?: Partial<ReadHandle> | null;
  _readableState?: { decoder?: StringDecoder | null };
  on(event: 'end', listener: () => void): void;
}

/**
 * A read this long means the process is streaming (a read returns what the kernel holds: a line
 * printer's reads are a line, a `cat`'s are kilobytes): its reads are never held, or it would be read
 * once a frame, a few KiB at a time, and a 30 MB cat would crawl at ~120 KiB/s.
 */
const STREAMING_READ = 1024;

const SIGNALS: Record<number, string> = { 1: 'SIGHUP', 2: 'SIGINT', 9: 'SIGKILL', 15: 'SIGTERM', 6: 'SIGABRT', 11: 'SIGSEGV' };

class PtyPane implements PaneProcess {
  // identity
  readonly id: string;
  // lifecycle
  private exited: PaneExit | null = null;
  // reading: stopped while held (read pacing, holdReads until releaseReads) or paused (flow control)
  private held = false;
  private paused = false;
  private stopped = false;
  private lastRead = 0;
  private readonly exitListeners = new Set<(e: PaneExit) => void>();
  private readonly subscriptions: Disposable[] = [];

  constructor(private readonly term: pty.IPty, id: string) {
    this.id = id;
    // first of the data listeners: the size of the read is known when a later one asks to hold
    this.subscriptions.push(term.onData((data) => (this.lastRead = data.length)));
    this.subscriptions.push(term.onExit(({ exitCode, signal }) => {
      this.exited = signal ? { exitCode: null, signal: SIGNALS[signal] ?? `signal ${signal}` } : { exitCode, signal: null };
      this.dropQueuedInput();
      for (const l of this.exitListeners) l(this.exited);
    }));
    // libuv takes a hang-up that comes with a short read for the end of the output (a pty hands out
    // at most 4 KiB a read), and what the process printed before it ended would stay in the kernel:
    // it is read here, while the descriptor is still open.
    this.socket()?.on('end', () => this.readToTheEnd());
    // The end of its output: its exit may be told now (host/pty-spawn.ts holds it until then).
    (term as unknown as { on(event: 'close', listener: () => void): void }).on('close', () => paneOutputEnded(term.pid));
  }

  /** Read what is left in the pty after libuv saw its end, and hand it on as node-pty would have. */
  private readToTheEnd(): void {
    const fd = (this.term as unknown as { _fd?: unknown })._fd;
    if (typeof fd !== 'number' || fd < 0) return;
    // the stream's own decoder: a character split across the last read and the next is kept whole
    const decoder = this.socket()?._readableState?.decoder ?? new StringDecoder('utf8');
    const buffer = Buffer.allocUnsafe(64 * 1024);
    // A pty holds a few tens of KiB; the bound is only against a descriptor that never runs dry.
    for (let reads = 0; reads < 1024; reads++) {
      let n = 0;
      try {
        n = readSync(fd, buffer, 0, buffer.length, null);
      } catch {
        // EIO: read to the end; EAGAIN: nothing more now
        break;
      }
      if (n <= 0) break;
      const text = decoder.write(buffer.subarray(0, n));
      if (text.length > 0) (this.term as unknown as { emit(event: 'data', data: string): void }).emit('data', text);
    }
  }

  // node-pty's read stream (a tty.ReadStream over the master's descriptor)
  private socket(): ReadSocket | null {
    return (this.term as unknown as { _socket?: ReadSocket })._socket ?? null;
  }

  get pid(): number {
    return this.term.pid;
  }

  onData(listener: (data: string | Uint8Array) => void): Disposable {
    const d = this.term.onData(listener);
    this.subscriptions.push(d);
    return d;
  }

  onExit(listener: (exit: PaneExit) => void): Disposable {
    if (this.exited) queueMicrotask(() => listener(this.exited!));
    this.exitListeners.add(listener);
    return { dispose: () => this.exitListeners.delete(listener) };
  }

  write(data: string): void {
    if (this.exited) return;
    // node-pty writes through libuv's thread pool (fs.write): a thread hand-off, and a wake-up of
    // this loop when it is done, on every key. With nothing queued before it, input is written here
    // at once (the descriptor is non-blocking); what the kernel does not take is queued as before.
    const fd = this.writeFd();
    if (fd === null || this.queuedInputBytes() > 0) {
      this.term.write(data);
      return;
    }
    const buffer = Buffer.from(data, 'utf8');
    let written = 0;
    try {
      written = writeSync(fd, buffer);
    } catch (err) {
      // the terminal is full (EAGAIN): queue it all; any other error: the process is gone, its exit follows
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    }
    if (written < buffer.length) this.term.write(buffer.subarray(written));
  }

  // the master side's descriptor that node-pty writes to (its write stream's)
  private writeFd(): number | null {
    const fd = (this.term as unknown as { _writeStream?: { _fd?: unknown } })._writeStream?._fd;
    return typeof fd === 'number' && fd >= 0 ? fd : null;
  }

  queuedInputBytes(): number {
    const queue = this.writeQueue();
    if (!queue) return 0;
    let bytes = 0;
    for (const task of queue) bytes += task.buffer.length - task.offset;
    return bytes;
  }

  // node-pty queues what the kernel's pty buffer refuses (EAGAIN) in its write stream's queue
  private writeQueue(): { buffer: { length: number }; offset: number }[] | null {
    const queue = (this.term as unknown as { _writeStream?: { _writeQueue?: unknown } })._writeStream?._writeQueue;
    return Array.isArray(queue) ? (queue as { buffer: { length: number }; offset: number }[]) : null;
  }

  // Input the process never read dies with it: left queued, node-pty would retry it on a closed
  // descriptor and print "Unhandled pty write error" on stderr, which is the human's screen.
  private dropQueuedInput(): void {
    const queue = this.writeQueue();
    if (queue) queue.length = 0;
  }

  resize(cols: number, rows: number): void {
    if (this.exited) return;
    try {
      this.term.resize(Math.max(1, cols), Math.max(1, rows));
    } catch {
      // The process may exit between the check and the ioctl.
    }
  }

  /**
   * Flow control. Reading stops at the descriptor (as for holdReads), not with the stream's pause():
   * a paused stream still reads up to its high-water mark, and the read error that ends a pty whose
   * process has exited would destroy the stream with that output unread in it.
   */
  pause(): void {
    this.paused = true;
    this.applyReading();
  }

  resume(): void {
    this.paused = false;
    this.applyReading();
  }

  holdReads(): void {
    if (this.held || this.exited || this.lastRead >= STREAMING_READ) return;
    this.held = true;
    this.applyReading();
  }

  releaseReads(): void {
    if (!this.held) return;
    this.held = false;
    this.applyReading();
  }

  /** Read on whatever held or paused the pane (it is ending): its exit waits on its output being read. */
  private readFreely(): void {
    this.held = false;
    this.paused = false;
    this.applyReading();
  }

  /** Stop or start reading the descriptor as held and paused say; tell the exit gate. */
  private applyReading(): void {
    const stop = this.held || this.paused;
    if (stop === this.stopped) return;
    const handle = this.readHandle();
    if (stop) {
      // not reading (closed, or the stream's own back-pressure stopped it): nothing to stop
      if (!handle?.reading) return;
      // `reading` stays set: net.Socket would otherwise start reading again on the next tick
      handle.readStop();
    } else if (handle?.reading) handle.readStart();
    // (else the stream stopped reading itself meanwhile, and starts again itself)
    this.stopped = stop;
    paneReading(this.term.pid, !stop);
  }

  // node-pty reads the master side through a tty.ReadStream; its libuv handle stops and starts
  // reading the descriptor, and `reading` is the flag net.Socket keeps of whether it should
  private readHandle(): ReadHandle | null {
    const socket = this.socket();
    const handle = socket?._handle;
    if (!socket || socket.destroyed || typeof handle?.readStop !== 'function' || typeof handle.readStart !== 'function') return null;
    return handle as ReadHandle;
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.exited) return;
    // a process told to end takes no more input (what is queued would fail on the closed descriptor)
    if (signal === 'SIGKILL' || signal === 'SIGTERM' || signal === 'SIGHUP') {
      this.dropQueuedInput();
      // and is read to its end without waiting for a frame: its exit is told once it has been read
      this.readFreely();
    }
    try {
      // Signal the whole process group, so a shell's children go too.
      process.kill(-this.term.pid, signal);
    } catch {
      try {
        this.term.kill(signal);
      } catch {
        // already gone
      }
    }
  }

  get hasExited(): boolean {
    return this.exited !== null;
  }

  dispose(): void {
    this.readFreely();
    for (const s of this.subscriptions.splice(0)) s.dispose();
    this.exitListeners.clear();
  }
}

/** Spawns members in node-pty pseudo-terminals. */
export class PtyHost implements PaneHost {
  readonly kind = 'pty' as const;
  private readonly panes = new Set<PtyPane>();

  async spawn(spec: PaneSpec): Promise<PaneProcess> {
    installPaneSpawn();
    const term = pty.spawn(spec.command, spec.args, {
      name: 'xterm-256color',
      cols: Math.max(1, spec.cols),
      rows: Math.max(1, spec.rows),
      cwd: spec.cwd,
      env: { ...spec.env, TERM: 'xterm-256color', COLORTERM: 'truecolor' },
    });
    const pane = new PtyPane(term, spec.id);
    this.panes.add(pane);
    pane.onExit(() => undefined);
    return pane;
  }

  async dispose(options: { kill?: boolean } = {}): Promise<void> {
    const live = [...this.panes].filter((p) => !p.hasExited);
    if (options.kill && live.length > 0) {
      for (const p of live) p.kill('SIGTERM');
      const deadline = Date.now() + 2_000;
      await new Promise<void>((resolve) => {
        const check = (): void => {
          if (live.every((p) => p.hasExited) || Date.now() > deadline) resolve();
          else setTimeout(check, 20);
        };
        check();
      });
      for (const p of live) if (!p.hasExited) p.kill('SIGKILL');
    }
    for (const p of this.panes) p.dispose();
    this.panes.clear();
  }
}
