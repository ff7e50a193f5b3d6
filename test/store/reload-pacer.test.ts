// The team views' pacing: a burst of changes is read in one reload, reloads never overlap, a change
// heard during a reload is read after it, and stop() waits for the reload in flight.
import { describe, expect, it } from 'vitest';
import { COALESCE_MS, ReloadPacer } from '../../src/store/reload-pacer.js';
import { waitFor } from '../helpers/team.js';

function pacedView(readMs: number) {
  const log = { reloads: 0, told: 0, overlapping: 0, active: 0, failures: [] as unknown[] };
  const pacer = new ReloadPacer({
    reload: async () => {
      log.active++;
      if (log.active > 1) log.overlapping++;
      log.reloads++;
      await new Promise((r) => setTimeout(r, readMs));
      log.active--;
    },
    reloaded: () => log.told++,
    failed: (err) => log.failures.push(err),
  });
  return { pacer, log };
}

describe('reload pacer', () => {
  it('pacer.a-burst-is-one-reload-and-reloads-never-overlap', async () => {
    const { pacer, log } = pacedView(40);
    await pacer.first();
    for (let i = 0; i < 50; i++) pacer.schedule();
    await waitFor(() => log.told === 1, 'the burst read');
    // Changes heard while that reload reads: one more reload, after it, never beside it.
    pacer.schedule();
    await new Promise((r) => setTimeout(r, COALESCE_MS + 5));
    pacer.schedule();
    pacer.schedule();
    await waitFor(() => log.told >= 2 && log.active === 0, 'the later changes read');
    expect(log.overlapping).toBe(0);
    expect(log.reloads).toBeLessThanOrEqual(4);
    expect(log.failures).toEqual([]);
    await pacer.stop();
  });

  it('pacer.stop-waits-for-the-reload-in-flight-and-schedules-nothing-after', async () => {
    const { pacer, log } = pacedView(100);
    await pacer.first();
    pacer.schedule();
    await waitFor(() => log.active === 1, 'a reload in flight');
    await pacer.stop();
    expect(log.active).toBe(0);
    const told = log.told;
    pacer.schedule();
    await new Promise((r) => setTimeout(r, COALESCE_MS * 4));
    expect(log.reloads).toBe(2);
    expect(log.told).toBe(told);
  });

  it('pacer.a-failed-reload-is-reported-and-the-next-change-still-reads', async () => {
    let fail = true;
    const failures: unknown[] = [];
    let reads = 0;
    const pacer = new ReloadPacer({
      reload: async () => {
        reads++;
        if (fail) throw new Error('disk went away');
      },
      reloaded: () => {},
      failed: (err) => failures.push(err),
    });
    pacer.schedule();
    await waitFor(() => failures.length === 1, 'the failure reported');
    fail = false;
    pacer.schedule();
    await waitFor(() => reads === 2, 'the next change read');
    expect((failures[0] as Error).message).toBe('disk went away');
    await pacer.stop();
  });
});
