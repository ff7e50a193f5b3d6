/**
 * The screen's start-up timeline: named points in time since the process began (Node's
 * performance clock, whose origin is the process's start), said once in teamux.log when the screen
 * is up, so a slow start can be read from the log instead of guessed: where the time went between
 * `node` starting and the first frame that shows every pane. Each point also says how many pages the
 * process had faulted in by then (`pf`): on a virtual machine a first touch of a page can cost more
 * than 10 µs, so memory touched while starting is start-up time too.
 */
import { performance, type PerformanceMark } from 'node:perf_hooks';

const PREFIX = 'teamux:';

/** Note that start-up reached `what` now. */
export function startupMark(what: string): void {
  performance.mark(PREFIX + what, { detail: process.resourceUsage().minorPageFault });
}

/** The points noted so far, in order, as "what N pf M" (ms since the process began, pages faulted); forgets them. */
export function startupTimeline(): string {
  const marks = performance.getEntriesByType('mark').filter((m) => m.name.startsWith(PREFIX)) as PerformanceMark[];
  for (const name of new Set(marks.map((m) => m.name))) performance.clearMarks(name);
  return marks.map((m) => `${m.name.slice(PREFIX.length)} ${Math.round(m.startTime)} pf ${String(m.detail)}`).join(', ');
}
