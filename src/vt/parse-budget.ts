/**
 * How much pane output is parsed at once, on the read path, rather than later. xterm defers the parse
 * of every write to a timer of its own; for the many small reads a streaming pane makes (a line at a
 * time), that timer costs more than the parse, and it delays every byte by at least a millisecond.
 * As tmux's read callback does, a pane's output is parsed as it arrives, within a budget shared by
 * every pane of the process: at most BUDGET_MS of such parsing per WINDOW_MS. Past it (a flood), writes
 * take xterm's deferred path again, which yields to the event loop every ~12 ms and lets flow control
 * (flow.ts) pause the source, so keys and frames are still served. The data owned: the current window's
 * start and the milliseconds spent in it.
 */

/** The window over which the budget is counted, in ms. */
export const WINDOW_MS = 16;
/** Milliseconds of parsing at once allowed per window: half of it, the rest left for frames and keys. */
export const BUDGET_MS = 8;

/** A budget of synchronous parse time per window, on a monotonic millisecond clock. */
export class ParseBudget {
  private windowStart = Number.NEGATIVE_INFINITY;
  private used = 0;

  constructor(private readonly now: () => number = () => performance.now(), private readonly windowMs = WINDOW_MS, private readonly budgetMs = BUDGET_MS) {}

  /** Whether a write may be parsed at once now. */
  allows(): boolean {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.used = 0;
    }
    return this.used < this.budgetMs;
  }

  /** Run `parse` at once, counting the time it takes against the budget. */
  spend(parse: () => void): void {
    const start = this.now();
    try {
      parse();
    } finally {
      this.used += this.now() - start;
    }
  }
}

/** The budget every pane of this process shares. */
export const parseBudget = new ParseBudget();
