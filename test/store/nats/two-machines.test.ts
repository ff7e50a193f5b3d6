// Two machines, proved on one: two team roots with no shared folder and different HOMEs, one NATS
// server. Machine A creates the team from a layout and a task with the CLI; machine B starts a member
// with `teamux agent --store URL --team T --as bob --auto-claim` on the demo model server. A's CLI sees
// bob alive, bob claims and completes A's task (its file lands on B only), and a shutdown request from
// A stops bob with exit 0, after which A sees it exited.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../../src/demo/server.js';
import { NatsServer, openNatsTeam } from '../../helpers/nats.js';
import { BIN, cliProcess, tempDir, waitFor } from '../../helpers/team.js';
import { exited, startMember } from '../../agent/process.js';

let server: NatsServer & { cleanup: () => Promise<void> };
let model: ScriptedServer;
const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(async () => {
  server = await NatsServer.start();
  // One script per member name: each test starts its member under its own name.
  const greeter = {
    idle_reply: '(Waiting for work.)',
    steps: [
      { when: { all_user_contains: ['You claimed task 1'] }, reply: [{ text: 'Writing the greeting.' }, { tool_use: { name: 'write_file', input: { path: 'greeting.txt', content: 'hello from machine B\n' } } }] },
      { reply: [{ tool_use: { name: 'task_complete', input: { id: '1', result: 'greeting.txt written on machine B' } } }] },
      { reply: [{ text: 'Task 1 done.' }] },
    ],
  };
  model = await startScriptedServer({ scripts: { bob: greeter, cara: greeter } });
}, 60_000);
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await model.close();
  await server.cleanup();
});

/** A machine: its own HOME and project root, nothing shared with the other. */
function machine(name: string): { home: string; root: string; env: Record<string, string> } {
  const tmp = tempDir(`teamux-${name}-`);
  cleanups.push(tmp.cleanup);
  const home = path.join(tmp.dir, 'home');
  const root = path.join(tmp.dir, 'project');
  mkdirSync(home);
  mkdirSync(root);
  return { home, root, env: { HOME: home, TEAMUX_TEAM_DIR: '', TEAMUX_MEMBER: '', TEAMUX_STORE: '', TEAMUX_TEAM: '' } };
}

describe('two machines on one NATS server', () => {
  it('nats.two-machines.a-member-started-on-b-claims-and-completes-a-task-created-on-a', async () => {
    const a = machine('a');
    const b = machine('b');
    const layout = path.join(a.root, 'team.yaml');
    writeFileSync(layout, [`name: duo`, `store: ${server.url}`, 'lead:', '  name: lead', '  role: leads', '  command: bash', 'teammates:', '  - name: bob', '    role: writes greetings', '    agent: { auto_claim: true }', ''].join('\n'));
    const init = await cliProcess(['init', layout, '--json'], a.env);
    expect(init.code, init.err).toBe(0);
    const aDir = path.join(a.root, '.teamux', 'duo');
    expect((JSON.parse(init.out) as { teamDir: string }).teamDir).toBe(aDir);
    const onA = { ...a.env, TEAMUX_STORE: server.url, TEAMUX_TEAM: 'duo', TEAMUX_TEAM_DIR: aDir };
    const add = await cliProcess(['task', 'add', '--subject', 'write a greeting', '--json'], onA);
    expect(add.code, add.err).toBe(0);

    const env: NodeJS.ProcessEnv = { ...process.env, ...b.env, TEAMUX_DEMO_URL: model.url };
    for (const k of ['ANTHROPIC_API_KEY', 'TEAMUX_TEAM_DIR', 'TEAMUX_MEMBER', 'TEAMUX_STORE', 'TEAMUX_TEAM']) delete env[k];
    const bob = startMember(BIN, ['agent', '--store', server.url, '--team', 'duo', '--as', 'bob', '--auto-claim'], env, b.root, 'bob');
    cleanups.push(() => { if (bob.child.exitCode === null) bob.child.kill('SIGKILL'); });
    try {
      // A sees bob, started on B, alive through its heartbeats.
      const seen = await waitFor(async () => {
        const r = await cliProcess(['team', 'show', '--json'], onA);
        const m = (JSON.parse(r.out) as { members: Array<{ name: string; status: string; heartbeatAt: string | null }> }).members.find((x) => x.name === 'bob');
        return m && m.status !== 'exited' && m.heartbeatAt ? m : null;
      }, 'machine A to see bob alive', 60_000, 500);
      expect(['working', 'idle']).toContain(seen.status);
      const done = await waitFor(async () => {
        const r = await cliProcess(['task', 'show', '1', '--json'], onA);
        const t = JSON.parse(r.out) as { status?: string; owner?: string; result?: string };
        return t.status === 'completed' ? t : null;
      }, 'task 1 completed', 90_000, 500);
      expect(done).toMatchObject({ owner: 'bob', result: 'greeting.txt written on machine B' });
      expect(readFileSync(path.join(b.root, 'greeting.txt'), 'utf8')).toBe('hello from machine B\n');
      expect(existsSync(path.join(a.root, 'greeting.txt'))).toBe(false);
      // B's local folder holds bob's transcript; A's has none: no folder is shared.
      expect(readdirSync(path.join(b.root, '.teamux', 'duo', 'transcripts'))).toContain('bob.json');
      expect(existsSync(path.join(aDir, 'transcripts', 'bob.json'))).toBe(false);

      // The lead on A asks bob to stop; bob's runtime agrees and exits 0.
      const lead = await openNatsTeam(server.url, 'duo', aDir, 'lead');
      cleanups.push(() => lead.backend.close());
      expect((await lead.openRequest('shutdown', 'lead', 'bob', 'thanks, that is all')).ok).toBe(true);
      expect(await exited(bob, 60_000)).toBe(0);
      const mail = (await lead.mail.read('lead')).messages;
      expect(mail.map((m) => `${m.from}:${m.type}`)).toEqual(expect.arrayContaining(['bob:idle_notification', 'bob:shutdown_response']));
      const after = await cliProcess(['team', 'show', '--json'], onA);
      expect((JSON.parse(after.out) as { members: Array<{ name: string; status: string }> }).members.find((x) => x.name === 'bob')!.status).toBe('exited');
      const events = await cliProcess(['task', 'list', '--json'], onA);
      expect(events.out).toContain('"owner":"bob"');
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- bob ---\n${bob.out.slice(-3000)}`);
    }
  }, 300_000);

  it('nats.two-machines.a-lost-connection-shows-in-the-member-pane-and-work-resumes-after-it', async () => {
    const a = machine('a');
    const b = machine('b');
    const layout = path.join(a.root, 'team.yaml');
    writeFileSync(layout, [`name: duo2`, 'lead:', '  name: lead', '  role: leads', '  command: bash', 'teammates:', '  - name: cara', '    role: writes greetings', '    agent: { auto_claim: true }', ''].join('\n'));
    expect((await cliProcess(['init', layout, '--store', server.url], a.env)).code).toBe(0);
    const env: NodeJS.ProcessEnv = { ...process.env, ...b.env, TEAMUX_DEMO_URL: model.url };
    for (const k of ['ANTHROPIC_API_KEY', 'TEAMUX_TEAM_DIR', 'TEAMUX_MEMBER', 'TEAMUX_STORE', 'TEAMUX_TEAM']) delete env[k];
    env.TEAMUX_STORE = server.url;
    env.TEAMUX_TEAM = 'duo2';
    const cara = startMember(BIN, ['agent', '--as', 'cara', '--auto-claim'], env, b.root, 'cara');
    cleanups.push(() => { if (cara.child.exitCode === null) cara.child.kill('SIGKILL'); });
    const aDir = path.join(a.root, '.teamux', 'duo2');
    try {
      await waitFor(() => /waiting|idle/i.test(cara.out), 'cara to go idle', 60_000);
      await server.stop();
      await waitFor(() => cara.out.includes('store: lost nats://127.0.0.1:'), 'the pane to show the lost store', 30_000);
      await server.start();
      await waitFor(() => cara.out.includes('store: connected to nats://127.0.0.1:'), 'the pane to show the store back', 60_000);
      // Work resumes: a task created on A after the outage is claimed and completed once.
      const lead = await openNatsTeam(server.url, 'duo2', aDir, 'lead');
      cleanups.push(() => lead.backend.close());
      expect((await lead.tasks.create({ subject: 'write a greeting' })).ok).toBe(true);
      await waitFor(async () => {
        const t = await lead.tasks.get('1');
        return t.ok && t.value.status === 'completed';
      }, 'task 1 completed after the outage', 90_000, 500);
      const { events } = await lead.events.read();
      expect(events.filter((e) => e.type === 'task_claimed' && e.task === '1')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'task_completed' && e.task === '1')).toHaveLength(1);
      expect((await lead.openRequest('shutdown', 'lead', 'cara', 'done')).ok).toBe(true);
      expect(await exited(cara, 60_000)).toBe(0);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- cara ---\n${cara.out.slice(-3000)}`);
    }
  }, 300_000);
});
