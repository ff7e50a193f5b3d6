/**
 * A minimal typed listener list: the only event plumbing the tmux backend uses. It owns the set of
 * registered callbacks; each registration is a Disposable its owner releases. A listener that throws
 * does not stop delivery to the others; its error is rethrown asynchronously so it stays loud.
 */

import type { Disposable } from '../types.js';

/** A set of callbacks for one kind of event. */
export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  /** Registers a listener; dispose the result to unregister. */
  add(listener: (value: T) => void): Disposable {
    // Wrap so the same function can be registered twice and removed independently.
    const entry = (value: T): void => listener(value);
    this.set.add(entry);
    return { dispose: () => void this.set.delete(entry) };
  }

  /** Calls every listener registered at the time of the call. */
  emit(value: T): void {
    for (const listener of [...this.set]) {
      try {
        listener(value);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** How many listeners are registered. */
  get size(): number {
    return this.set.size;
  }

  /** Drops every listener. */
  clear(): void {
    this.set.clear();
  }
}
