// The README's run command, end to end: `teamux start examples/demo/team.yaml` with no API key runs
// the lead and two agents on the offline demo model; the human approves alice's plan with C-a a;
// all four tasks complete, results and idle notifications reach the lead, and quit leaves nothing.
import { cpSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TeamStore } from '../../src/store/team.js';
import { BIN, REPO, tempDir, waitFor } from '../helpers/team.js';
import { TmuxDriver } from '../helpers/tmux.js';

const drivers: TmuxDriver[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  for (const c of cleanups.splice(0)) c();
});

describe('the offline demo (e2e)', () => {
  it('runs the whole flow with the human approving the plan', async () => {
    const tmp = tempDir('teamux-demo-');
    cleanups.push(tmp.cleanup);
    cpSync(path.join(REPO, 'examples', 'demo'), tmp.dir, { recursive: true, filter: (s) => !s.includes('.teamux') && !s.includes('teamux-demo') });
    const env: Record<string, string> = { ANTHROPIC_API_KEY: '' };
    const d = await TmuxDriver.start(`${process.execPath} ${BIN} start ${path.join(tmp.dir, 'team.yaml')}; echo TEAMUX-EXIT=$?; sleep 600`, 170, 50, env);
    drivers.push(d);
    await d.waitFor(/DEMO MODEL/, 'the demo label');
    await d.waitFor(/▶plan alice→human/, 'alice\'s plan request', 60_000);
    await d.keys('C-a', 'a');
    const dir = path.join(tmp.dir, '.teamux', 'demo');
    const opened = await TeamStore.open(dir);
    if (!opened.ok) throw new Error(opened.error.message);
    const store = opened.store;
    await waitFor(async () => {
      const { tasks } = await store.tasks.snapshot();
      return tasks.length === 4 && tasks.every((t) => t.status === 'completed');
    }, 'all four tasks to complete', 90_000, 200).catch(async (err) => {
      throw new Error(`${(err as Error).message}\n--- screen ---\n${await d.screen()}`);
    });
    const { tasks } = await store.tasks.snapshot();
    expect(tasks.map((t) => [t.id, t.blockedBy])).toEqual([['1', []], ['2', []], ['3', ['1', '2']], ['4', ['3']]]);
    expect(new Set(tasks.map((t) => t.owner))).toEqual(new Set(['alice', 'bob']));
    const plan = (await store.requests.list()).requests.find((r) => r.type === 'plan_approval');
    expect(plan).toMatchObject({ from: 'alice', to: 'human', status: 'approved', response: { by: 'human', signed: { claim: { approver: 'human', decision: 'approve' } } } });
    // Results and idle notifications reached the lead as separate messages.
    const { events } = await store.events.read();
    const toLead = events.filter((e) => e.type === 'message_sent' && e.to === 'lead').map((e) => `${String(e.from)}:${String(e.messageType)}`);
    for (const m of ['alice:result', 'alice:idle_notification', 'bob:result', 'bob:idle_notification']) expect(toLead).toContain(m);
    // The lead's shutdown handshake with both teammates completes; then quit.
    await waitFor(async () => (await store.requests.list()).requests.filter((r) => r.type === 'shutdown' && r.status === 'approved').length >= 2, 'both teammates to approve shutdown', 60_000, 200);
    const pids = (await store.roster()).map((m) => m.pid).filter((p): p is number => p !== null);
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit', 30_000);
    for (const pid of pids) expect(() => process.kill(pid, 0), `pid ${pid}`).toThrow();
  }, 240_000);
});
