/**
 * PaneFifos: the FIFOs through which the tmux host reads its members' output when it uses pipe-pane
 * instead of control mode's %output. It owns a private folder (mode 0700, in the OS temp folder) with
 * one FIFO per pane and the non-blocking readers on them. Each FIFO is opened read-write, so the
 * reader never sees end-of-file when tmux's `cat` closes or is replaced; the reader is a net.Socket
 * on the descriptor, so reads go through the event loop, not the thread pool. Everything is released
 * by close(): readers destroyed, FIFOs and folder removed.
 */
import { execFile } from 'node:child_process';
import { constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** How long a pane's FIFO must be quiet before its exit is reported (its last bytes come first). */
export const DRAIN_QUIET_MS = 40;
/** The longest wait for that quiet. */
export const DRAIN_MAX_MS = 1_000;

interface Reader {
  fifo: string;
  socket: Socket;
  lastData: number;
}

/** The FIFOs of one host's panes. */
export class PaneFifos {
  // the private folder, made on first use
  private dir: string | undefined;
  // readers by tmux pane id
  private readonly readers = new Map<string, Reader>();
  private closed = false;
  private readonly onExit = (): void => this.close();

  /** Make the FIFO of `paneId` (if new) and read it into `receive`; returns its path. */
  async open(paneId: string, receive: (bytes: Uint8Array) => void): Promise<string> {
    const known = this.readers.get(paneId);
    if (known) return known.fifo;
    if (this.closed) throw new Error('pane FIFOs are closed');
    if (!this.dir) {
      this.dir = mkdtempSync(path.join(tmpdir(), 'teamux-tmux-'));
      // A process that ends without disposing its host (a signal) still removes its FIFOs.
      process.once('exit', this.onExit);
    }
    const fifo = path.join(this.dir, `pane-${paneId.replace(/[^0-9]/g, '')}`);
    await mkfifo(fifo);
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    const socket = new Socket({ fd, readable: true, writable: false });
    const reader: Reader = { fifo, socket, lastData: 0 };
    socket.on('data', (chunk: Buffer) => {
      reader.lastData = Date.now();
      receive(chunk);
    });
    socket.on('error', () => {});
    this.readers.set(paneId, reader);
    return fifo;
  }

  /** Whether `paneId` has a FIFO. */
  has(paneId: string): boolean {
    return this.readers.has(paneId);
  }

  /** Resolves once `paneId`'s FIFO has been quiet for DRAIN_QUIET_MS (at most DRAIN_MAX_MS). */
  async drained(paneId: string): Promise<void> {
    const reader = this.readers.get(paneId);
    if (!reader) return;
    const deadline = Date.now() + DRAIN_MAX_MS;
    for (;;) {
      const quietFor = Date.now() - reader.lastData;
      if (quietFor >= DRAIN_QUIET_MS || Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_QUIET_MS - quietFor, deadline - Date.now())));
    }
  }

  /** Stop reading `paneId` and remove its FIFO. */
  drop(paneId: string): void {
    const reader = this.readers.get(paneId);
    if (!reader) return;
    this.readers.delete(paneId);
    reader.socket.destroy();
    rmSync(reader.fifo, { force: true });
  }

  /** Stop every reader and remove the folder. */
  close(): void {
    this.closed = true;
    for (const id of [...this.readers.keys()]) this.drop(id);
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    process.removeListener('exit', this.onExit);
  }
}

function mkfifo(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('mkfifo', ['-m', '600', '--', file], (err, _out, stderr) => (err ? reject(new Error(`mkfifo ${file}: ${stderr.trim() || err.message}`)) : resolve()));
  });
}
