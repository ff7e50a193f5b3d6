// The team view kept fresh while other processes write the team folder: real CLI processes send
// messages, create tasks and answer requests while a TeamView watches.
import { afterEach, describe, expect, it } from 'vitest';
import { TeamView, type TeamSnapshot } from '../../src/app/team-view.js';
import { cliProcess, makeTeam, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function watchedTeam(names: string[]) {
  const t = await makeTeam(names);
  cleanup.push(t.cleanup);
  // As at a real start: members have started before the view loads, so the log holds non-message events.
  for (const n of ['lead', ...names]) await t.store.updateMember(n, { status: 'working', pid: process.pid });
  const view = new TeamView(t.store);
  await view.start();
  cleanup.push(() => view.dispose());
  return { ...t, view };
}

describe('team view', () => {
  it('mail.every-message-sent-by-a-cli-process-shows-in-the-traffic', async () => {
    const t = await watchedTeam(['sh']);
    // The folder already holds member events: the traffic starts empty with a non-zero offset.
    expect(t.view.snapshot().traffic).toEqual([]);
    for (let i = 1; i <= 3; i++) {
      const r = await cliProcess(['msg', 'send', '--team-dir', t.dir, '--from', 'sh', '--to', 'lead', `hello ${i}`]);
      expect(r.code, r.err).toBe(0);
      await waitFor(() => t.view.snapshot().traffic.length === i, `message ${i} in the view's traffic`, 20_000);
    }
    const traffic = t.view.snapshot().traffic;
    expect(traffic.map((e) => e.excerpt)).toEqual(['hello 1', 'hello 2', 'hello 3']);
    expect(traffic.every((e) => e.from === 'sh' && e.to === 'lead')).toBe(true);
    const { events } = await t.store.events.read();
    expect(events.filter((e) => e.type === 'message_sent')).toHaveLength(3);
  }, 60_000);

  it('files.tasks-and-roster-written-by-cli-processes-and-renames-show-in-the-snapshot', async () => {
    const t = await watchedTeam(['sh']);
    for (let i = 1; i <= 3; i++) {
      const r = await cliProcess(['task', 'add', '--team-dir', t.dir, '--subject', `job ${i}`]);
      expect(r.code, r.err).toBe(0);
      await waitFor(() => t.view.snapshot().tasks.length === i, `task ${i} in the view`, 20_000);
      // team.json is replaced by rename each time: the watch must survive every replacement.
      await t.store.updateMember('sh', { status: i % 2 ? 'idle' : 'working' });
      await waitFor(() => t.view.snapshot().roster.find((m) => m.name === 'sh')?.status === (i % 2 ? 'idle' : 'working'), `roster change ${i}`, 20_000);
    }
    expect(t.view.snapshot().tasks.map((x) => x.subject)).toEqual(['job 1', 'job 2', 'job 3']);
  }, 60_000);

  it('quiet.a-reload-that-changes-nothing-shown-tells-no-one', async () => {
    const t = await watchedTeam(['sh']);
    const told: TeamSnapshot[] = [];
    const sub = t.view.onChange((s) => told.push(s));
    cleanup.push(() => sub.dispose());
    // What a start-up writes last (team.json again, a member event), and a roster refresh: each is
    // read (the generation moves) but changes nothing the screen shows, so it costs no frame.
    const quiet: Array<[string, () => unknown]> = [
      ['team.json written again with the same roster and a member event', () => t.store.updateMember('sh', { status: 'working', pid: process.pid })],
      ['a task-less event', () => t.store.events.record('member_idle', { member: 'sh' })],
      ['a roster refresh', () => t.view.refreshRoster()],
    ];
    for (const [what, step] of quiet) {
      const generation = t.view.snapshot().generation;
      await step();
      await waitFor(() => t.view.snapshot().generation > generation, `the reload after ${what}`, 20_000);
    }
    expect(told, 'no listener told of a reload that changed nothing').toEqual([]);
    // A message is news: the next reload tells, once, with the message.
    const r = await cliProcess(['msg', 'send', '--team-dir', t.dir, '--from', 'sh', '--to', 'lead', 'news']);
    expect(r.code, r.err).toBe(0);
    await waitFor(() => told.length > 0, 'the message to be told', 20_000);
    expect(told.map((s) => s.traffic.map((e) => e.excerpt))).toEqual([['news']]);
    // A change of the roster is news too.
    await t.store.updateMember('sh', { status: 'idle' });
    await waitFor(() => told.length > 1, 'the roster change to be told', 20_000);
    expect(told[1]!.roster.find((m) => m.name === 'sh')?.status).toBe('idle');
  }, 60_000);

  it('files.a-view-disposed-while-it-starts-leaves-no-watch-behind', async () => {
    const t = await makeTeam(['sh']);
    cleanup.push(t.cleanup);
    const watches = (): number => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
    const before = watches();
    const view = new TeamView(t.store);
    // The screen quits while its start-up still waits for the first read of the folder.
    const starting = view.start();
    await view.dispose();
    await starting;
    // A watch armed after dispose() would keep the process alive after the screen closed.
    await waitFor(() => watches() <= before, 'every folder watch closed');
  });
});
