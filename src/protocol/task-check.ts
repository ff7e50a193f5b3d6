/**
 * A task file and team.json checked by hand: the same acceptance and the same output (defaults filled
 * in, unknown keys dropped, keys in the schema's order) as the zod `Task` and `TeamConfig` schemas of
 * protocol/types.ts, without loading zod, for the short path of `teamux task claim`. Where the answer
 * would need a schema this file does not copy (a task's `pipeline` fields, a budget that is not plain)
 * or a message to show, it returns null and the caller takes the full path, which reports with zod's
 * words. test/protocol/task-check.test.ts holds a table of inputs on which both must agree.
 */
import { NAME_PATTERN } from './message-line.js';
import type { Member, TeamConfig, Task } from './types.js';

/** Task ids, as types.ts's TaskId. */
const TASK_ID = /^[1-9][0-9]{0,8}$/;
const TASK_STATUSES: ReadonlySet<string> = new Set(['pending', 'in_progress', 'completed', 'blocked', 'deleted']);
const ATTEMPT_OUTCOMES: ReadonlySet<string> = new Set(['completed', 'released', 'failed', 'abandoned', 'reassigned']);
const MEMBER_STATUSES: ReadonlySet<string> = new Set(['working', 'idle', 'stopping', 'exited']);
const RUNTIMES: ReadonlySet<string> = new Set(['command', 'agent', 'claude']);

/** Why a value is not what the schema takes (caught inside this file only). */
class Mismatch {}

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Mismatch();
  return v as Obj;
}

function str(v: unknown): string {
  if (typeof v !== 'string') throw new Mismatch();
  return v;
}

function matching(v: unknown, pattern: RegExp): string {
  if (!pattern.test(str(v))) throw new Mismatch();
  return v as string;
}

/** z.number() (finite), with zod's .int() (a safe integer) and .positive() when asked. */
function num(v: unknown, opts: { int?: boolean; positive?: boolean } = {}): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Mismatch();
  if (opts.int && !Number.isSafeInteger(v)) throw new Mismatch();
  if (opts.positive && !(v > 0)) throw new Mismatch();
  return v;
}

function bool(v: unknown): boolean {
  if (typeof v !== 'boolean') throw new Mismatch();
  return v;
}

function oneOf(v: unknown, set: ReadonlySet<string>): string {
  if (!set.has(str(v))) throw new Mismatch();
  return v as string;
}

/** `.nullable()`: null, or what `check` takes; `.nullable().default(null)` when `missing` is given. */
function nullable<T>(v: unknown, check: (v: unknown) => T, missing?: null): T | null {
  if (v === null) return null;
  if (v === undefined && missing === null) return null;
  return check(v);
}

function array<T>(v: unknown, check: (v: unknown) => T): T[] {
  if (!Array.isArray(v)) throw new Mismatch();
  return v.map(check);
}

/** Run a check; null when the value does not fit. */
function attempt<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch (err) {
    if (err instanceof Mismatch) return null;
    throw err;
  }
}

/**
 * `value` as the zod Task schema would return it, or null when it does not parse or carries pipeline
 * fields (whose schema is not copied here: the full path reads those).
 */
export function checkTask(value: unknown): Task | null {
  return attempt(() => {
    const v = obj(value);
    if (v.pipeline !== undefined) throw new Mismatch();
    if (v.version !== 1 && v.version !== 2) throw new Mismatch();
    const subject = str(v.subject);
    if (subject.length < 1) throw new Mismatch();
    return {
      version: v.version,
      id: matching(v.id, TASK_ID),
      subject,
      description: v.description === undefined ? '' : str(v.description),
      status: oneOf(v.status, TASK_STATUSES) as Task['status'],
      owner: nullable(v.owner, (o) => matching(o, NAME_PATTERN)),
      blocks: array(v.blocks, (b) => matching(b, TASK_ID)),
      blockedBy: array(v.blockedBy, (b) => matching(b, TASK_ID)),
      revision: num(v.revision, { int: true, positive: true }),
      createdAt: str(v.createdAt),
      updatedAt: str(v.updatedAt),
      claimedAt: nullable(v.claimedAt, str, null),
      completedAt: nullable(v.completedAt, str, null),
      result: nullable(v.result, str, null),
      holder: nullable(v.holder, (h) => {
        const o = obj(h);
        return { pid: num(o.pid, { int: true, positive: true }), start: nullable(o.start, (s) => num(s)) };
      }, null),
      attempts: v.attempts === undefined ? [] : array(v.attempts, (a) => {
        const o = obj(a);
        return {
          owner: matching(o.owner, NAME_PATTERN),
          startedAt: str(o.startedAt),
          endedAt: nullable(o.endedAt, str, null),
          outcome: nullable(o.outcome, (x) => oneOf(x, ATTEMPT_OUTCOMES), null) as Task['attempts'][number]['outcome'],
          note: nullable(o.note, str, null),
        };
      }),
      blockedReason: nullable(v.blockedReason, str, null),
      reopenedAt: nullable(v.reopenedAt, str, null),
    };
  });
}

/** A budget (protocol/budget.ts's Budget) as zod returns it. */
function budget(value: unknown): { tokens: number | null; usd: number | null; windowS: number } {
  const o = obj(value);
  return {
    tokens: nullable(o.tokens, (t) => num(t, { int: true, positive: true }), null),
    usd: nullable(o.usd, (u) => num(u, { positive: true }), null),
    windowS: num(o.windowS, { int: true, positive: true }),
  };
}

/** `.nullable().optional()`: the key is left out when absent. */
function optionalInto(out: Obj, key: string, v: unknown, check: (v: unknown) => unknown): void {
  if (v !== undefined) out[key] = check(v);
}

function member(value: unknown): Member {
  const v = obj(value);
  const m: Obj = {
    name: matching(v.name, NAME_PATTERN),
    role: str(v.role),
    kind: oneOf(v.kind, new Set(['lead', 'teammate'])),
    status: oneOf(v.status, MEMBER_STATUSES),
    pid: nullable(v.pid, (p) => num(p, { int: true, positive: true })),
    pidStart: nullable(v.pidStart, (p) => num(p), null),
    joinedAt: nullable(v.joinedAt, str),
    exitCode: nullable(v.exitCode, (c) => num(c, { int: true }), null),
    planRequired: v.planRequired === undefined ? false : bool(v.planRequired),
    planApprover: nullable(v.planApprover, str, null),
    tools: nullable(v.tools, (t) => array(t, str), null),
    runtime: v.runtime === undefined ? 'command' : oneOf(v.runtime, RUNTIMES),
  };
  optionalInto(m, 'speaksProtocol', v.speaksProtocol, bool);
  optionalInto(m, 'claudeTeam', v.claudeTeam, str);
  optionalInto(m, 'budget', v.budget, (b) => nullable(b, budget));
  return m as unknown as Member;
}

/** `value` as the zod TeamConfig schema would return it (version 1), or null when it does not parse. */
export function checkTeamConfig(value: unknown): TeamConfig | null {
  return attempt(() => {
    const v = obj(value);
    if (v.version !== 1) throw new Mismatch();
    const c: Obj = {
      version: 1,
      name: matching(v.name, NAME_PATTERN),
      root: str(v.root),
      createdAt: str(v.createdAt),
      layoutFile: nullable(v.layoutFile, str, null),
      run: nullable(v.run, str, null),
    };
    optionalInto(c, 'budget', v.budget, (b) => nullable(b, budget));
    c.members = array(v.members, member);
    return c as unknown as TeamConfig;
  });
}
