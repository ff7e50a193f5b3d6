/**
 * Flow control between a pane's process and its emulator. The emulator parses asynchronously, so a
 * process that prints faster than xterm parses would grow the unparsed backlog without bound.
 * FlowController owns one boolean (is the source paused) and applies hysteresis: pause above the
 * high watermark, resume below the low one. pipeToTerminal wires a byte source (a PaneProcess,
 * structurally) into a PaneTerminal under that control.
 */

import type { Disposable, PaneTerminal } from './terminal.js';

/** Something whose reading can be paused, such as a pty. */
export interface FlowSource {
  pause(): void;
  resume(): void;
}

/** A pausable source of output bytes (PaneProcess satisfies it). */
export interface ByteSource extends FlowSource {
  onData(listener: (data: string | Uint8Array) => void): Disposable;
}

/** Watermarks in bytes of unparsed backlog. */
export interface FlowOptions {
  /** Pause the source above this; default 512 KiB. */
  highWatermark?: number;
  /** Resume the source below this; default 128 KiB. */
  lowWatermark?: number;
}

export const DEFAULT_HIGH_WATERMARK = 512 * 1024;
export const DEFAULT_LOW_WATERMARK = 128 * 1024;

/** Pauses and resumes a FlowSource as the backlog crosses the watermarks. */
export class FlowController implements Disposable {
  private readonly source: FlowSource;
  private readonly high: number;
  private readonly low: number;
  // state: whether we paused the source (and so owe it a resume)
  private isPaused = false;
  private disposed = false;

  constructor(source: FlowSource, options: FlowOptions = {}) {
    this.source = source;
    this.high = options.highWatermark ?? DEFAULT_HIGH_WATERMARK;
    this.low = Math.min(options.lowWatermark ?? DEFAULT_LOW_WATERMARK, this.high);
  }

  /** Report the current backlog; pauses or resumes the source when a watermark is crossed. */
  update(pendingBytes: number): void {
    if (this.disposed) return;
    if (!this.isPaused && pendingBytes > this.high) {
      this.isPaused = true;
      this.source.pause();
    } else if (this.isPaused && pendingBytes < this.low) {
      this.isPaused = false;
      this.source.resume();
    }
  }

  /** Whether the source is paused by this controller. */
  get paused(): boolean {
    return this.isPaused;
  }

  /** Stop controlling; a paused source is resumed so it is never left stuck. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.isPaused) {
      this.isPaused = false;
      this.source.resume();
    }
  }
}

/** How a source is piped into its emulator: the watermarks, and who sees each chunk first. */
export interface PipeOptions extends FlowOptions {
  /** Called with each chunk just before the emulator is given it (a key's echo shown ahead of its parse). */
  beforeParse?: (data: string | Uint8Array) => void;
}

/**
 * Feed every chunk of source into term, pausing the source while the emulator's backlog is above
 * the high watermark. onParsed fires after each chunk is parsed (mark the pane dirty there).
 */
export function pipeToTerminal(
  source: ByteSource,
  term: PaneTerminal,
  onParsed?: () => void,
  options?: PipeOptions,
): Disposable {
  const flow = new FlowController(source, options);
  let live = true;
  const afterParse = (): void => {
    if (!live) return;
    flow.update(term.pendingBytes);
    onParsed?.();
  };
  const beforeParse = options?.beforeParse;
  const subscription = source.onData((data) => {
    beforeParse?.(data);
    term.write(data, afterParse);
    flow.update(term.pendingBytes);
  });
  return {
    dispose: () => {
      live = false;
      subscription.dispose();
      flow.dispose();
    },
  };
}
