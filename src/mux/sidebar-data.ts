/**
 * The sidebar's data model: what the team folder looks like to the screen (roster, tasks, traffic,
 * requests, problems, and what extensions add: Claude Code activity and team, the pipeline line, the
 * store's connection, budgets), the sections it can show, and which requests keys act on. The
 * reducer keeps one SidebarData in its state; ui/sidebar.ts renders it. Pure types and one query.
 */
import type { WorkSummary } from '../protocol/worktrees.js';
import type { BudgetSummary } from '../protocol/budget.js';
import type { PipelineSummary } from '../protocol/pipeline.js';
import type { ProtocolRequest, Task, TeamEvent } from '../protocol/types.js';
import type { BoardView, WithReady } from '../store/board-model.js';
import type { ClaudeActivity } from '../store/claude.js';
import type { ClaudeTeamView } from '../store/claude-team-files.js';
import type { FileProblem } from '../store/fsx.js';
import type { MemberView } from '../store/team.js';

export type SidebarSection = 'task_board' | 'mailbox' | 'requests';

/** A task with its readiness computed. */
export type TaskRow = WithReady<Task>;

/** What the sidebar draws: the team folder as the multiplexer's TeamView keeps it (its snapshot is one). */
export interface SidebarData {
  team: string;
  roster: MemberView[];
  tasks: TaskRow[];
  /** The board kept incrementally (the team watch's); when absent it is built from `tasks`. */
  board?: BoardView<Task>;
  traffic: TeamEvent[];
  requests: ProtocolRequest[];
  problems: FileProblem[];
  /** Claude Code members' activity records (state, tokens, cost), by name; absent: none. */
  claude?: Readonly<Record<string, ClaudeActivity | undefined>>;
  /** A native lead's Claude Code team (its own team files), when there is one. */
  claudeTeam?: ClaudeTeamView;
  /** The staged pipeline's line (stage, wave, fix round, verifier); absent or null: no pipeline. */
  pipeline?: PipelineSummary | null;
  /** The shared store's connection (NATS), for the status line; absent or null: the team folder. */
  store?: { state: 'connected' | 'reconnecting' | 'closed'; detail: string } | null;
  /** Spend against the team's and members' budgets; absent or null: no budget. */
  budget?: BudgetSummary | null;
  /** Members' work in their worktrees (counts, overlaps); absent or null: no worktrees. */
  work?: WorkSummary | null;
}

/** Pending requests, oldest first: the ones keys act on. */
export function pendingRequests(s: SidebarData): ProtocolRequest[] {
  return s.requests.filter((r) => r.status === 'pending');
}
