// The README's run command, end to end, exactly as the README gives it (after `npm ci`): with no API
// key it runs the lead and two agents on the offline demo model; the screen opens at once (no npx
// re-pack and re-compile); the human approves alice's plan with C-a a; all four tasks complete,
// results and idle notifications reach the lead, and quit leaves nothing.
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
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

/** The demo command of the README's "Run the demo" block, without its leading `npm ci &&`. */
function readmeDemoCommand(): string {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const m = /\*\*Run the demo\*\*[^]*?```sh\n(.*)\n```/.exec(readme);
  if (!m) throw new Error('README.md has no "Run the demo" sh block');
  const [install, command] = m[1]!.split(' && ');
  expect(install).toBe('npm ci');
  return command!;
}

describe('the offline demo (e2e)', () => {
  it('runs the whole flow with the human approving the plan', async () => {
    const tmp = tempDir('teamux-demo-');
    cleanups.push(tmp.cleanup);
    // A checkout in miniature: the repository's bin/ (and so its dist/), and a fresh copy of the demo.
    const demoDir = path.join(tmp.dir, 'examples', 'demo');
    mkdirSync(demoDir, { recursive: true });
    cpSync(path.join(REPO, 'examples', 'demo'), demoDir, { recursive: true, filter: (s) => !s.includes('.teamux') && !s.includes('teamux-demo') });
    symlinkSync(path.dirname(BIN), path.join(tmp.dir, 'bin'));
    const command = readmeDemoCommand();
    const env: Record<string, string> = { ANTHROPIC_API_KEY: '', PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    const started = Date.now();
    const d = await TmuxDriver.start(`cd ${tmp.dir} && ${command}; echo TEAMUX-EXIT=$?; sleep 600`, 170, 50, env);
    drivers.push(d);
    await d.waitFor(/DEMO MODEL/, 'the demo label', 30_000);
    const openMs = Date.now() - started;
    process.stdout.write(`README command \`${command}\`: the screen opened in ${openMs} ms\n`);
    // The README promises the screen within 10 s of npm ci; the bound is generous for a loaded CI.
    expect(openMs).toBeLessThan(20_000);
    await d.waitFor(/▶plan alice→human/, 'alice\'s plan request', 60_000);
    await d.keys('C-a', 'a');
    const dir = path.join(demoDir, '.teamux', 'demo');
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
    // The sidebar's MAIL count shows every message, the lead's first task_assignments included.
    const sent = events.filter((e) => e.type === 'message_sent');
    expect(sent.some((e) => e.messageType === 'task_assignment')).toBe(true);
    await waitFor(async () => {
      const all = (await store.events.read()).events.filter((e) => e.type === 'message_sent').length;
      return (await d.screen()).includes(`MAIL ${all}`);
    }, 'the sidebar MAIL count to match the message events', 15_000, 200);
    // The lead's shutdown handshake with both teammates completes; then quit.
    await waitFor(async () => (await store.requests.list()).requests.filter((r) => r.type === 'shutdown' && r.status === 'approved').length >= 2, 'both teammates to approve shutdown', 60_000, 200);
    const pids = (await store.roster()).map((m) => m.pid).filter((p): p is number => p !== null);
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit', 30_000);
    for (const pid of pids) expect(() => process.kill(pid, 0), `pid ${pid}`).toThrow();
  }, 240_000);
});
