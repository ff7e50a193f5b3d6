// The teamux screen on a NATS store, end to end: a real nats-server on a free port, `teamux start` of
// the demo layout with `store: nats://127.0.0.1:PORT` in a private tmux server. The demo team works
// through the server (its tasks, plan request, messages and events are JetStream's, not the folder's),
// the human approves alice's plan with C-a a (a signed decision written through the backend), all four
// tasks complete and the sidebar shows them. Then a second machine (its own HOME and root, no shared
// folder) runs `teamux agent --store … --team demo --as carol`: carol shows in the sidebar and the task
// she claims and completes shows there too. nats-server stopped: the status line says the store is
// lost; started again: the status line recovers and new work shows. C-a q quits with exit 0.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../src/demo/server.js';
import { exited, startMember } from '../agent/process.js';
import { NatsServer, openNatsTeam } from '../helpers/nats.js';
import { BIN, REPO, tempDir, waitFor } from '../helpers/team.js';
import { TmuxDriver } from '../helpers/tmux.js';

let server: NatsServer & { cleanup: () => Promise<void> };
let model: ScriptedServer;
const drivers: TmuxDriver[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(async () => {
  server = await NatsServer.start();
  model = await startScriptedServer({
    scripts: {
      carol: {
        idle_reply: '(Waiting for work.)',
        steps: [
          { when: { all_user_contains: ['You claimed task 5'] }, reply: [{ tool_use: { name: 'write_file', input: { path: 'carol.txt', content: 'written on machine B\n' } } }] },
          { reply: [{ tool_use: { name: 'task_complete', input: { id: '5', result: 'carol.txt written on machine B' } } }] },
          { reply: [{ text: 'Task 5 done.' }] },
        ],
      },
    },
  });
}, 60_000);
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await model.close();
  await server.cleanup();
});

/** The demo layout in a fresh folder, on the NATS store, with carol as a member on another machine. */
function demoOnNats(root: string): string {
  const demoDir = path.join(root, 'examples', 'demo');
  mkdirSync(demoDir, { recursive: true });
  cpSync(path.join(REPO, 'examples', 'demo'), demoDir, { recursive: true, filter: (s) => !s.includes('.teamux') && !s.includes('teamux-demo') });
  const layout = readFileSync(path.join(demoDir, 'team.yaml'), 'utf8')
    .replace('name: demo\n', `name: demo\nstore: ${server.url}\n`)
    .concat('\n  - name: carol\n    role: Works from another machine\n    remote: true\n');
  writeFileSync(path.join(demoDir, 'team.yaml'), layout);
  return path.join(demoDir, 'team.yaml');
}

describe('the screen on a NATS store (e2e)', () => {
  it('nats.screen.demo-team-completes-a-second-machine-joins-and-a-lost-server-shows-and-recovers', async () => {
    const a = tempDir('teamux-nats-a-');
    cleanups.push(a.cleanup);
    const layout = demoOnNats(a.dir);
    symlinkSync(path.dirname(BIN), path.join(a.dir, 'bin'));
    const env: Record<string, string> = { ANTHROPIC_API_KEY: '', TEAMUX_STORE: '', TEAMUX_TEAM: '', TEAMUX_TEAM_DIR: '', PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    const d = await TmuxDriver.start(`cd ${a.dir} && ./bin/teamux start ${layout}; echo TEAMUX-EXIT=$?; sleep 600`, 170, 50, env);
    drivers.push(d);
    await d.waitFor(/DEMO MODEL/, 'the demo label', 45_000);
    await d.waitFor(/· nats/, 'the status line to name the NATS store');
    // The plan request arrives through JetStream; the key answers it through the backend.
    await d.waitFor(/▶plan alice→human/, "alice's plan request", 60_000);
    await d.keys('C-a', 'a');

    // Another process reads the team from the server, with a folder of its own.
    const observer = await openNatsTeam(server.url, 'demo', path.join(tempDir('teamux-nats-obs-').dir, 'demo'), 'observer');
    cleanups.push(() => observer.backend.close());
    await waitFor(async () => {
      const { tasks } = await observer.tasks.snapshot();
      return tasks.length === 4 && tasks.every((t) => t.status === 'completed');
    }, 'all four tasks to complete', 120_000, 250).catch(async (err) => {
      throw new Error(`${(err as Error).message}\n--- screen ---\n${await d.screen()}`);
    });
    const plan = (await observer.requests.list()).requests.find((r) => r.type === 'plan_approval');
    expect(plan).toMatchObject({ from: 'alice', to: 'human', status: 'approved', response: { by: 'human', signed: { claim: { approver: 'human', decision: 'approve' } } } });
    // The folder on this machine holds no shared state: no task or request files.
    const local = path.join(path.dirname(layout), '.teamux', 'demo');
    expect(readdirOrEmpty(path.join(local, 'tasks')).filter((f) => f.endsWith('.json'))).toEqual([]);
    // The sidebar shows the finished board and the traffic, read from the server.
    await d.waitFor(/TASKS 4 +●0 ○0 ◌0 ✓4/, 'the sidebar to show the four finished tasks', 30_000);
    await waitFor(async () => {
      const sent = (await observer.events.read()).events.filter((e) => e.type === 'message_sent').length;
      return (await d.screen()).includes(`MAIL ${sent}`);
    }, 'the sidebar MAIL count to match the message events on the server', 30_000, 250);

    // Machine B: its own HOME and root; carol joins the team through the server.
    const b = tempDir('teamux-nats-b-');
    cleanups.push(b.cleanup);
    mkdirSync(path.join(b.dir, 'home'));
    mkdirSync(path.join(b.dir, 'project'));
    const bEnv: NodeJS.ProcessEnv = { ...process.env, HOME: path.join(b.dir, 'home'), TEAMUX_DEMO_URL: model.url };
    for (const k of ['ANTHROPIC_API_KEY', 'TEAMUX_TEAM_DIR', 'TEAMUX_MEMBER', 'TEAMUX_STORE', 'TEAMUX_TEAM']) delete bEnv[k];
    const carol = startMember(BIN, ['agent', '--store', server.url, '--team', 'demo', '--as', 'carol', '--auto-claim'], bEnv, path.join(b.dir, 'project'), 'carol');
    cleanups.push(() => { if (carol.child.exitCode === null) carol.child.kill('SIGKILL'); });
    try {
      await d.waitFor(/carol\s+(idle|working)/, 'carol alive in the sidebar roster', 60_000);
      expect((await observer.tasks.create({ subject: 'Write from machine B' })).ok).toBe(true);
      await waitFor(async () => {
        const t = await observer.tasks.get('5');
        return t.ok && t.value.status === 'completed' ? t.value : null;
      }, 'carol to complete task 5', 90_000, 250);
      await d.waitFor(/TASKS 5 +●0 ○0 ◌0 ✓5/, "carol's finished task in the sidebar", 30_000);
      expect(readFileSync(path.join(b.dir, 'project', 'carol.txt'), 'utf8')).toBe('written on machine B\n');

      // The server goes away: the status line says so; it comes back: the status line recovers.
      await server.stop();
      await d.waitFor((s) => /store: lost nats:\/\/127\.0\.0\.1/.test(statusLine(s)), 'the status line to show the lost store', 30_000);
      await server.start();
      await d.waitFor((s) => !/store: lost/.test(statusLine(s)) && /· nats/.test(statusLine(s)), 'the status line to recover', 60_000);
      // Work after the gap shows: a task created now appears in the sidebar.
      expect((await observer.tasks.create({ subject: 'After the outage' })).ok).toBe(true);
      await d.waitFor(/TASKS 6 +●0 ○1 ◌0 ✓5|TASKS 6 +●1 ○0 ◌0 ✓5|TASKS 6 +●0 ○0 ◌0 ✓6/, 'a task created after the outage in the sidebar', 60_000);

      expect((await observer.openRequest('shutdown', 'lead', 'carol', 'done')).ok).toBe(true);
      expect(await exited(carol, 60_000)).toBe(0);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- carol ---\n${carol.out.slice(-3000)}`);
    }
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit', 60_000);
  }, 420_000);
});

describe('the screen on a NATS store: bad input (e2e)', () => {
  it('nats.screen.an-unreachable-store-or-a-remote-member-on-a-folder-is-exit-1-before-anything-starts', async () => {
    const a = tempDir('teamux-nats-bad-');
    cleanups.push(a.cleanup);
    const unreachable = path.join(a.dir, 'unreachable.yaml');
    writeFileSync(unreachable, ['name: far', 'store: nats://127.0.0.1:1', 'lead:', '  name: lead', '  role: Leads', '  command: [sh, -c, "echo LEAD-STARTED; sleep 60"]', ''].join('\n'));
    const onFolder = path.join(a.dir, 'folder.yaml');
    writeFileSync(onFolder, ['name: near', 'lead:', '  name: lead', '  role: Leads', '  command: sh', 'teammates:', '  - name: carol', '    role: Elsewhere', '    remote: true', ''].join('\n'));
    const env = { TEAMUX_STORE: '', TEAMUX_TEAM: '', TEAMUX_TEAM_DIR: '' };
    const d = await TmuxDriver.start(`cd ${a.dir} && ${BIN} start ${unreachable}; echo TEAMUX-EXIT=$?; ${BIN} start ${onFolder}; echo TEAMUX-EXIT2=$?; sleep 600`, 170, 45, env);
    drivers.push(d);
    const screen = await d.waitFor(/TEAMUX-EXIT2=/, 'both starts to end', 60_000);
    expect(screen).toContain('TEAMUX-EXIT=1');
    expect(screen).toMatch(/cannot reach a NATS server at 127\.0\.0\.1:1/);
    expect(screen).toMatch(/hint: start one with `nats-server -js/);
    expect(screen).not.toContain('LEAD-STARTED');
    expect(screen).toContain('TEAMUX-EXIT2=1');
    expect(screen).toMatch(/member carol runs on another machine \(remote: true\), but the team is kept in its folder/);
    // Nothing was written for the unreachable team.
    expect(existsSync(path.join(a.dir, '.teamux', 'far'))).toBe(false);
  }, 120_000);
});

/** The screen's last line: teamux's status line (panes above may print the same words). */
function statusLine(screen: string): string {
  return screen.trimEnd().split('\n').at(-1) ?? '';
}

function readdirOrEmpty(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}
