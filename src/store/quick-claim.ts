/**
 * The short path of `teamux task claim` on a team folder: the same claim as TeamStore.claim with
 * TaskBoard.claim (the board index picks the candidates, each is locked and checked again under its
 * lock, "no ready task" rests on a fresh check of every file, the member is marked working), but
 * reading task files and team.json with the hand checks of protocol/task-check.ts instead of the zod
 * schemas, and loading neither zod nor the rest of the store. It owns no data of its own. Whatever it
 * does not handle the same way — a staged pipeline, a task file or team.json that does not check, a
 * task with pipeline fields, a member not on the roster, a folder the store would refuse or warn
 * about — ends it before anything is written, with null: the caller runs the full command. Its file
 * calls are synchronous (one process, one claim: nothing runs meanwhile), so a claim on a loaded
 * machine does not wait for a CPU at each of some thirty thread-pool round trips.
 */
import * as path from 'node:path';
import { existsSync } from 'node:fs';
import { noReadyTask } from '../protocol/claim-summary.js';
import { NAME_PATTERN } from '../protocol/message-line.js';
import { accept, type Outcome } from '../protocol/outcome.js';
import { checkTask, checkTeamConfig } from '../protocol/task-check.js';
import { checkClaim, claimed } from '../protocol/tasks.js';
import type { Member, ProcessRef, Task } from '../protocol/types.js';
import { EventLog } from './events.js';
import { ensureDirSync, readTextSync, UnsafePathError, writeJsonSync, type FileProblem } from './fsx.js';
import { claimHolder } from './liveness.js';
import { tryWithDirLock, withDirLock } from './dir-lock.js';
import type { TeamPaths } from './paths.js';
import { looksClaimable } from './task-peek.js';
import { quickFolder } from './quick-folder.js';
import { noteClaim, SCAN_EVERY_MS, trustedReadyList } from './ready-list.js';
import type { BoardIndex } from './task-index.js';

/** Racing claimers start at one of the first SPREAD ready tasks (by pid): store/tasks.ts's SPREAD. */
const SPREAD = 8;

/** While reading many blockers under a task's lock, give the event loop a turn after this many reads. */
const YIELD_EVERY = 256;

/** Something the short path does not handle: thrown before any write, caught in quickClaim. */
class FullPath {}

/**
 * Claim task `id` (or the next ready one) in the team folder `dir` as `by`, from a short-lived CLI
 * call; null when the full command must run instead.
 */
export async function quickClaim(dir: string, by: string, id: string | undefined): Promise<Outcome<Task> | null> {
  if (!NAME_PATTERN.test(by)) return null;
  const folder = quickFolder(dir);
  if (!folder) return null;
  const { paths } = folder;
  // A staged pipeline's rules run inside its claims (store/pipeline.ts): the full path applies them.
  if (existsSync(path.join(paths.dir, 'pipeline', 'settings.json'))) return null;
  const me = checkTeamConfig(folder.config)?.members.find((m) => m.name === by);
  if (!me) return null;
  const claim = new QuickClaim(paths, me);
  let r: Outcome<Task>;
  try {
    r = await claim.run(id);
  } catch (err) {
    if (err instanceof FullPath) return null;
    throw err;
  }
  if (r.ok) await claim.markWorking();
  return r;
}

/** One claim by one member (the fields TaskBoard and TeamStore use for it). */
class QuickClaim {
  private readonly events: EventLog;
  private readonly holder: ProcessRef;
  private readonly read = (id: string): Promise<{ task?: Task; problem?: FileProblem }> => this.readTask(id);

  constructor(private readonly paths: TeamPaths, private readonly me: Member) {
    this.events = new EventLog(paths.events);
    // A short-lived CLI call: the claim is held by the member's process or the CLI's parent (§7).
    this.holder = claimHolder(me, true);
  }

  /** TaskBoard.claim without a guard: by id under its lock, or the next ready task, spread by pid. */
  async run(id: string | undefined): Promise<Outcome<Task>> {
    const by = this.me.name;
    // The ready list, when it is what the index would say now: no need to parse the index.
    const list = trustedReadyList(this.paths, SCAN_EVERY_MS);
    if (id !== undefined) {
      const r = await withDirLock(this.paths.task(id), () => this.claimLocked(id));
      await noteClaim(this.paths, this.read, id, list, r.ok);
      return r;
    }
    if (list && list.total > 0) {
      const start = process.pid % Math.min(SPREAD, list.total);
      // The candidates in the order the full list would give them, as far as the list's prefix reaches.
      const order = list.first.length === list.total ? [...list.first.slice(start), ...list.first.slice(0, start)] : list.first.slice(start);
      for (const candidate of order) {
        const r = await this.tryCandidate(candidate);
        if (r) {
          await noteClaim(this.paths, this.read, candidate, list, true);
          return r;
        }
      }
      // None of them could be taken: the index decides, as below.
    }
    // Loaded only now: a claim the ready list answers needs neither the index nor the lock library.
    const { BoardIndex, NONE_READY_SCAN_MS } = await import('./task-index.js');
    const index: BoardIndex = new BoardIndex(this.paths, this.read);
    let ready = index.ready(await index.current());
    // "No ready task" rests on a recent check of every task file.
    if (ready.length === 0) ready = index.ready(await index.current(NONE_READY_SCAN_MS));
    const start = process.pid % Math.min(SPREAD, Math.max(1, ready.length));
    for (const candidate of [...ready.slice(start), ...ready.slice(0, start)]) {
      const r = await this.tryCandidate(candidate);
      if (r) {
        await index.note([candidate]);
        return r;
      }
    }
    return noReadyTask(by, []);
  }

  /** Claim a candidate if it looks claimable and its lock is free; null when it was not taken. */
  private async tryCandidate(id: string): Promise<Outcome<Task> | null> {
    if (!looksClaimable(this.paths, id)) return null;
    // A task whose lock is busy is being claimed by someone else right now: move on.
    const r = await tryWithDirLock(this.paths.task(id), () => this.claimLocked(id));
    return r?.ok ? r : null;
  }

  /** TeamStore.claim's last step: a member without a pid shows it is alive, and is marked working. */
  async markWorking(): Promise<void> {
    const name = this.me.name;
    if (this.me.pid === null) {
      ensureDirSync(this.paths.heartbeats);
      writeJsonSync(this.paths.heartbeat(name), { pid: process.pid, at: new Date().toISOString() });
    }
    if (this.me.status === 'working' || this.me.status === 'stopping') return;
    // TeamStore.updateMember: the member's record changed under the config lock, team.json rewritten whole.
    const changed = await withDirLock(this.paths.config, async () => {
      const text = readTextSync(this.paths.config, 'roster');
      const cfg = checkTeamConfig(text === undefined ? undefined : JSON.parse(text));
      // The task is claimed already: a team.json that went bad meanwhile is an error, as in TeamStore.config().
      if (!cfg) throw new Error(`${this.paths.config} changed while claiming and no longer reads as a team; run \`teamux team show\``);
      const i = cfg.members.findIndex((m) => m.name === name);
      if (i < 0) return false;
      cfg.members[i] = { ...cfg.members[i]!, status: 'working' };
      writeJsonSync(this.paths.config, cfg);
      return true;
    });
    if (changed) await this.events.record('member_working', { member: name, status: 'working' });
  }

  /** TaskBoard.claimLocked without a guard. */
  private async claimLocked(id: string): Promise<Outcome<Task>> {
    const { task } = await this.readTask(id);
    const blockers = new Map<string, Task>();
    let reads = 0;
    for (const b of new Set(task?.blockedBy ?? [])) {
      const r = await this.readTask(b);
      if (r.task) blockers.set(b, r.task);
      // The reads are synchronous: let a signal be handled now and then (dir-lock.ts removes the lock, the process dies of it).
      if (++reads % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const check = checkClaim(task, blockers, id);
    if (!check.ok) return check;
    const now = new Date().toISOString();
    const next = claimed(check.value, this.me.name, now, this.holder);
    writeJsonSync(this.paths.task(id), next);
    await this.events.record('task_claimed', { task: id, by: this.me.name, attempt: next.attempts.length });
    return accept(next);
  }

  /**
   * TaskBoard.readTask with the hand check: a missing file is {}; a file the check does not take (or
   * a link) ends the short path, since the full path's message for it comes from the zod schema.
   */
  private async readTask(id: string): Promise<{ task?: Task; problem?: FileProblem }> {
    let text: string | undefined;
    try {
      text = readTextSync(this.paths.task(id), 'record');
    } catch (err) {
      if (err instanceof UnsafePathError) throw new FullPath();
      throw err;
    }
    if (text === undefined) return {};
    let task: Task | null;
    try {
      task = checkTask(JSON.parse(text));
    } catch {
      throw new FullPath();
    }
    if (!task || task.id !== id) throw new FullPath();
    return { task };
  }
}
