/**
 * `events.jsonl`: the append-only record of every coordination event (tasks, messages, requests,
 * members). The sidebar's mailbox traffic and any audit read it; nothing ever rewrites it.
 */
import type { EventType, TeamEvent } from '../protocol/types.js';
import { appendLine, readText, type FileProblem } from './fsx.js';

/** The team's event log. */
export class EventLog {
  constructor(private readonly file: string) {}

  /** Append one event stamped with the current time. */
  async record(type: EventType, fields: Record<string, unknown>): Promise<void> {
    const event: TeamEvent = { time: new Date().toISOString(), type, ...fields };
    await appendLine(this.file, JSON.stringify(event));
  }

  /** Read events, optionally only the last `limit`; bad lines are reported and skipped. */
  async read(limit?: number): Promise<{ events: TeamEvent[]; problems: FileProblem[] }> {
    const text = await readText(this.file);
    if (text === undefined) return { events: [], problems: [] };
    const lines = text.split('\n');
    // The last piece is empty, or a line still being written: not complete yet.
    lines.pop();
    const from = limit === undefined ? 0 : Math.max(0, lines.length - limit);
    const events: TeamEvent[] = [];
    const problems: FileProblem[] = [];
    for (let i = from; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.trim() === '') continue;
      try {
        const ev = JSON.parse(line) as TeamEvent;
        if (typeof ev !== 'object' || ev === null || typeof ev.type !== 'string') throw new Error('not an event object');
        events.push(ev);
      } catch (err) {
        problems.push({ path: `${this.file}:${i + 1}`, message: `bad event line: ${(err as Error).message}` });
      }
    }
    return { events, problems };
  }
}
