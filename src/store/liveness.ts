/**
 * Is a member's process still there? A pid alone can be reused by the kernel, so the member record
 * keeps the process start time from /proc and a heartbeat file; a member whose process is gone is
 * reported as exited, never as idle.
 */
import { readFileSync } from 'node:fs';
import type { Member, MemberStatus, ProcessRef } from '../protocol/types.js';

/** Heartbeats older than this, with no pid to check, mean the member is gone. */
export const HEARTBEAT_STALE_MS = 30_000;

/** The fields after `(comm)` in /proc/<pid>/stat (state first), or null when unavailable. */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: split after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The kernel start time of a process (clock ticks since boot), or null when unavailable. */
export function processStartTime(pid: number): number | null {
  const start = Number(procStat(pid)?.[19]);
  return Number.isFinite(start) ? start : null;
}

/** True if a process with this pid exists (and, when known, started at pidStart); a zombie is gone. */
export function pidAlive(pid: number, pidStart: number | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(pid);
  if (stat?.[0] === 'Z') return false;
  if (pidStart === null || stat === null) return true;
  return Number(stat[19]) === pidStart;
}

/** The parent pid of a process, or null when unavailable. */
export function parentPid(pid: number): number | null {
  const ppid = Number(procStat(pid)?.[1]);
  return Number.isInteger(ppid) && ppid > 0 ? ppid : null;
}

/** A process as a claim records it: its pid and start time. */
export function processRef(pid: number): ProcessRef {
  return { pid, start: processStartTime(pid) };
}

/**
 * The process that holds a claim made by a short-lived CLI call acting as `member`: the member's own
 * process (team.json's pid and pidStart) when it is among the caller's ancestors, else the caller's
 * parent (the shell or script that ran the CLI). A long-lived process (an agent, a worker using the
 * store directly) holds its claims itself.
 */
export function cliClaimHolder(member: Pick<Member, 'pid' | 'pidStart'>, self = process.pid): ProcessRef {
  const parent = parentPid(self);
  for (let pid = parent, hops = 0; pid !== null && pid > 1 && hops < 64; pid = parentPid(pid), hops++) {
    if (pid === member.pid && (member.pidStart === null || processStartTime(pid) === member.pidStart)) return processRef(pid);
  }
  return processRef(parent ?? self);
}

/**
 * Inside a member's sandbox (TEAMUX_SANDBOX=1) the process has a pid namespace of its own, so no pid
 * it sees means anything outside: the member's pid as the screen recorded it (the sandbox's own, alive
 * exactly as long as the member) stands for every process inside.
 */
export function inSandbox(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TEAMUX_SANDBOX === '1';
}

/** Who holds a claim made by this process for `member` (see cliClaimHolder and inSandbox). */
export function claimHolder(member: Pick<Member, 'pid' | 'pidStart'>, shortLived: boolean): ProcessRef {
  if (inSandbox() && member.pid !== null) return { pid: member.pid, start: member.pidStart };
  return shortLived ? cliClaimHolder(member) : processRef(process.pid);
}

/** The status to report for a member, given its record and its last heartbeat time (ms). */
export function effectiveStatus(member: Member, heartbeatAt: number | null, now: number): MemberStatus {
  if (member.status === 'exited') return 'exited';
  if (member.pid !== null) return pidAlive(member.pid, member.pidStart) ? member.status : 'exited';
  if (heartbeatAt !== null && now - heartbeatAt > HEARTBEAT_STALE_MS) return 'exited';
  if (heartbeatAt === null) return 'exited';
  return member.status;
}
