/**
 * The clock seam: every timer of the multiplexer (status expiry, shutdown escalation, frame pacing,
 * the lone-ESC timeout) reads time and sets timeouts through a Clock, so a unit test can drive time
 * with a fake clock instead of sleeping. systemClock is the real one; it owns nothing.
 */

/** A timer set on a clock; clear it with the same clock. */
export interface ClockTimer {
  readonly id: unknown;
}

/** Time and timeouts. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): ClockTimer;
  clearTimeout(timer: ClockTimer | null | undefined): void;
}

/** The process's own clock (Date.now, setTimeout). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => ({ id: setTimeout(fn, ms) }),
  clearTimeout: (timer) => {
    if (timer) clearTimeout(timer.id as NodeJS.Timeout);
  },
};

/** Resolve after `ms` on `clock` (false), or as soon as `signal` aborts (true). */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      resolve(true);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
