/**
 * Whether `teamux start` resumes the run a team folder holds or starts a fresh one, as pure functions
 * of what the folder records: the roster's recorded statuses (a member that ended by handshake, or
 * whose exit the screen saw, is `exited`; one that died with a crashed screen still reads `working`
 * or `idle`) and the board. A run is finished when every task is completed (deleted ones aside) and
 * every member ended; anything else is unfinished and is resumed unless the person asks for `--fresh`.
 * See docs/resume.md.
 */
import type { MemberStatus, TaskStatus } from './types.js';
import { visible } from './visible.js';

/** What the folder holds, as far as the choice goes. */
export type EarlierRun =
  | { kind: 'none' }
  | { kind: 'finished'; run: string | null }
  | { kind: 'unfinished'; run: string | null; openTasks: number; notEnded: string[] };

/** Read an earlier run from the roster (recorded statuses, not liveness) and the task statuses. */
export function earlierRun(config: { run: string | null; members: ReadonlyArray<{ name: string; status: MemberStatus }> } | null, tasks: Iterable<{ status: TaskStatus }>): EarlierRun {
  if (!config) return { kind: 'none' };
  let openTasks = 0;
  for (const t of tasks) if (t.status !== 'completed' && t.status !== 'deleted') openTasks++;
  const notEnded = config.members.filter((m) => m.status !== 'exited').map((m) => m.name);
  // A folder that never ran and holds no open task (made by `teamux init`, say) has nothing to resume.
  if (config.run === null && openTasks === 0) return { kind: 'none' };
  if (openTasks === 0 && notEnded.length === 0) return { kind: 'finished', run: config.run };
  return { kind: 'unfinished', run: config.run, openTasks, notEnded };
}

/** What the person asked for on the command line. */
export type ResumeWish = 'default' | 'fresh' | 'resume';

/** What start does: resume the run, or begin a new one (archiving the folder first when it held a run). */
export type StartChoice =
  | { kind: 'resume'; run: string | null }
  | { kind: 'fresh'; archive: boolean }
  | { kind: 'refuse'; message: string; hint: string };

/** Decide between resuming and a fresh start. */
export function startChoice(earlier: EarlierRun, wish: ResumeWish): StartChoice {
  if (wish === 'fresh') return { kind: 'fresh', archive: earlier.kind !== 'none' };
  if (earlier.kind === 'unfinished') return { kind: 'resume', run: earlier.run };
  if (wish === 'resume') {
    return earlier.kind === 'none'
      ? { kind: 'refuse', message: 'there is no earlier run of this team to resume', hint: 'leave out --resume to start it' }
      : { kind: 'refuse', message: `the earlier run${earlier.run ? ` ${visible(earlier.run)}` : ''} is finished (every task completed, every member ended): there is nothing to resume`, hint: 'leave out --resume to archive it and start afresh' };
  }
  return { kind: 'fresh', archive: earlier.kind === 'finished' };
}

/** The status line after a resume: `resumed run <id> (3 tasks open, 2 unread)`. */
export function resumedLine(run: string, openTasks: number, unread: number, withdrawn: number, askedAgain = 0): string {
  const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  const parts = [plural(openTasks, 'task open', 'tasks open'), `${unread} unread`];
  if (askedAgain > 0) parts.push(plural(askedAgain, 'approved plan to approve again', 'approved plans to approve again'));
  if (withdrawn > 0) parts.push(plural(withdrawn, 'permission request withdrawn', 'permission requests withdrawn'));
  // The run id comes from team.json, a file a teammate can write: shown, never obeyed.
  return `resumed run ${visible(run)} (${parts.join(', ')})`;
}
