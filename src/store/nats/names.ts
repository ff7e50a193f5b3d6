/**
 * How a team maps onto JetStream: pure functions from a team (and member) name to bucket, stream,
 * subject, key and consumer names. Team and member names match NAME_PATTERN ([a-z][a-z0-9_-]*), which
 * every one of these allows, so nothing here needs escaping.
 */

/** The KV bucket of a team's shared state: config, tasks, the id counter, requests, the board lease. */
export function stateBucket(team: string): string {
  return `teamux_${team}`;
}

/** The KV bucket of heartbeats: its entries expire after the bucket's max age, so a silent member vanishes. */
export function liveBucket(team: string): string {
  return `teamux_${team}_live`;
}

/** The stream holding every member's inbox, a subject per member. */
export function inboxStream(team: string): string {
  return `teamux_${team}_inbox`;
}

/** The subject of one member's inbox. */
export function inboxSubject(team: string, member: string): string {
  return `teamux.${team}.inbox.${member}`;
}

/** The stream holding the team's event log. */
export function eventStream(team: string): string {
  return `teamux_${team}_events`;
}

/** The subject events are published on. */
export function eventSubject(team: string): string {
  return `teamux.${team}.events`;
}

/** The durable consumer that is `reader`'s cursor in `member`'s inbox (length-prefixed: names may contain `_`). */
export function cursorConsumer(member: string, reader: string): string {
  return `cursor_${member.length}_${member}_${reader}`;
}

/** KV keys in the state bucket. */
export const keys = {
  config: 'config',
  counter: 'tasks.counter',
  boardLease: 'tasks.lease',
  task: (id: string): string => `task.${id}`,
  allTasks: 'task.*',
  request: (id: string): string => `request.${id}`,
  allRequests: 'request.*',
};

/** The task id in a task key, or null for any other key. */
export function taskIdOf(key: string): string | null {
  const m = /^task\.([1-9][0-9]*)$/.exec(key);
  return m ? m[1]! : null;
}
