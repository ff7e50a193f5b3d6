/**
 * The screen's start-up timeline: named points in time since the process began (Node's
 * performance clock, whose origin is the process's start), said once in teamux.log when the screen
 * is up, so a slow start can be read from the log instead of guessed: where the time went between
 * `node` starting and the first frame that shows every pane.
 */
import { performance } from 'node:perf_hooks';

const PREFIX = 'teamux:';

/** Note that start-up reached `what` now. */
export function startupMark(what: string): void {
  performance.mark(PREFIX + what);
}

/** The points noted so far, in order, as "what at N ms" (since the process began); forgets them. */
export function startupTimeline(): string {
  const marks = performance.getEntriesByType('mark').filter((m) => m.name.startsWith(PREFIX));
  for (const name of new Set(marks.map((m) => m.name))) performance.clearMarks(name);
  return marks.map((m) => `${m.name.slice(PREFIX.length)} ${Math.round(m.startTime)}`).join(', ');
}
