// A member on another machine, started over ssh, end to end: a private sshd on 127.0.0.1 with a
// throwaway key (test/helpers/sshd.ts), a nats-server that wants a user and password, and `teamux
// start` in a private tmux of a layout whose teammate bob has `host: teamux-test-box`. bob's pane runs
// `teamux ssh-member`, which stages bob's environment (store, team, trust key, NATS password) in a
// private file on the "remote" side through ssh's stdin and runs `teamux agent` there under ssh -tt.
// bob claims and completes the seeded task on the demo model; the sidebar shows it; the password is on
// no process's command line and the staged file is gone; C-a q shuts bob down through the store and
// teamux exits 0.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../src/demo/server.js';
import { openNatsBackend } from '../../src/store/nats/backend.js';
import { TeamStore } from '../../src/store/team.js';
import { NatsServer } from '../helpers/nats.js';
import { startSshd, type TestSshd } from '../helpers/sshd.js';
import { BIN, tempDir, waitFor } from '../helpers/team.js';
import { TmuxDriver } from '../helpers/tmux.js';

const PASSWORD = `pw-${Math.random().toString(36).slice(2, 12)}`;
let server: NatsServer & { cleanup: () => Promise<void> };
let sshd: TestSshd;
let model: ScriptedServer;
const drivers: TmuxDriver[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(async () => {
  server = await NatsServer.start({ extra: ['--user', 'teamux', '--pass', PASSWORD] });
  sshd = await startSshd();
  model = await startScriptedServer({
    scripts: {
      bob: {
        idle_reply: '(Waiting for work.)',
        steps: [
          { when: { all_user_contains: ['You claimed task 1'] }, reply: [{ tool_use: { name: 'write_file', input: { path: 'from-ssh.txt', content: 'written over ssh\n' } } }] },
          { reply: [{ tool_use: { name: 'task_complete', input: { id: '1', result: 'from-ssh.txt written over ssh' } } }] },
          { reply: [{ text: 'Task 1 done.' }] },
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
  await model?.close();
  await sshd?.stop();
  await server?.cleanup();
});

/** Every process's command line, joined (to show a secret is on none of them). */
function allCommandLines(): string {
  let out = '';
  for (const pid of readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n))) {
    try {
      out += readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ') + '\n';
    } catch {
      // gone
    }
  }
  return out;
}

describe('a member on another machine over ssh (e2e)', () => {
  it('nats.ssh.a-host-member-runs-over-ssh-completes-its-task-and-shuts-down-with-the-screen', async () => {
    const a = tempDir('teamux-ssh-a-');
    cleanups.push(a.cleanup);
    const layout = path.join(a.dir, 'team.yaml');
    writeFileSync(layout, [
      'name: far', `store: ${server.url}`, 'shutdown_timeout: 20',
      'lead:', '  name: lead', '  role: Leads', '  command: [sh, -c, "echo lead here; exec sleep 600"]',
      'teammates:', '  - name: bob', '    role: Works on the box', '    agent: { auto_claim: true }', `    host: ${sshd.host}`,
      'tasks:', '  - { subject: Write a file over ssh }', '',
    ].join('\n'));
    const passwordFile = path.join(a.dir, 'nats-password');
    writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
    const env: Record<string, string> = {
      ANTHROPIC_API_KEY: '', TEAMUX_STORE: '', TEAMUX_TEAM: '', TEAMUX_TEAM_DIR: '', TEAMUX_DEMO_URL: model.url,
      // A file-held password (as a user keeps one): read by the screen's side, shipped as a value.
      TEAMUX_NATS_USER: 'teamux', TEAMUX_NATS_PASSWORD_FILE: passwordFile,
      TEAMUX_SSH_OPTIONS: `-F ${sshd.config}`, TEAMUX_REMOTE_TEAMUX: `${process.execPath} ${BIN}`,
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    };
    const d = await TmuxDriver.start(`cd ${a.dir} && ${BIN} start ${layout}; echo TEAMUX-EXIT=$?; sleep 600`, 170, 45, env);
    drivers.push(d);
    await d.waitFor(/· nats/, 'the screen on the NATS store', 45_000);

    // The observer needs the password too.
    const b = await openNatsBackend(server.url, 'far', { ...process.env, TEAMUX_NATS_USER: 'teamux', TEAMUX_NATS_PASSWORD: PASSWORD }, 'observer');
    if (!b.ok) throw new Error(b.problem.message);
    const opened = await TeamStore.openOn(path.join(tempDir('teamux-ssh-obs-').dir, 'far'), () => b.backend, 'observer');
    if (!opened.ok) throw new Error(opened.error.message);
    const observer = opened.store;
    cleanups.push(() => observer.backend.close());
    const done = await waitFor(async () => {
      const t = await observer.tasks.get('1');
      return t.ok && t.value.status === 'completed' ? t.value : null;
    }, 'bob to complete task 1 over ssh', 120_000, 250).catch(async (err) => {
      throw new Error(`${(err as Error).message}\n--- screen ---\n${await d.screen()}`);
    });
    expect(done).toMatchObject({ owner: 'bob', result: 'from-ssh.txt written over ssh' });
    // bob ran in the layout's root on the other side (the same folder here: one machine plays both).
    expect(readFileSync(path.join(a.dir, 'from-ssh.txt'), 'utf8')).toBe('written over ssh\n');
    await d.waitFor(/TASKS 1 +●0 ○0 ◌0 ✓1/, 'the finished task in the sidebar', 30_000);
    await d.waitFor(/bob\s+(idle|working)/, 'bob alive in the roster', 30_000);
    // The password travelled through ssh's stdin: it is on no command line, and the staged file is gone.
    // (The test's own nats-server is given it with --pass; every other command line must be clean.)
    expect(allCommandLines().split('\n').filter((l) => l.includes(PASSWORD) && !l.includes('nats-server'))).toEqual([]);
    expect(readdirSync(process.env.TMPDIR ?? tmpdir()).filter((n) => n.startsWith('teamux-env.'))).toEqual([]);

    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit after the shutdown handshake', 60_000);
    const shutdown = (await observer.requests.list()).requests.find((r) => r.type === 'shutdown' && r.to === 'bob');
    expect(shutdown).toMatchObject({ from: 'human', status: 'approved' });
  }, 300_000);
});
