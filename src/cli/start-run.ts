/**
 * Which run `teamux start` takes (docs/resume.md): an unfinished earlier run is resumed, a finished
 * one archived and a fresh run begun; `--fresh` archives and begins anew, `--resume` refuses when
 * there is nothing to resume. Decided before the terminal is taken, so a refusal is a plain message
 * and exit code. The pure choice is src/protocol/resume.ts; the folder's side src/store/resume.ts.
 */
import type { ProtocolRequest } from '../protocol/types.js';
import { resumedLine, startChoice, type ResumeWish, type StartChoice } from '../protocol/resume.js';
import { readEarlierRun, resumeRun, unreadMessages } from '../store/resume.js';
import type { TeamStore } from '../store/team.js';
import { archiveEarlierRun } from './archive.js';
import { UsageError } from './context.js';

/** The flags, as one wish; both together are a usage error. */
export function resumeWish(values: { fresh?: boolean; resume?: boolean }): ResumeWish {
  if (values.fresh && values.resume) throw new UsageError('--fresh and --resume contradict each other', 'give one of them, or neither (an unfinished run is resumed, a finished one archived)');
  return values.fresh ? 'fresh' : values.resume ? 'resume' : 'default';
}

/** The choice for a team kept in `teamDir` (on a NATS store the server keeps the team: every start is a new run). */
export async function chooseStart(teamDir: string, wish: ResumeWish, remote: boolean): Promise<StartChoice> {
  if (remote) {
    if (wish !== 'default') throw new UsageError(`--${wish} is for teams kept in their folder; on a NATS store every start is a new run of the team the server keeps`, `leave out --${wish}`);
    return { kind: 'fresh', archive: false };
  }
  return startChoice(await readEarlierRun(teamDir), wish);
}

/** Archive the earlier run when the choice says so; returns where it went, or a refusal. */
export async function archiveIfChosen(teamDir: string, choice: StartChoice): Promise<{ archived: string | null } | { refused: string; hint: string }> {
  return choice.kind === 'fresh' && choice.archive ? archiveEarlierRun(teamDir) : { archived: null };
}

/** The run the screen serves, and the line its status line starts with. */
export interface TakenRun {
  run: string;
  expired: ProtocolRequest[];
  withdrawn: ProtocolRequest[];
  askedAgain: ProtocolRequest[];
  /** Shown on the status line once the screen is up (null: nothing to say). */
  greeting: () => Promise<string | null>;
}

/** Begin the chosen run in the opened team: take up the earlier one, or a new one. */
export async function takeRun(store: TeamStore, choice: StartChoice, archived: string | null): Promise<TakenRun> {
  if (choice.kind !== 'resume') {
    const { run, expired } = await store.startRun();
    return { run, expired, withdrawn: [], askedAgain: [], greeting: async () => (archived ? `started run ${run} afresh; the earlier run was archived to ${archived}` : null) };
  }
  const resumed = await resumeRun(store);
  const greeting = async (): Promise<string> => {
    const [board, unread] = await Promise.all([store.tasks.snapshot(), unreadMessages(store)]);
    const open = board.tasks.filter((t) => t.status !== 'completed' && t.status !== 'deleted').length;
    return resumedLine(resumed.run, open, unread, resumed.withdrawn.length, resumed.askedAgain.length);
  };
  return { ...resumed, greeting };
}
