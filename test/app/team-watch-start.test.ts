// When the screen starts its team folder watch. Its first load reads the folder on the screen's thread:
// with the sidebar shown it starts at once, beside the panes, so the first frame may show the board;
// with the sidebar hidden nothing on the first frame needs it, so it starts once the panes have
// printed, and their first output is not read behind it. Either way the screen is up with the team
// loaded.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TeamView } from '../../src/app/team-view.js';
import { launches, startMux, type MuxHarness } from '../helpers/mux.js';
import { makeTeam, waitFor } from '../helpers/team.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  vi.restoreAllMocks();
});

async function start(hidden: boolean): Promise<{ h: MuxHarness; started: () => number }> {
  const t = await makeTeam(['alice']);
  cleanups.push(t.cleanup);
  const spy = vi.spyOn(TeamView.prototype, 'start');
  const sidebar = { position: 'right' as const, width: { cells: 40 }, minWidth: 24, maxWidth: 48, hideBelow: 0, hidden, sections: ['task_board' as const] };
  const h = await startMux(t.store, { members: await launches(t.store), sidebar });
  cleanups.push(() => h.stop());
  return { h, started: () => spy.mock.calls.length };
}

describe('the team folder watch at start-up', () => {
  it('team-watch-start.with-the-sidebar-shown-it-starts-with-the-panes', async () => {
    const { h, started } = await start(false);
    // no turn of the event loop has passed since the screen started
    expect(started()).toBe(1);
    await h.up;
    expect(h.mux.snapshot.roster.map((m) => m.name).sort()).toEqual(['alice', 'lead']);
  });

  it('team-watch-start.with-the-sidebar-hidden-it-starts-once-the-panes-have-printed', async () => {
    const { h, started } = await start(true);
    expect(started(), 'not before the panes print').toBe(0);
    await waitFor(() => h.host.procs.size === 2, 'both panes to start');
    for (const p of h.host.procs.values()) p.emit('hello\r\n');
    await waitFor(() => started() === 1, 'the watch to start');
    await h.up;
    expect(started()).toBe(1);
    expect(h.mux.snapshot.roster.map((m) => m.name).sort()).toEqual(['alice', 'lead']);
  });
});
