/**
 * Watching a backend's connection for a status line: a callback with one line of text each time the
 * state changes (lost and reconnecting, back, closed). The folder has no connection and never calls.
 * The state is polled from the backend (cheap: a field read), so nothing here depends on the client.
 */
import type { StoreBackend } from './backend.js';

/** The connection states a status line shows. */
export type ConnectionState = 'connected' | 'reconnecting' | 'closed';

/** The status text for a state. */
export function connectionLine(state: ConnectionState, detail: string): string {
  if (state === 'reconnecting') return `store: ${detail}; work waits and resumes when it is back`;
  if (state === 'closed') return `store: ${detail}`;
  return `store: connected to ${detail}`;
}

/** Call `onChange` with a status line whenever the connection state changes; dispose to stop. */
export function watchConnection(backend: StoreBackend, onChange: (line: string, state: ConnectionState) => void, everyMs = 250): { dispose(): void } {
  if (backend.connection() === null) return { dispose: () => {} };
  let last: ConnectionState = backend.connection()!.state;
  const timer = setInterval(() => {
    const now = backend.connection();
    if (!now || now.state === last) return;
    last = now.state;
    onChange(connectionLine(now.state, now.detail), now.state);
  }, everyMs);
  timer.unref();
  return { dispose: () => clearInterval(timer) };
}
