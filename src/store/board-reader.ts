/**
 * The part of a team view that both the folder's watch and a shared store's watch read the same way:
 * the task board (a BoardModel, so a changed task re-classifies only it and its dependents), the
 * problems found reading tasks, and the requests, oldest first. It reads through the store's
 * TaskStore and RequestStore, so it serves either backend; which tasks and requests to read again
 * is the watch's business.
 */
import type { ProtocolRequest, Task } from '../protocol/types.js';
import { BoardModel } from './board-model.js';
import type { FileProblem } from './fsx.js';
import type { TeamStore } from './team.js';

/** The board, task problems and requests of one team view. */
export class BoardReader {
  readonly board = new BoardModel<Task>();
  problemList: FileProblem[] = [];
  requestList: ProtocolRequest[] = [];
  private readonly taskProblems = new Map<string, FileProblem>();
  private readonly requests = new Map<string, ProtocolRequest>();

  constructor(private readonly store: TeamStore) {}

  /** Read the whole board and every request. */
  async readAll(): Promise<void> {
    const snap = await this.store.tasks.snapshot();
    // A deleted task is a tombstone kept for the record, not part of the board.
    this.board.reset(snap.tasks.filter((t) => t.status !== 'deleted'));
    this.taskProblems.clear();
    for (const pr of snap.problems) this.taskProblems.set(pr.path, pr);
    this.problemList = [...this.taskProblems.values()];
    const reqs = await this.store.requests.list();
    this.requests.clear();
    for (const r of reqs.requests) this.requests.set(r.id, r);
    this.sortRequests();
  }

  /** Re-read the tasks that changed; only they and their dependents are re-classified. */
  async readTasks(ids: string[]): Promise<void> {
    let problemsChanged = false;
    for (const id of ids) {
      const r = await this.store.tasks.readTask(id);
      if (r.task && r.task.status !== 'deleted') this.board.set(r.task);
      else this.board.delete(id);
      // A problem is kept under where it was found: a folder's `…/<id>.json`, or `<store> task.<id>`.
      for (const where of this.taskProblems.keys()) {
        if (!where.endsWith(` task.${id}`) && !where.endsWith(`/${id}.json`)) continue;
        this.taskProblems.delete(where);
        problemsChanged = true;
      }
      if (r.problem) this.taskProblems.set(r.problem.path, r.problem);
      problemsChanged ||= r.problem !== undefined;
    }
    if (problemsChanged) this.problemList = [...this.taskProblems.values()];
  }

  /** Re-read the requests that changed (a request gone or unreadable leaves the list). */
  async readRequests(ids: string[]): Promise<void> {
    for (const id of ids) {
      const r = await this.store.requests.get(id);
      if (r.ok) this.requests.set(id, r.value);
      else this.requests.delete(id);
    }
    if (ids.length > 0) this.sortRequests();
  }

  private sortRequests(): void {
    this.requestList = [...this.requests.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }
}
