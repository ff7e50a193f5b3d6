// The pure task-board rules: readiness, cycles, claims, compare-and-set, completion.
import { describe, expect, it } from 'vitest';
import { applyUpdate, checkClaim, checkDependency, completed, idList, isReady, newlyReady, released, withBlocked, withBlocker, wouldCycle } from '../../src/protocol/tasks.js';
import type { Task } from '../../src/protocol/types.js';

const NOW = '2026-01-01T00:00:00.000Z';
function task(id: string, patch: Partial<Task> = {}): Task {
  return { version: 1, id, subject: `t${id}`, description: '', status: 'pending', owner: null, blocks: [], blockedBy: [], revision: 1, createdAt: NOW, updatedAt: NOW, claimedAt: null, completedAt: null, result: null, holder: null, attempts: [], blockedReason: null, reopenedAt: null, ...patch };
}
function index(...tasks: Task[]): Map<string, Task> {
  return new Map(tasks.map((t) => [t.id, t]));
}

describe('readiness', () => {
  it('ready.when-pending-unowned-and-blockers-completed', () => {
    const a = task('1', { status: 'completed', blocks: ['3'] });
    const b = task('2', { blocks: ['3'] });
    const c = task('3', { blockedBy: ['1', '2'] });
    expect(isReady(c, index(a, b, c))).toBe(false);
    const b2 = { ...b, status: 'completed' as const };
    expect(isReady(c, index(a, b2, c))).toBe(true);
  });
  it('ready.not-when-owned-or-in-progress-or-missing-blocker', () => {
    expect(isReady(task('1', { owner: 'x' }), index())).toBe(false);
    expect(isReady(task('1', { status: 'in_progress', owner: 'x' }), index())).toBe(false);
    expect(isReady(task('2', { blockedBy: ['9'] }), index())).toBe(false);
  });
});

describe('cycles', () => {
  it('cycle.rejects-self-direct-and-indirect', () => {
    // 2 is blocked by 1, 3 is blocked by 2.
    const idx = index(task('1', { blocks: ['2'] }), task('2', { blockedBy: ['1'], blocks: ['3'] }), task('3', { blockedBy: ['2'] }));
    expect(wouldCycle(idx, '1', '1')).toBe(true);
    expect(wouldCycle(idx, '1', '2')).toBe(true);
    expect(wouldCycle(idx, '1', '3')).toBe(true);
    expect(wouldCycle(idx, '3', '1')).toBe(false);
  });
});

describe('dependencies', () => {
  const idx = index(task('1', { blocks: ['2'] }), task('2', { blockedBy: ['1'] }), task('10'));
  it('dependency.missing-names-the-missing-side', () => {
    expect(checkDependency(idx, '9', '1')).toEqual({ step: 'missing', id: '9' });
    expect(checkDependency(idx, '1', '9')).toEqual({ step: 'missing', id: '9' });
  });
  it('dependency.existing-edge-is-accepted-unchanged-and-a-cycle-refused', () => {
    expect(checkDependency(idx, '2', '1')).toEqual({ step: 'settled', outcome: { ok: true, value: idx.get('2') } });
    const cycle = checkDependency(idx, '1', '2');
    expect(cycle.step === 'settled' && !cycle.outcome.ok && cycle.outcome.reason).toBe('cycle');
  });
  it('dependency.link-sorts-numerically-and-bumps-both-revisions', () => {
    const step = checkDependency(idx, '2', '10');
    expect(step.step).toBe('link');
    if (step.step !== 'link') return;
    const later = '2026-01-02T00:00:00.000Z';
    const down = withBlocker(step.task, '10', later);
    const up = withBlocked(step.blocker, '2', later);
    expect(down.blockedBy).toEqual(['1', '10']);
    expect(down.revision).toBe(2);
    expect(up.blocks).toEqual(['2']);
    expect(up.updatedAt).toBe(later);
  });
});

describe('claims', () => {
  it('claim.reasons', () => {
    const done = task('1', { status: 'completed' });
    const owned = task('2', { status: 'in_progress', owner: 'bob' });
    const blocked = task('3', { blockedBy: ['2'] });
    const idx = index(done, owned, blocked);
    expect(checkClaim(undefined, idx, '9')).toMatchObject({ ok: false, reason: 'not_found' });
    expect(checkClaim(done, idx, '1')).toMatchObject({ ok: false, reason: 'already_completed' });
    expect(checkClaim(owned, idx, '2')).toMatchObject({ ok: false, reason: 'already_claimed' });
    expect(checkClaim(blocked, idx, '3')).toMatchObject({ ok: false, reason: 'blocked', message: 'task 3 is blocked by 2' });
    expect(checkClaim(task('4'), idx, '4').ok).toBe(true);
  });

  it('a claim refused for thousands of open blockers names ten and counts the rest', () => {
    const blockers = Array.from({ length: 40_000 }, (_, i) => String(i + 10));
    const waiting = task('5', { blockedBy: blockers });
    const refused = checkClaim(waiting, index(waiting), '5');
    expect(refused).toMatchObject({ ok: false, reason: 'blocked', message: 'task 5 is blocked by 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 and 39,990 more' });
    expect(idList(['1', '2'])).toBe('1, 2');
  });
});

describe('compare-and-set', () => {
  it('cas.stale-revision-is-a-conflict', () => {
    const t = task('1', { revision: 3 });
    const r = applyUpdate(t, '1', 'a', 2, { description: 'x' }, index(t), NOW);
    expect(r).toMatchObject({ ok: false, reason: 'conflict' });
  });
  it('cas.current-revision-bumps-it', () => {
    const t = task('1', { revision: 3 });
    const r = applyUpdate(t, '1', 'a', 3, { description: 'x' }, index(t), NOW);
    expect(r.ok && r.value).toMatchObject({ revision: 4, description: 'x' });
  });
  it('cas.other-owner-refused', () => {
    const t = task('1', { status: 'in_progress', owner: 'bob' });
    expect(applyUpdate(t, '1', 'amy', 1, { description: 'x' }, index(t), NOW)).toMatchObject({ ok: false, reason: 'not_owner' });
  });
  it('cas.status-in-progress-claims', () => {
    const t = task('1');
    const r = applyUpdate(t, '1', 'amy', 1, { status: 'in_progress' }, index(t), NOW);
    expect(r.ok && r.value).toMatchObject({ owner: 'amy', status: 'in_progress', revision: 2 });
  });
});

describe('completion', () => {
  it('complete.requires-owner-and-unblocks-dependents', () => {
    const a = task('1', { status: 'in_progress', owner: 'amy', blocks: ['2', '3'] });
    const b = task('2', { blockedBy: ['1'] });
    const c = task('3', { blockedBy: ['1', '4'] });
    const d = task('4', { blocks: ['3'] });
    const idx = index(a, b, c, d);
    expect(completed(a, '1', 'bob', null, idx, NOW)).toMatchObject({ ok: false, reason: 'not_owner' });
    const r = completed(a, '1', 'amy', 'done', idx, NOW);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    idx.set('1', r.value);
    expect(r.value).toMatchObject({ status: 'completed', result: 'done', revision: 2 });
    expect(newlyReady(r.value, idx)).toEqual(['2']);
    expect(completed(r.value, '1', 'amy', null, idx, NOW)).toMatchObject({ ok: false, reason: 'already_completed' });
  });
  it('release.returns-to-pending', () => {
    const a = task('1', { status: 'in_progress', owner: 'amy' });
    expect(released(a, '1', 'bob', NOW)).toMatchObject({ ok: false, reason: 'not_owner' });
    const r = released(a, '1', null, NOW);
    expect(r.ok && r.value).toMatchObject({ status: 'pending', owner: null, revision: 2 });
  });
});
