// Panes opened, titled and closed at run time through Multiplexer.dispatch, as another module (a tmux
// stand-in) drives them: the pane appears with the next number and its own process, the title shows
// instead of the role, and close-pane signals a running process before the pane leaves the screen.
import { afterEach, describe, expect, it } from 'vitest';
import { launches, startMux } from '../helpers/mux.js';
import { makeTeam, waitFor } from '../helpers/team.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('panes at run time', () => {
  it('mux.open-title-and-close-a-pane-by-event', async () => {
    const t = await makeTeam(['alice']);
    cleanups.push(t.cleanup);
    const h = await startMux(t.store);
    cleanups.push(() => h.stop());
    const [, alice] = await launches(t.store);
    const pane = await h.mux.openPane({ ...alice!, name: 'carol', role: 'helper' });
    expect(pane?.life).toBe('running');
    expect(h.host.proc('carol').spec.cols, 'sized for its place before it started').toBeLessThan(80);
    await h.see(/3 carol · helper/);
    h.mux.dispatch({ kind: 'set-pane-title', pane: 'carol', title: 'vim notes.md' });
    await h.see(/3 carol · vim notes\.md/);
    h.mux.dispatch({ kind: 'close-pane', pane: 'carol', signal: 'SIGHUP' });
    expect(h.host.proc('carol').signals).toEqual(['SIGHUP']);
    await waitFor(async () => !(await h.tty.text()).includes('carol'), 'the pane to leave the screen');
    expect(h.mux.panes.map((p) => p.name)).toEqual(['lead', 'alice']);
  });
});
