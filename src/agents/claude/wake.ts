/**
 * Waking an idle Claude Code member: a message for it is typed into its pane (bracketed paste, then
 * Enter) only while its hooks report it idle at its prompt, never mid-turn, and only when its input
 * box is empty and the operator has not typed into the pane for a while (else it looks again later). It takes the same cursor
 * lock as the member's Stop hook, so each message is handed over once, by one of them, and the
 * cursor moves only after the text was written to the pane. Also ends a Claude Code member once it
 * approved a shutdown (it does not exit by itself). While a budget stops the member (hook-budget.ts),
 * nothing is typed in and it is looked at again every BUDGET_RECHECK_MS. Owns folder watches on the inboxes, the activity
 * records and the requests, and the retry timers of deferred wakes, released by dispose().
 */
import { watch, type FSWatcher } from 'node:fs';
import { wakeText } from './hook-answers.js';
import { claudeBudgetHold } from './hook-budget.js';
import { OPERATOR_QUIET_MS, readPromptBox, wakeGate } from './prompt-box.js';
import { readCodexPromptBox } from '../codex/prompt-box.js';
import type { Disposable } from '../../host/types.js';
import { readClaudeActivity, updateClaudeActivity } from '../../store/claude.js';
import { ensureDir } from '../../store/fsx.js';
import { withLock } from '../../store/lock.js';
import { endApproved } from '../../app/shutdown.js';
import type { TeamStore } from '../../store/team.js';

/** What the wake needs of a pane. */
export interface WakeTarget {
  exited(): boolean;
  write(data: string): void;
  /** When the operator last typed into the pane (ms since the epoch; 0: never). */
  readonly lastTypedAt?: number;
  /** The pane's visible rows as text, where Claude Code's input box is read (src/agents/claude/prompt-box.ts). */
  screenText?(): string[];
  /** Which CLI draws the input line (Codex's is read by src/agents/codex/prompt-box.ts); absent: Claude Code. */
  readonly cli?: 'claude' | 'codex' | undefined;
}

/** How often a member stopped by a budget is looked at again (the window moves on by itself). */
export const BUDGET_RECHECK_MS = 15_000;

/** What a wake did: typed the messages in, or not (and when to look again, if it is only waiting for the operator). */
export type WakeOutcome = { typed: true } | { typed: false; retryInMs: number | null; why: string };

/** Bracketed paste around `text`, then Enter: Claude Code takes it as one prompt, newlines and all. */
export function pasteAndSubmit(text: string): string {
  // A teammate's text cannot end the paste early, press keys or send escape sequences: control
  // characters other than newline and tab are dropped.
  return `\x1b[200~${text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '')}\x1b[201~\r`;
}

/**
 * Hand unread messages to `member` through its pane if it is idle at an empty prompt and the operator
 * is not typing there (else say when to look again).
 */
export async function wakeIfIdle(store: TeamStore, member: string, target: WakeTarget, now = Date.now): Promise<WakeOutcome> {
  const no = (why: string, retryInMs: number | null = null): WakeOutcome => ({ typed: false, retryInMs, why });
  if (target.exited()) return no('not idle');
  const activity = await readClaudeActivity(store.paths, member);
  // Stopped by a budget: looked at again until the window moves on or the budget is raised.
  if (activity?.budget && (await claudeBudgetHold(store, member, null))) return no('budget spent', BUDGET_RECHECK_MS);
  if (activity?.state !== 'idle') return no('not idle');
  return withLock(store.paths.cursor(member, member), async () => {
    // Checked again under the lock: a Stop hook may have handed the messages over meanwhile.
    if (target.exited() || (await readClaudeActivity(store.paths, member))?.state !== 'idle') return no('not idle');
    const unread = await store.mail.unread(member, member);
    if (unread.messages.length === 0) return no('nothing unread');
    // A spent budget: the messages wait, unread (its tools would be refused anyway).
    if (await claudeBudgetHold(store, member, null)) return no('budget spent', BUDGET_RECHECK_MS);
    // Typed into the operator's half-written prompt, a message would join it: wait for them.
    const gate = wakeGate(now(), target.lastTypedAt ?? 0, target.screenText?.() ?? null, OPERATOR_QUIET_MS, target.cli === 'codex' ? readCodexPromptBox : readPromptBox, target.cli !== 'codex');
    if (!gate.now) return no(gate.why, gate.retryInMs);
    target.write(pasteAndSubmit(wakeText(unread.messages)));
    await store.mail.commit(member, member, unread.next);
    await updateClaudeActivity(store.paths, member, { state: 'working' });
    return { typed: true };
  });
}

/** What ending a member needs of its pane. */
export interface EndTarget extends WakeTarget {
  name: string;
  speaksProtocol: boolean;
  waitExit(timeoutMs: number): Promise<boolean>;
  kill(signal: NodeJS.Signals): void;
  /** Set once its ending after an approved shutdown began (app/shutdown.ts endApproved). */
  endedByShutdown?: boolean;
}

/**
 * Claude Code does not exit after approving a shutdown, whoever asked (the lead through its tools, or
 * the operator): a shutdown request to a running Claude Code member that it approved after its process
 * started ends the process (SIGTERM, then SIGKILL). Returns the members it ended.
 */
export async function endApprovedShutdowns(store: TeamStore, targets: readonly EndTarget[], startedAt: (member: string) => number, graceMs: number): Promise<string[]> {
  // A member already being ended is left to that (the watch runs again on every folder change).
  const running = targets.filter((t) => !t.exited() && !t.endedByShutdown);
  if (running.length === 0) return [];
  const { requests } = await store.requests.list();
  const ended: string[] = [];
  await Promise.all(running.map(async (t) => {
    const approved = requests.some((r) => r.type === 'shutdown' && r.to === t.name && r.status === 'approved' && Date.parse(r.resolvedAt ?? '') >= startedAt(t.name));
    if (!approved) return;
    ended.push(t.name);
    if (t.endedByShutdown) return;
    store.log.info(`${t.name} approved a shutdown request: ending its process`);
    await endApproved(t, () => undefined, graceMs);
  }));
  return ended;
}

/** Watch the team folder and wake the named Claude Code members as messages arrive for them while idle. */
export async function watchClaudeWake(store: TeamStore, members: readonly string[], targetOf: (member: string) => WakeTarget | undefined, end?: { targetOf: (member: string) => EndTarget | undefined; startedAt: (member: string) => number; graceMs: number }): Promise<Disposable> {
  await ensureDir(store.paths.inboxes);
  await ensureDir(store.paths.claude);
  let running = false;
  let again = false;
  // A wake waiting for the operator looks again on a timer (nothing in the folder changes meanwhile).
  const retries = new Map<string, NodeJS.Timeout>();
  const waitingWhy = new Map<string, string>();
  const retry = (member: string, ms: number): void => {
    if (retries.has(member)) return;
    retries.set(member, setTimeout(() => {
      retries.delete(member);
      void check();
    }, ms));
  };
  const check = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        for (const m of members) {
          const target = targetOf(m);
          if (!target) continue;
          const r = await wakeIfIdle(store, m, target).catch((err: unknown): WakeOutcome => ({ typed: false, retryInMs: null, why: `failed: ${(err as Error).message}` }));
          if (!r.typed && r.retryInMs !== null) {
            if (waitingWhy.get(m) !== r.why) store.log.info(`a message for ${m} waits: ${r.why}`);
            waitingWhy.set(m, r.why);
            retry(m, r.retryInMs);
          } else {
            if (!r.typed && r.why.startsWith('failed')) store.log.warn(`waking ${m} ${r.why}`);
            waitingWhy.delete(m);
          }
        }
        if (end) {
          const targets = members.map((m) => end.targetOf(m)).filter((t): t is EndTarget => t !== undefined);
          // Not awaited: ending takes up to the grace period, and waking the others must not wait for it.
          void endApprovedShutdowns(store, targets, end.startedAt, end.graceMs).catch((err: unknown) => store.log.warn(`ending a member failed: ${(err as Error).message}`));
        }
      } while (again);
    } finally {
      running = false;
    }
  };
  const watchers: FSWatcher[] = [];
  await ensureDir(store.paths.requests);
  for (const dir of [store.paths.inboxes, store.paths.claude, store.paths.requests]) {
    const w = watch(dir, (_e, file) => {
      if (file === null || !/\.(lock|tmp)$|\.lock\//.test(file)) void check();
    });
    w.on('error', () => w.close());
    watchers.push(w);
  }
  // team.json: a budget raised by hand lets a stopped member go on at once.
  const team = watch(store.dir, (_e, file) => {
    if (file === 'team.json') void check();
  });
  team.on('error', () => team.close());
  watchers.push(team);
  void check();
  return {
    dispose: () => {
      watchers.forEach((w) => w.close());
      retries.forEach((t) => clearTimeout(t));
      retries.clear();
    },
  };
}
