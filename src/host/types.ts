/**
 * The PaneHost seam: everything that spawns, kills or talks to a member's process sits behind this
 * narrow interface (as zellij's os_input_output and claude-squad's TmuxSession do). The ui, sidebar
 * and keys code only ever see a PaneProcess; whether bytes come from node-pty or from tmux control
 * mode is the host's business.
 */

/** Something that holds resources and must be released by its owner. */
export interface Disposable {
  dispose(): void;
}

/** What to run in a pane. */
export interface PaneSpec {
  /** Stable pane id; for teammates this is the member name. */
  id: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

/** How a pane's process ended. exitCode is null when it was killed by a signal. */
export interface PaneExit {
  exitCode: number | null;
  signal: string | null;
}

/** A live (or finished) process in a pseudo-terminal. */
export interface PaneProcess {
  readonly id: string;
  /** The pid of the member process (not of a wrapper), when the host knows it. */
  readonly pid: number | undefined;
  /** Screen contents to prime the emulator with before the byte stream (tmux capture-pane -e). */
  readonly initialScreen?: string;
  /** Output bytes from the process. Strings are already UTF-8 decoded. */
  onData(listener: (data: string | Uint8Array) => void): Disposable;
  onExit(listener: (exit: PaneExit) => void): Disposable;
  /** Send input (keys, paste, terminal replies) to the process. */
  write(data: string): void;
  /** Input written but not yet taken by the process's terminal (it is not reading); absent if unknown. */
  queuedInputBytes?(): number;
  resize(cols: number, rows: number): void;
  /** Flow control: stop reading from the process until resume(). */
  pause(): void;
  resume(): void;
  /**
   * Read pacing: leave the process's output in the kernel until releaseReads() (the frame that will
   * show it), so that a pane printing line by line is read once per frame; absent where it cannot.
   */
  holdReads?(): void;
  releaseReads?(): void;
  /** Send a signal (default SIGTERM) to the process. */
  kill(signal?: NodeJS.Signals): void;
  /** Release listeners; does not kill the process. */
  dispose(): void;
}

/** A pane that another process opened in the host's session (the tmux stand-in's bridge). */
export type PaneAppearance =
  | { kind: 'appeared'; proc: PaneProcess; slot: number }
  /** The pane's process was replaced under a new name (`from` is the old one). */
  | { kind: 'renamed'; from: string; proc: PaneProcess; slot: number }
  | { kind: 'gone'; id: string }
  /** The other process asked for the pane to be focused (tmux select-pane), at `at` ms since the epoch. */
  | { kind: 'focus'; id: string; at: number };

/** Spawns and tracks pane processes. */
export interface PaneHost {
  readonly kind: 'pty' | 'tmux';
  spawn(spec: PaneSpec): Promise<PaneProcess>;
  /** Follow panes other processes open, rename and close in the session (tmux); absent when there are none. */
  follow?(listener: (change: PaneAppearance) => void): Promise<Disposable>;
  /** Release everything the host owns. With `kill`, end every process it started. */
  dispose(options?: { kill?: boolean }): Promise<void>;
}
