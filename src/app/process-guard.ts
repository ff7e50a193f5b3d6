/**
 * The process-wide hooks the screen needs while it owns the terminal: SIGTERM and SIGHUP (the
 * terminal closed, or a plain kill), unhandled rejections and uncaught exceptions. Owns only the
 * listeners it installs, removed again by dispose().
 */

/** What to do on each. */
export interface ProcessHandlers {
  hangup(): void;
  rejection(reason: unknown): void;
  exception(err: Error): void;
}

/** Install the handlers on `process`; dispose() removes them. */
export function guardProcess(h: ProcessHandlers): { dispose(): void } {
  const hangup = (): void => h.hangup();
  const rejection = (reason: unknown): void => h.rejection(reason);
  const exception = (err: Error): void => h.exception(err);
  process.on('SIGTERM', hangup);
  process.on('SIGHUP', hangup);
  process.on('unhandledRejection', rejection);
  process.on('uncaughtException', exception);
  return {
    dispose: () => {
      process.off('SIGTERM', hangup);
      process.off('SIGHUP', hangup);
      process.off('unhandledRejection', rejection);
      process.off('uncaughtException', exception);
    },
  };
}
