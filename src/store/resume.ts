/**
 * A run taken up again by `teamux start` (the choice itself is src/protocol/resume.ts): what the team
 * folder says about its earlier run, and resuming it — the run id kept (so pending plan requests of
 * that run stay pending and a restarted member's gate reads the same run), requests of older runs
 * expired, and permission requests whose asker died with the earlier screen withdrawn, each with a
 * visible reason: nobody is waiting on them any more. Stale claims are released by the caller
 * (`releaseStale`, cold recovery), as on every start.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { earlierRun, type EarlierRun } from '../protocol/resume.js';
import { currentPlan } from '../protocol/requests.js';
import type { ProtocolRequest, TaskStatus } from '../protocol/types.js';
import { listFolder } from './fsx.js';
import { TeamStore } from './team.js';

/** What the folder at `teamDir` holds of an earlier run (none when there is no readable team.json). */
export async function readEarlierRun(teamDir: string): Promise<EarlierRun> {
  if (!existsSync(path.join(teamDir, 'team.json'))) return { kind: 'none' };
  const opened = await TeamStore.open(teamDir, 'mux');
  if (!opened.ok) return { kind: 'none' };
  try {
    const read = await opened.store.readConfig();
    if (!read.ok) return { kind: 'none' };
    return earlierRun(read.config, await openTaskOrAll(opened.store));
  } finally {
    await opened.store.backend.close();
  }
}

/**
 * The board as far as the choice needs it: task files are read in batches until one is open (an
 * unfinished run is told by its first open task, not by reading 10,000 of them); all when none is.
 */
async function openTaskOrAll(store: TeamStore): Promise<Array<{ status: TaskStatus }>> {
  const ids = (await listFolder(store.paths.tasks)).filter((n) => /^[1-9][0-9]*\.json$/.test(n)).map((n) => n.slice(0, -5));
  const seen: Array<{ status: TaskStatus }> = [];
  for (let i = 0; i < ids.length; i += 64) {
    const read = await Promise.all(ids.slice(i, i + 64).map((id) => store.tasks.readTask(id)));
    for (const r of read) if (r.task) seen.push(r.task);
    if (seen.some((t) => t.status !== 'completed' && t.status !== 'deleted')) return seen;
  }
  return seen;
}

/** What resuming did. */
export interface Resumed {
  run: string;
  /** Requests of runs before this one, closed as expired (as every fresh run does). */
  expired: ProtocolRequest[];
  /** Permission requests whose asker's process is gone, withdrawn. */
  withdrawn: ProtocolRequest[];
  /** Plans approved under the earlier screen's key, asked again (the new requests). */
  askedAgain: ProtocolRequest[];
}

/** Take up the run team.json names (a new one when it names none). */
export async function resumeRun(store: TeamStore): Promise<Resumed> {
  const cfg = await store.config();
  if (cfg.run === null) return { ...(await store.startRun()), withdrawn: [], askedAgain: [] };
  const run = cfg.run;
  const expired = await store.requests.expireEarlierRuns(run);
  for (const q of expired) await store.events.record('request_expired', { request_id: q.id, requestType: q.type, from: q.from, to: q.to, reason: q.expiredReason });
  const withdrawn = await withdrawOrphanPermissions(store);
  return { run, expired, withdrawn, askedAgain: await askApprovedPlansAgain(store, run) };
}

/**
 * A plan approved in this run was signed by the earlier screen's key, which died with it; a member
 * restarted by this screen trusts only this screen's key, so that approval no longer counts for it
 * (`unverified`) and it would wait for an answer nobody is asked for. The same plan is asked again, as
 * the member's newest plan of the run: its approver answers it as any plan (docs/resume.md). Only
 * members that are not running (a running one keeps the key it started with).
 */
async function askApprovedPlansAgain(store: TeamStore, run: string): Promise<ProtocolRequest[]> {
  const roster = await store.roster();
  const { requests } = await store.requests.list();
  const out: ProtocolRequest[] = [];
  for (const m of roster) {
    if (!m.planRequired || m.reportedStatus !== 'exited') continue;
    const plan = currentPlan(requests, m.name, run);
    if (plan?.status !== 'approved') continue;
    const again = await store.openRequest('plan_approval', m.name, plan.to, plan.body);
    if (again.ok) out.push(again.value);
    else store.log.warn(`could not ask ${m.name}'s approved plan (${plan.id}) again: ${again.message}`);
  }
  return out;
}

/**
 * Withdraw every pending permission request whose asker is not running: its hook process died with
 * it, so no answer can reach the call; Claude Code asks again when the call is made again.
 */
export async function withdrawOrphanPermissions(store: TeamStore): Promise<ProtocolRequest[]> {
  const gone = new Set((await store.roster()).filter((m) => m.reportedStatus === 'exited').map((m) => m.name));
  const out: ProtocolRequest[] = [];
  for (const q of (await store.requests.list()).requests) {
    if (q.type !== 'permission' || q.status !== 'pending' || !gone.has(q.from)) continue;
    const r = await store.withdrawRequest(q.id, q.from, `withdrawn by teamux: ${q.from}'s process that asked is gone (the team was resumed); the call was not made, and Claude Code asks again if it makes it again`);
    if (r.ok) out.push(r.value);
  }
  return out;
}

/** How many messages wait unread in members' inboxes (each member's own cursor). */
export async function unreadMessages(store: TeamStore): Promise<number> {
  const cfg = await store.config();
  const counts = await Promise.all(cfg.members.map(async (m) => (await store.mail.unread(m.name, m.name)).messages.length));
  return counts.reduce((a, b) => a + b, 0);
}
