// The task state machine, pure: every transition from every status (legal ones succeed, illegal ones
// are refused naming both states), attempts recorded per claim, failure counting into `blocked`,
// reopen, atomic reassign, delete, and compare-and-set updates limited to the machine's moves.
import { describe, expect, it } from 'vitest';
import { legalFrom, TRANSITION_NAMES, TRANSITIONS, type Transition } from '../../src/protocol/task-machine.js';
import { applyUpdate, checkClaim, claimed, completed, deletedTask, editedTask, failedBy, reassignedTask, released, reopenedTask } from '../../src/protocol/tasks.js';
import { Task, TaskStatus, type Outcome } from '../../src/protocol/types.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:01:00.000Z';
const T2 = '2026-01-01T00:02:00.000Z';
const STATUSES = TaskStatus.options;

function task(status: TaskStatus, patch: Partial<Task> = {}): Task {
  const owned = status === 'in_progress' || status === 'completed';
  return {
    version: 2, id: '7', subject: 'the parser', description: '', status, owner: owned ? 'amy' : null, blocks: [], blockedBy: [], revision: 5,
    createdAt: T0, updatedAt: T0, claimedAt: status === 'in_progress' ? T0 : null, completedAt: status === 'completed' ? T0 : null, result: null, holder: null,
    attempts: owned ? [{ owner: 'amy', startedAt: T0, endedAt: status === 'completed' ? T0 : null, outcome: status === 'completed' ? 'completed' : null, note: null }] : [],
    blockedReason: status === 'blocked' ? 'stuck' : null, reopenedAt: null, ...patch,
  };
}

/** Each transition as the store applies it, acting as the task's owner where one is needed. */
const APPLY: Record<Transition, (t: Task) => Outcome<Task>> = {
  claim: (t) => {
    const c = checkClaim(t, new Map(), '7');
    return c.ok ? { ok: true, value: claimed(c.value, 'bob', T1) } : c;
  },
  complete: (t) => completed(t, '7', t.owner ?? 'amy', 'done', new Map(), T1),
  release: (t) => released(t, '7', t.owner ?? 'amy', T1),
  fail: (t) => failedBy(t, '7', t.owner ?? 'amy', 'tests fail', T1),
  reopen: (t) => reopenedTask(t, '7', T1),
  reassign: (t) => reassignedTask(t, '7', 'bob', null, T1),
  edit: (t) => editedTask(t, '7', t.revision, { description: 'v2' }, T1),
  delete: (t) => deletedTask(t, '7', T1),
};

describe('task machine: every transition from every status', () => {
  for (const name of TRANSITION_NAMES) {
    for (const status of STATUSES) {
      const legal = legalFrom(name).includes(status);
      it(`machine.${name}-from-${status}-${legal ? 'is-legal' : 'is-refused'}`, () => {
        const r = APPLY[name](task(status));
        if (legal) {
          expect(r.ok, JSON.stringify(r)).toBe(true);
          const to = TRANSITIONS[name].to;
          if (r.ok && to !== null && name !== 'fail') expect(r.value.status).toBe(to);
          return;
        }
        expect(r.ok).toBe(false);
        if (r.ok) return;
        // Two reasons scripts already rely on are kept for the moves they always described.
        const legacy = name === 'claim' && status === 'in_progress' ? 'already_claimed'
          : ['claim', 'complete', 'release'].includes(name) && status === 'completed' ? 'already_completed' : 'illegal_transition';
        expect(r.reason).toBe(legacy);
        if (legacy === 'illegal_transition') {
          expect(r.message).toContain(`cannot ${name} task 7: it is ${status}`);
          expect(r.message).toContain(`from ${legalFrom(name).join(' or ')}`);
        }
      });
    }
  }

  it('machine.deleted-is-final', () => {
    for (const name of TRANSITION_NAMES) {
      const r = APPLY[name](task('deleted'));
      expect(r, name).toMatchObject({ ok: false, reason: 'illegal_transition', message: expect.stringContaining('a deleted task is final') });
    }
  });
});

describe('attempts', () => {
  it('attempts.each-claim-starts-one-and-each-ending-closes-it-with-its-outcome', () => {
    const c = checkClaim(task('pending'), new Map(), '7');
    expect(c.ok).toBe(true);
    let r = applyUpdate(task('pending'), '7', 'amy', 5, { status: 'in_progress' }, new Map(), T1);
    expect(r.ok && r.value.attempts).toEqual([{ owner: 'amy', startedAt: T1, endedAt: null, outcome: null, note: null }]);
    r = released(r.ok ? r.value : undefined, '7', 'amy', T2, 'going home');
    expect(r.ok && r.value).toMatchObject({ status: 'pending', owner: null, attempts: [{ owner: 'amy', endedAt: T2, outcome: 'released', note: 'going home' }] });
    const done = completed(task('in_progress'), '7', 'amy', 'merged', new Map(), T1);
    expect(done.ok && done.value.attempts).toEqual([{ owner: 'amy', startedAt: T0, endedAt: T1, outcome: 'completed', note: 'merged' }]);
  });

  it('attempts.a-stale-release-abandons-the-dead-owners-attempt', () => {
    const r = released(task('in_progress'), '7', null, T1, 'the process that claimed it (pid 4) is gone');
    expect(r.ok && r.value).toMatchObject({ status: 'pending', owner: null, holder: null, revision: 6 });
    expect(r.ok && r.value.attempts[0]).toMatchObject({ outcome: 'abandoned', endedAt: T1, note: expect.stringContaining('is gone') });
    expect(r.ok && checkClaim(r.value, new Map(), '7').ok).toBe(true);
  });

  it('attempts.a-version-1-claim-without-attempts-gets-one-made-up-when-it-ends', () => {
    const old = task('in_progress', { version: 1, attempts: [], claimedAt: T0 });
    const r = completed(old, '7', 'amy', 'ok', new Map(), T1);
    expect(r.ok && r.value).toMatchObject({ version: 2, attempts: [{ owner: 'amy', startedAt: T0, endedAt: T1, outcome: 'completed', note: 'ok' }] });
    // A version 1 file still parses, with no attempts.
    const parsed = Task.parse({ version: 1, id: '3', subject: 's', status: 'pending', owner: null, blocks: [], blockedBy: [], revision: 1, createdAt: T0, updatedAt: T0 });
    expect(parsed).toMatchObject({ attempts: [], blockedReason: null, reopenedAt: null });
  });

  it('attempts.third-failure-blocks-the-task-and-reopen-starts-the-count-again', () => {
    let t = task('pending');
    for (let i = 1; i <= 3; i++) {
      const c = applyUpdate(t, '7', 'amy', t.revision, { status: 'in_progress' }, new Map(), `2026-01-01T00:0${i}:00.000Z`);
      if (!c.ok) throw new Error(c.message);
      const f = failedBy(c.value, '7', 'amy', `try ${i} failed`, `2026-01-01T00:0${i}:30.000Z`);
      if (!f.ok) throw new Error(f.message);
      t = f.value;
      expect(t.status).toBe(i < 3 ? 'pending' : 'blocked');
    }
    expect(t.blockedReason).toBe('3 attempts failed; the last: try 3 failed');
    expect(checkClaim(t, new Map(), '7')).toMatchObject({ ok: false, reason: 'illegal_transition' });
    const re = reopenedTask(t, '7', '2026-01-01T00:05:00.000Z');
    expect(re.ok && re.value).toMatchObject({ status: 'pending', blockedReason: null, reopenedAt: '2026-01-01T00:05:00.000Z' });
    if (!re.ok) return;
    const c = applyUpdate(re.value, '7', 'bob', re.value.revision, { status: 'in_progress' }, new Map(), '2026-01-01T00:06:00.000Z');
    const f = c.ok ? failedBy(c.value, '7', 'bob', 'again', '2026-01-01T00:07:00.000Z') : c;
    expect(f.ok && f.value.status).toBe('pending');
    expect(f.ok && f.value.attempts.map((a) => a.outcome)).toEqual(['failed', 'failed', 'failed', 'failed']);
  });

  it('attempts.fail-needs-the-owner-and-a-reason', () => {
    expect(failedBy(task('in_progress'), '7', 'bob', 'x', T1)).toMatchObject({ ok: false, reason: 'not_owner' });
    expect(failedBy(task('in_progress'), '7', 'amy', '  ', T1)).toMatchObject({ ok: false, reason: 'invalid_input' });
    expect(failedBy(task('in_progress'), '7', null, 'verifier said REVISE', T1).ok).toBe(true);
  });
});

describe('reassign, reopen, delete, edit', () => {
  it('reassign.hands-over-in-one-step-ending-one-attempt-and-starting-the-next', () => {
    const r = reassignedTask(task('in_progress'), '7', 'bob', { pid: 42, start: 7 }, T1, 'amy is stuck');
    expect(r.ok && r.value).toMatchObject({ status: 'in_progress', owner: 'bob', holder: { pid: 42, start: 7 }, claimedAt: T1, revision: 6 });
    expect(r.ok && r.value.attempts).toEqual([
      { owner: 'amy', startedAt: T0, endedAt: T1, outcome: 'reassigned', note: 'amy is stuck' },
      { owner: 'bob', startedAt: T1, endedAt: null, outcome: null, note: null },
    ]);
    expect(reassignedTask(task('in_progress'), '7', 'amy', null, T1)).toMatchObject({ ok: false, reason: 'invalid_input' });
  });

  it('reopen.clears-the-result-and-keeps-it-in-the-attempts', () => {
    const done = completed(task('in_progress'), '7', 'amy', 'merged', new Map(), T1);
    const r = done.ok ? reopenedTask(done.value, '7', T2) : done;
    expect(r.ok && r.value).toMatchObject({ status: 'pending', owner: null, result: null, completedAt: null });
    expect(r.ok && r.value.attempts[0]).toMatchObject({ outcome: 'completed', note: 'merged' });
  });

  it('delete.leaves-a-tombstone-without-edges', () => {
    const r = deletedTask(task('pending', { blocks: ['8'], blockedBy: ['2'] }), '7', T1);
    expect(r.ok && r.value).toMatchObject({ status: 'deleted', blocks: [], blockedBy: [], revision: 6 });
  });

  it('edit.is-compare-and-set', () => {
    expect(editedTask(task('in_progress'), '7', 4, { subject: 'x' }, T1)).toMatchObject({ ok: false, reason: 'conflict' });
    expect(editedTask(task('in_progress'), '7', 5, { subject: 'x' }, T1)).toMatchObject({ ok: true, value: { subject: 'x', owner: 'amy', revision: 6 } });
  });
});

describe('compare-and-set updates make only the machine’s moves', () => {
  it('update.refuses-jumps-with-the-states-named', () => {
    expect(applyUpdate(task('pending'), '7', 'amy', 5, { status: 'completed' }, new Map(), T1))
      .toMatchObject({ ok: false, reason: 'illegal_transition', message: 'cannot move task 7 from pending to completed with an update (claim it first, then complete it)' });
    expect(applyUpdate(task('in_progress'), '7', 'amy', 5, { status: 'blocked' }, new Map(), T1)).toMatchObject({ ok: false, reason: 'illegal_transition', message: expect.stringContaining('use fail') });
    expect(applyUpdate(task('pending'), '7', 'amy', 5, { status: 'deleted' }, new Map(), T1)).toMatchObject({ ok: false, reason: 'illegal_transition', message: expect.stringContaining('use delete') });
    expect(applyUpdate(task('blocked'), '7', 'amy', 5, { status: 'pending' }, new Map(), T1)).toMatchObject({ ok: false, reason: 'illegal_transition', message: expect.stringContaining('use reopen') });
    expect(applyUpdate(task('completed'), '7', 'amy', 5, { status: 'pending' }, new Map(), T1)).toMatchObject({ ok: false, reason: 'already_completed', message: expect.stringContaining('reopen it first') });
    expect(applyUpdate(task('completed'), '7', 'amy', 5, { description: 'rewrite' }, new Map(), T1)).toMatchObject({ ok: false, reason: 'illegal_transition' });
  });

  it('update.to-completed-keeps-the-result-and-closes-the-attempt', () => {
    const r = applyUpdate(task('in_progress', { result: 'draft' }), '7', 'amy', 5, { status: 'completed' }, new Map(), T1);
    expect(r.ok && r.value).toMatchObject({ status: 'completed', result: 'draft', attempts: [{ outcome: 'completed', note: 'draft' }], revision: 6 });
  });
});
