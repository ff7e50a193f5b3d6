// Resizing the screen around agent panes (the offline demo in a private tmux server): each agent
// pane draws its status line once, at its new bottom, and no piece of the old one is left for later
// lines to overwrite in part. Before, the agent's scroll region was set again but the rows the
// terminal had reflowed were not cleared: `DEMO alice │ idle │ …` showed twice after a resize.
import { cpSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, REPO, tempDir } from '../helpers/team.js';
import { TmuxDriver } from '../helpers/tmux.js';

const drivers: TmuxDriver[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  for (const c of cleanups.splice(0)) c();
});

const MEMBERS = ['lead', 'alice', 'bob'];
/** How many times each member's status line (`DEMO NAME │`) is on the screen. */
const statusCounts = (screen: string): number[] => MEMBERS.map((m) => screen.split(`DEMO ${m} │`).length - 1);

describe('agent panes across a resize (e2e)', () => {
  it('agent-pane.resize-leaves-one-status-line-per-pane', async () => {
    const tmp = tempDir('teamux-resize-');
    cleanups.push(tmp.cleanup);
    const demoDir = path.join(tmp.dir, 'demo');
    mkdirSync(demoDir, { recursive: true });
    cpSync(path.join(REPO, 'examples', 'demo'), demoDir, { recursive: true, filter: (s) => !s.includes('.teamux') && !s.includes('teamux-demo') });
    const env = { ANTHROPIC_API_KEY: '', PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    const d = await TmuxDriver.start(`cd ${demoDir} && ${BIN} start team.yaml; sleep 600`, 120, 35, env);
    drivers.push(d);
    // alice waits for the plan approval: the team is quiet, with text in every pane.
    await d.waitFor((s) => /▶plan alice→human/.test(s) && statusCounts(s).every((n) => n === 1), 'the demo waiting for the approval', 60_000);
    for (const [cols, rows] of [[170, 45], [100, 30], [150, 40]] as const) {
      await d.resize(cols, rows);
      // The screen is drawn at the new size (its status bar reaches the last column), and the agents
      // have answered their SIGWINCH: the screen stays the same for half a second.
      let last = '';
      let since = Date.now();
      const screen = await d.waitFor((s) => {
        const bar = s.split('\n').find((l) => l.startsWith('[demo]')) ?? '';
        if (s !== last) [last, since] = [s, Date.now()];
        return bar.length === cols && bar.endsWith('pty') && Date.now() - since >= 500;
      }, `the screen redrawn and settled at ${cols}x${rows}`, 15_000);
      expect(statusCounts(screen), `${cols}x${rows}:\n${screen}`).toEqual([1, 1, 1]);
    }
  });
});
