// FakeClock: a Clock whose time moves only when the test says so. advance(ms) runs every timer due on
// the way, in time order, letting promises settle between timers, so code that awaits between two
// timers (a handshake's SIGTERM then SIGKILL) runs as it would in real time, without sleeping.
import type { Clock, ClockTimer } from '../../src/host/clock.js';

interface Entry {
  at: number;
  seq: number;
  fn: () => void;
}

/** Let queued promise callbacks and immediates run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 20; j++) await Promise.resolve();
    await new Promise<void>((r) => setImmediate(r));
  }
}

/** A clock the test drives. */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private readonly timers = new Map<number, Entry>();

  constructor(start = 1_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): ClockTimer {
    const seq = ++this.seq;
    this.timers.set(seq, { at: this.t + Math.max(0, ms), seq, fn });
    return { id: seq };
  }

  clearTimeout(timer: ClockTimer | null | undefined): void {
    if (timer) this.timers.delete(timer.id as number);
  }

  /** Delays (from now) of the timers still pending, soonest first. */
  pending(): number[] {
    return [...this.timers.values()].map((e) => e.at - this.t).sort((a, b) => a - b);
  }

  /** Move time forward by `ms`, running each timer that falls due, in order. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const due = [...this.timers.values()].filter((e) => e.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers.delete(due.seq);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
    await settle();
  }
}
