// `teamux archive`: a finished team folder moves whole to .teamux/archive/<team>-<time>/, CLI
// discovery finds one team again (a demo's old `demo.previous` made it fail), and the move is refused
// (exit 3, reason running) while the team's screen or a member is alive — real child processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { archiveEarlierRun } from '../../src/cli/archive.js';
import { archiveStamp, archiveTeamFolder } from '../../src/store/archive.js';
import { processStartTime } from '../../src/store/liveness.js';
import { cli, cliProcess, makeTeam } from '../helpers/team.js';

let cleanup: (() => Promise<void>) | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await cleanup?.();
  cleanup = undefined;
});

async function team() {
  const t = await makeTeam(['amy']);
  cleanup = t.cleanup;
  const root = path.dirname(path.dirname(t.dir));
  return { ...t, root, teamux: path.join(root, '.teamux') };
}

function sleeper(): ChildProcess {
  const c = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(c);
  return c;
}

describe('teamux archive', () => {
  it('archive.moves-a-finished-team-and-discovery-finds-one-team-again', async () => {
    const t = await team();
    await t.store.tasks.create({ subject: 'done work' });
    const before = Date.now();
    const r = await cliProcess(['archive', '--json', '--team-dir', t.dir]);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as { ok: boolean; team: string; from: string; to: string };
    expect(out).toMatchObject({ ok: true, team: 'test' });
    expect(path.dirname(out.to)).toBe(path.join(t.teamux, 'archive'));
    expect(path.basename(out.to)).toMatch(/^test-\d{8}-\d{6}$/);
    expect(path.basename(out.to) >= `test-${archiveStamp(new Date(before - 1000))}`).toBe(true);
    expect(existsSync(t.dir)).toBe(false);
    expect(existsSync(path.join(out.to, 'tasks', '1.json'))).toBe(true);
    // The archive reads as a team folder; discovery under .teamux sees no team (archive/ is not one).
    expect((await cli(['task', 'list', '--team-dir', out.to])).out).toMatch(/done work/);
    const none = await cli(['task', 'list'], {}, t.root);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/^teamux: no team folder given/);
    // Two archives of one team in the same second get a folder each.
    const at = new Date('2026-12-01T15:47:03.120Z');
    for (const n of ['x1', 'x2']) mkdirSync(path.join(t.teamux, n));
    expect(path.basename(await archiveTeamFolder(path.join(t.teamux, 'x1'), 'same', at))).toBe('same-20261201-154703');
    expect(path.basename(await archiveTeamFolder(path.join(t.teamux, 'x2'), 'same', at))).toBe('same-20261201-154703-2');
  });

  it('archive.start-archives-an-earlier-run-and-an-old-previous-folder-too', async () => {
    const t = await team();
    await t.store.events.record('task_created', { task: '1' });
    // What older versions left beside the team: a second team folder that broke discovery.
    const old = await makeTeam(['bob']);
    const previous = `${t.dir}.previous`;
    const { cpSync } = await import('node:fs');
    cpSync(old.dir, previous, { recursive: true });
    await old.cleanup();
    expect((await cli(['task', 'list'], {}, t.root)).err).toMatch(/holds several teams \(test, test\.previous\)/);
    const archived = await archiveEarlierRun(t.dir);
    expect('archived' in archived && archived.archived).toMatch(/\/\.teamux\/archive\/test-\d{8}-\d{6}$/);
    expect(readdirSync(t.teamux).sort()).toEqual(['archive']);
    expect(readdirSync(path.join(t.teamux, 'archive')).map((n) => n.replace(/\d{8}-\d{6}/, 'T')).sort()).toEqual(['test-T', 'test-previous-T']);
  });

  it('archive.refused-while-the-screen-or-a-member-runs', async () => {
    const t = await team();
    const screen = sleeper();
    writeFileSync(path.join(t.dir, 'mux.json'), JSON.stringify({ pid: screen.pid, pidStart: processStartTime(screen.pid!), backend: 'pty', startedAt: '2026-12-01T10:00:00.000Z' }));
    const r = await cliProcess(['archive', '--team-dir', t.dir]);
    expect(r.code).toBe(3);
    expect(r.err).toBe(`teamux: refused (running): team test is still running in teamux (pid ${screen.pid}, pty backend, since 2026-12-01T10:00:00.000Z)\n  hint: quit it (C-a q) first, then archive\n`);
    screen.kill('SIGKILL');
    await new Promise((resolve) => screen.once('exit', resolve));
    const amy = sleeper();
    await t.store.memberStarted('amy', amy.pid!);
    const j = await cliProcess(['archive', '--json', '--team-dir', t.dir]);
    expect(j.code).toBe(3);
    expect(JSON.parse(j.out)).toMatchObject({ ok: false, reason: 'running', message: `team test is not finished: amy (pid ${amy.pid}) is still running` });
    expect(existsSync(path.join(t.dir, 'team.json'))).toBe(true);
    amy.kill('SIGKILL');
    await new Promise((resolve) => amy.once('exit', resolve));
    expect((await cliProcess(['archive', '--team-dir', t.dir])).out).toMatch(/^archived team test to \/.*\/\.teamux\/archive\/test-\d{8}-\d{6}\n$/);
  });

  it('archive.bad-input-exits-1', async () => {
    const t = await team();
    const cases: Array<[string[], RegExp]> = [
      [['archive', 'one', 'two'], /^teamux: expected at most one team name, got 2\n/],
      [['archive', 'Bad!'], /^teamux: "Bad!" is not a team name\n {2}hint: /],
      [['archive', 'test', '--team-dir', t.dir], /^teamux: give a team name or --team-dir, not both\n/],
      [['archive', 'nosuch'], /^teamux: .*nosuch/],
      [['archive', '--bogus'], /^teamux: Unknown option '--bogus'/],
    ];
    for (const [argv, err] of cases) {
      const r = await cli(argv, {}, t.root);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.err, argv.join(' ')).toMatch(err);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(path.join(t.dir, 'team.json'))).toBe(true);
  });
});
