// The tmux backend on a NATS store: `teamux start --backend tmux` of a layout with `store: nats://…`,
// a second screen from another machine refused while the first holds the team, the screen detached (C-a d) while the members keep running, `teamux ls` and `teamux attach` finding
// the team from its local folder's store.json (no --store), the sidebar on the server again, and
// `teamux kill` ending it by handshake through the store.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NatsServer, openNatsTeam } from '../helpers/nats.js';
import { BIN, cliProcess, tempDir, waitFor } from '../helpers/team.js';
import { killServer, TmuxDriver } from '../helpers/tmux.js';

const teamSocket = `teamux-team-${randomBytes(4).toString('hex')}`;
let server: NatsServer & { cleanup: () => Promise<void> };
const drivers: TmuxDriver[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(async () => {
  server = await NatsServer.start();
}, 60_000);
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  await killServer(teamSocket);
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await server.cleanup();
});

describe('tmux backend on a NATS store (e2e)', () => {
  it('nats.tmux.detach-ls-attach-and-kill-find-the-team-through-its-folder', async () => {
    const tmp = tempDir('teamux-nats-tmux-');
    cleanups.push(tmp.cleanup);
    const layout = path.join(tmp.dir, 'team.yaml');
    writeFileSync(layout, [
      'name: tmuxnats', 'backend: tmux', `store: ${server.url}`, 'shutdown_timeout: 5',
      'lead: { name: lead, role: lead, command: [bash, --norc, --noprofile] }',
      'teammates:', '  - { name: sh, role: a shell, command: [bash, --norc, --noprofile] }',
      'tasks:', '  - { subject: Seeded on the server }', '',
    ].join('\n'));
    const env = { TEAMUX_TMUX_SOCKET: teamSocket, TEAMUX_STORE: '', TEAMUX_TEAM: '', TEAMUX_TEAM_DIR: '' };
    const d = await TmuxDriver.start(`cd ${tmp.dir} && ${process.execPath} ${BIN} start ${layout}; echo TEAMUX-EXIT=$?; sleep 600`, 160, 45, env);
    drivers.push(d);
    await d.waitFor((s) => s.includes('Seeded on the server') && s.includes('tmux · nats'), 'the team under tmux on the NATS store', 45_000);
    // A second machine (its own root, the same layout and server) cannot open a second screen on the team.
    const b = tempDir('teamux-nats-tmux-b-');
    cleanups.push(b.cleanup);
    writeFileSync(path.join(b.dir, 'team.yaml'), readFileSync(layout, 'utf8'));
    const db = await TmuxDriver.start(`cd ${b.dir} && ${process.execPath} ${BIN} start team.yaml; echo SECOND-EXIT=$?; sleep 600`, 160, 45, { ...env, TEAMUX_TMUX_SOCKET: `${teamSocket}-b` });
    drivers.push(db);
    const refused = await db.waitFor(/SECOND-EXIT=/, 'the second screen to be refused', 45_000);
    expect(refused).toContain('SECOND-EXIT=1');
    expect(refused).toMatch(/team tmuxnats is already on a teamux screen \(\S+ pid \d+\)/);
    expect(existsSync(path.join(b.dir, '.teamux', 'tmuxnats', 'team.json'))).toBe(false);

    await d.keys('C-a', 'd');
    await d.waitFor(/TEAMUX-EXIT=0/, 'the screen to detach', 30_000);

    // The members still run; ls finds the team and its members through store.json.
    const ls = await cliProcess(['ls', '--json'], env);
    expect(ls.code, ls.err).toBe(0);
    const team = (JSON.parse(ls.out) as { teams: Array<{ team: string; attached: number | null; members: Array<{ name: string }> }> }).teams.find((t) => t.team === 'tmuxnats');
    expect(team).toMatchObject({ attached: null });
    expect(team!.members.map((m) => m.name)).toEqual(['lead', 'sh']);

    const d2 = await TmuxDriver.start(`cd ${tmp.dir} && ${process.execPath} ${BIN} attach tmuxnats; echo ATTACH-EXIT=$?; sleep 600`, 160, 45, env);
    drivers.push(d2);
    await d2.waitFor((s) => s.includes('Seeded on the server') && s.includes('tmux · nats'), 'the attached screen on the server', 45_000);
    // A change made elsewhere shows on the attached screen.
    const observer = await openNatsTeam(server.url, 'tmuxnats', path.join(tempDir('teamux-nats-obs-').dir, 'tmuxnats'), 'observer');
    cleanups.push(() => observer.backend.close());
    expect((await observer.tasks.create({ subject: 'Made from afar' })).ok).toBe(true);
    await d2.waitFor(/Made from afar/, 'the new task on the attached screen', 30_000);
    await d2.keys('C-a', 'd');
    await d2.waitFor(/ATTACH-EXIT=0/, 'the attached screen to detach', 30_000);

    const kill = await cliProcess(['kill', 'tmuxnats', '--timeout', '3', '--json'], env);
    expect(kill.code, kill.err).toBe(0);
    await waitFor(async () => (await observer.roster()).every((m) => m.reportedStatus === 'exited'), 'every member exited on the server', 30_000, 250);
  }, 240_000);
});
