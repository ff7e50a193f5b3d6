/**
 * What the web view renders from, and the few rules its pages share: the screen's snapshot of the team
 * (the same SidebarData the sidebar draws), each member's activity as the screen's pane titles show it,
 * and a request's revision (a digest of everything in it, so an answer posted for what a page showed is
 * refused once the request has changed: no replay of an old approval). Pure.
 */
import { createHash } from 'node:crypto';
import { memberActivity, type Activity } from '../protocol/activity.js';
import { formatTokens, formatUsd } from '../protocol/pricing.js';
import type { ProtocolRequest, TeamEvent } from '../protocol/types.js';
import type { SidebarData } from '../mux/sidebar-data.js';

/** The team as a page is rendered from it. */
export interface WebData {
  snapshot: SidebarData;
  /** Each member's activity as the screen shows it; members not in it are judged from the snapshot. */
  activities?: ReadonlyMap<string, Activity>;
  now: number;
  /** Members with a worktree: their roster rows link their diff. */
  worktrees?: ReadonlySet<string>;
}

/** A request's revision: changes whenever anything in it does (status, answer, body). */
export function revisionOf(r: ProtocolRequest): string {
  return createHash('sha256').update(JSON.stringify(r)).digest('base64url').slice(0, 16);
}

/** A member's activity: the screen's, else judged from the roster and the pending requests. */
export function activityOf(d: WebData, name: string): Activity {
  const known = d.activities?.get(name);
  if (known) return known;
  const m = d.snapshot.roster.find((x) => x.name === name);
  if (!m) return { kind: 'exited', label: 'unknown' };
  const pending = d.snapshot.requests.filter((r) => r.status === 'pending');
  return memberActivity({ name, runtime: m.runtime, status: m.status, exitCode: m.exitCode, pending, hooks: d.snapshot.claude?.[name]?.state });
}

/** "28.6k tok · $0.11", "" when nothing is recorded. */
export function spendOf(d: WebData, name: string): string {
  const a = d.snapshot.claude?.[name];
  if (!a) return '';
  const tok = a.tokens ? `${formatTokens(a.tokens.input + a.tokens.output)} tok` : '';
  const usd = a.costUsd !== null && a.costUsd !== undefined ? formatUsd(a.costUsd) : '';
  return [tok, usd, a.budget ? 'budget spent' : ''].filter(Boolean).join(' · ');
}

/** "alice's plan", "alice's Bash". */
export function requestTitle(r: ProtocolRequest): string {
  return r.type === 'permission' ? `${r.from}'s ${String(r.payload?.['tool'] ?? 'tool')}` : r.type === 'plan_approval' ? `${r.from}'s plan` : `shutdown: ${r.from} → ${r.to}`;
}

/** One event as a line of words (fields as recorded; the caller escapes). */
export function eventLine(e: TeamEvent): string {
  const f = (k: string): string => (e[k] === undefined || e[k] === null ? '' : String(e[k]));
  switch (e.type) {
    case 'message_sent': return `${f('from')} → ${f('to')} (${f('messageType')}): ${f('excerpt')}`;
    case 'task_claimed': case 'task_completed': case 'task_failed': case 'task_released': return `${e.type.slice(5)} task ${f('id') || f('task')}${f('owner') ? ` by ${f('owner')}` : ''}`;
    case 'request_opened': return `${f('from')} asks ${f('to')} (${f('requestType')}${f('tool') ? ` ${f('tool')}` : ''})`;
    default: {
      const rest = Object.entries(e).filter(([k]) => k !== 'time' && k !== 'type').map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
      return `${e.type.replace(/_/g, ' ')} ${rest.join(' ')}`.slice(0, 300);
    }
  }
}
