// The incremental board: every change keeps counts, lists and readiness equal to a full recount.
import { describe, expect, it } from 'vitest';
import { BoardModel, boardState, type BoardTask } from '../../src/store/board-model.js';

function task(id: number, status = 'pending', blockedBy: number[] = [], owner: string | null = null): BoardTask {
  return { id: String(id), status, owner, blockedBy: blockedBy.map(String) };
}

/** The board recomputed from scratch: what the incremental one must always equal. */
function recount(tasks: Map<string, BoardTask>) {
  const out: Record<string, string[]> = { in_progress: [], ready: [], waiting: [], completed: [] };
  const ids = [...tasks.keys()].map(Number).sort((a, b) => a - b);
  for (const n of ids) out[boardState(tasks.get(String(n))!, (b) => tasks.get(b)?.status === 'completed')]!.push(String(n));
  return out;
}

describe('board model', () => {
  it('board.completing-a-blocker-makes-its-dependents-ready', () => {
    const m = new BoardModel();
    m.set(task(1));
    m.set(task(2, 'pending', [1]));
    m.set(task(3, 'pending', [1, 2]));
    expect(m.ids('ready')).toEqual(['1']);
    expect(m.ids('waiting')).toEqual(['2', '3']);
    m.set(task(1, 'completed'));
    expect(m.ids('ready')).toEqual(['2']);
    m.set(task(2, 'in_progress', [1], 'a'));
    m.set(task(2, 'completed', [1], 'a'));
    expect(m.ids('ready')).toEqual(['3']);
    expect(m.rows(2).map((t) => [t.id, t.ready])).toEqual([['3', true], ['1', false]]);
    // A deleted blocker counts as open again.
    m.delete('2');
    expect(m.stateOf('3')).toBe('waiting');
    expect(m.counts()).toEqual({ in_progress: 0, ready: 0, waiting: 1, completed: 1 });
  });

  it('board.random-changes-match-a-full-recount', () => {
    let seed = 7;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    const m = new BoardModel();
    const truth = new Map<string, BoardTask>();
    for (let step = 0; step < 3000; step++) {
      const id = 1 + rnd(60);
      if (rnd(10) === 0) {
        m.delete(String(id));
        truth.delete(String(id));
      } else {
        const deps = Array.from({ length: rnd(3) }, () => 1 + rnd(60)).filter((d) => d !== id);
        const t = task(id, ['pending', 'in_progress', 'completed'][rnd(3)], [...new Set(deps)], rnd(4) === 0 ? 'x' : null);
        m.set(t);
        truth.set(t.id, t);
      }
      if (step % 100 === 0 || step === 2999) {
        const want = recount(truth);
        for (const s of ['in_progress', 'ready', 'waiting', 'completed'] as const) expect(m.ids(s), `${s} at step ${step}`).toEqual(want[s]);
        expect(m.all().map((t) => t.id)).toEqual([...want.in_progress!, ...want.ready!, ...want.waiting!, ...want.completed!].map(Number).sort((a, b) => a - b).map(String));
      }
    }
    // reset() from the same tasks gives the same board.
    const fresh = new BoardModel();
    fresh.reset(truth.values());
    expect(fresh.rows(1000)).toEqual(m.rows(1000));
  });
});
