// The CLI on a NATS store, as real child processes: --store / TEAMUX_STORE with --team on every verb,
// a team created from a layout, tasks and messages through it, and each bad start (no server, wrong
// credentials, no JetStream, a missing team name) a clear message with a hint and exit 1, fast.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, NatsServer } from '../../helpers/nats.js';
import { cliProcess, tempDir } from '../../helpers/team.js';

let server: NatsServer & { cleanup: () => Promise<void> };
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => {
  server = await NatsServer.start();
}, 60_000);
afterAll(async () => {
  for (const c of cleanups) await c();
  await server.cleanup();
});

function layoutFile(team: string, store?: string): { file: string; root: string } {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const file = path.join(tmp.dir, 'team.yaml');
  writeFileSync(file, [`name: ${team}`, ...(store ? [`store: ${store}`] : []), 'lead:', '  name: lead', '  role: leads', '  command: bash', 'teammates:', '  - name: bob', '    role: works', '    command: bash', 'tasks:', '  - subject: first seed', '  - subject: second seed', '    blockedBy: [1]', ''].join('\n'));
  return { file, root: tmp.dir };
}

describe('the CLI on a NATS store', () => {
  it('nats.cli.init-from-a-layout-then-tasks-and-messages-through-store-and-team', async () => {
    const { file, root } = layoutFile('clia', server.url);
    const init = await cliProcess(['init', file, '--json']);
    expect(init.code, init.err).toBe(0);
    expect(JSON.parse(init.out)).toMatchObject({ ok: true, team: 'clia', created: true, seeded: 2, store: server.url });
    // A second machine: another cwd, no team folder of its own yet; the flags or the environment say where.
    const other = tempDir();
    cleanups.push(other.cleanup);
    const flags = ['--store', server.url, '--team', 'clia'];
    const list = await cliProcess(['task', 'list', '--json', ...flags], { TEAMUX_TEAM_DIR: path.join(other.dir, '.teamux', 'clia') });
    expect(list.code, list.err).toBe(0);
    expect((JSON.parse(list.out) as { tasks: Array<{ subject: string }> }).tasks.map((t) => t.subject)).toEqual(['first seed', 'second seed']);
    const env = { TEAMUX_STORE: server.url, TEAMUX_TEAM: 'clia', TEAMUX_TEAM_DIR: path.join(other.dir, '.teamux', 'clia') };
    expect((await cliProcess(['task', 'claim', '--as', 'bob', '--json'], env)).out).toContain('"owner":"bob"');
    expect((await cliProcess(['task', 'complete', '1', '--as', 'bob', '--result', 'done', '--json'], env)).code).toBe(0);
    const sent = await cliProcess(['msg', 'send', '--from', 'bob', '--to', 'lead', 'hello from afar'], env);
    expect(sent.code, sent.err).toBe(0);
    // Read back from the first machine's side, with the layout's store.
    const inbox = await cliProcess(['inbox', 'read', '--as', 'lead', '--json', '--store', server.url, '--team', 'clia'], { TEAMUX_TEAM_DIR: path.join(root, '.teamux', 'clia') });
    expect(inbox.code, inbox.err).toBe(0);
    expect(inbox.out).toContain('hello from afar');
    const shown = await cliProcess(['task', 'show', '2', '--json', ...flags]);
    expect(JSON.parse(shown.out)).toMatchObject({ ok: true, status: 'pending', blockedBy: ['1'] });
    // The local folder init made remembers the store (store.json, no credentials): its folder alone is enough.
    const local = path.join(root, '.teamux', 'clia');
    expect(JSON.parse(readFileSync(path.join(local, 'store.json'), 'utf8'))).toEqual({ store: server.url, team: 'clia' });
    const byFolder = await cliProcess(['task', 'show', '1', '--json'], { TEAMUX_TEAM_DIR: local, TEAMUX_STORE: '', TEAMUX_TEAM: '' });
    expect(byFolder.code, byFolder.err).toBe(0);
    expect(JSON.parse(byFolder.out)).toMatchObject({ ok: true, status: 'completed', owner: 'bob' });
  });

  it('nats.cli.an-unreachable-server-is-exit-1-with-a-hint', async () => {
    const port = await freePort();
    const started = Date.now();
    const r = await cliProcess(['task', 'list', '--store', `nats://127.0.0.1:${port}`, '--team', 'x']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`cannot reach a NATS server at 127.0.0.1:${port}`));
    expect(r.err).toMatch(/hint: start one with `nats-server -js/);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('nats.cli.wrong-credentials-are-exit-1-and-never-echoed', async () => {
    const secured = await NatsServer.start({ extra: ['--user', 'teamux', '--pass', 'right-secret'] });
    try {
      const bad = await cliProcess(['team', 'show', '--store', secured.url, '--team', 'x'], { TEAMUX_NATS_USER: 'teamux', TEAMUX_NATS_PASSWORD: 'wrong-secret' });
      expect(bad.code).toBe(1);
      expect(bad.err).toMatch(/refused the credentials/);
      expect(bad.err).toMatch(/hint: set TEAMUX_NATS_USER and TEAMUX_NATS_PASSWORD/);
      expect(bad.err + bad.out).not.toContain('wrong-secret');
      // The right ones work, and no team of that name exists there yet.
      const { file, root } = layoutFile('sec');
      const ok = await cliProcess(['init', file, '--store', secured.url], { TEAMUX_NATS_USER: 'teamux', TEAMUX_NATS_PASSWORD: 'right-secret' });
      expect(ok.code, ok.err).toBe(0);
      const none = await cliProcess(['team', 'show', '--store', secured.url, '--team', 'nosuch'], { TEAMUX_NATS_USER: 'teamux', TEAMUX_NATS_PASSWORD: 'right-secret' });
      expect(none.code).toBe(1);
      expect(none.err).toMatch(/no team nosuch on nats:\/\/127\.0\.0\.1:\d+/);
      // Nothing of the secret reached the local folder.
      const log = await cliProcess(['team', 'show', '--json', '--store', secured.url, '--team', 'sec'], { TEAMUX_NATS_USER: 'teamux', TEAMUX_NATS_PASSWORD_FILE: writeSecret(root, 'right-secret') });
      expect(log.code, log.err).toBe(0);
      expect(log.out).not.toContain('right-secret');
      const files = readdirSync(root, { recursive: true, withFileTypes: true }).filter((d) => d.isFile() && d.name !== 'secret').map((d) => path.join(d.parentPath, d.name));
      for (const f of files) expect(readFileSync(f, 'utf8'), f).not.toContain('right-secret');
    } finally {
      await secured.cleanup();
    }
  });

  it('nats.cli.a-server-without-jetstream-is-exit-1-with-a-hint', async () => {
    const plain = await NatsServer.start({ js: false });
    try {
      const r = await cliProcess(['task', 'list', '--store', plain.url, '--team', 'x']);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/has no JetStream/);
      expect(r.err).toMatch(/hint: start nats-server with -js/);
    } finally {
      await plain.cleanup();
    }
  });

  it('nats.cli.store-without-team-and-a-bad-store-value-are-exit-1', async () => {
    const noTeam = await cliProcess(['task', 'list', '--store', server.url], { TEAMUX_TEAM_DIR: '' });
    expect(noTeam.code).toBe(1);
    expect(noTeam.err).toMatch(/needs the team's name[\s\S]*hint: add --team NAME/);
    const bad = await cliProcess(['task', 'list'], { TEAMUX_STORE: 'redis://x' });
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/neither "folder" nor a nats:\/\//);
    const { file } = layoutFile('badstore', 'nats://user:pw@127.0.0.1:4222');
    const v = await cliProcess(['validate', file]);
    expect(v.code).toBe(1);
    expect(v.err).toMatch(/store/);
    expect(v.err).toMatch(/no user or password/);
  });
});

function writeSecret(dir: string, secret: string): string {
  const file = path.join(dir, 'secret');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return file;
}
