/**
 * The pacing both team views (the folder's and a shared store's) follow between hearing of a change
 * and reading it: the first change after a quiet spell is read at once; changes that follow within
 * COALESCE_MS wait for the end of that window and are read together in one reload. Reloads never
 * overlap, and a change heard during one is read after it. Owns only its timer and the reload in
 * flight; what a reload reads is the caller's.
 */

/** How long to let a burst of changes settle before reading them. */
export const COALESCE_MS = 15;

/** What the pacer calls: the reload, what to do after a scheduled one, how to report its failure. */
export interface PacedReload {
  reload(): Promise<void>;
  /** After a scheduled reload, while the pacer still runs (hand listeners the fresh state). */
  reloaded(): void;
  failed(err: unknown): void;
}

/** Serialises and coalesces the reloads of one team view. */
export class ReloadPacer {
  private timer: NodeJS.Timeout | null = null;
  private lastReload = 0;
  private inFlight: Promise<void> | null = null;
  private running = true;

  constructor(private readonly view: PacedReload) {}

  /** The first read, awaited by start(); it counts as a reload in flight, and its failure is the caller's. */
  async first(): Promise<void> {
    this.inFlight = this.view.reload();
    try {
      await this.inFlight;
    } finally {
      this.inFlight = null;
    }
  }

  /** A change was heard: reload now, or at the end of the current window. */
  schedule(): void {
    if (this.timer || !this.running) return;
    const wait = Math.max(0, COALESCE_MS - (Date.now() - this.lastReload));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.lastReload = Date.now();
      void this.serial();
    }, wait);
  }

  /** Stop: no more reloads are scheduled; resolves once the one in flight (if any) is over. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.inFlight?.catch(() => {});
  }

  private async serial(): Promise<void> {
    while (this.inFlight) await this.inFlight.catch(() => {});
    if (!this.running) return;
    this.inFlight = this.view.reload().catch((err: unknown) => this.view.failed(err));
    await this.inFlight;
    this.inFlight = null;
    if (this.running) this.view.reloaded();
  }
}
