// A claim is held by a process: the claiming process (pid + start time) is recorded per claim, and
// `task release --stale` releases exactly the claims whose process is gone, even when other
// processes acting as the same member keep its heartbeat fresh. Real children, killed with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStartTime } from '../../src/store/liveness.js';
import { BIN, cliProcess, makeTeam, REPO, waitFor } from '../helpers/team.js';

let cleanup: (() => void) | undefined;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  cleanup?.();
});

function start(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): { child: ChildProcess; out: () => string; exit: Promise<void> } {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  return { child, out: () => out, exit: new Promise((resolve) => child.on('exit', () => resolve())) };
}

describe('claims held by a process', () => {
  it('claims.release-stale-frees-the-claims-of-killed-processes-acting-as-one-member', async () => {
    const t = await makeTeam(['bob']);
    cleanup = t.cleanup;
    for (let i = 0; i < 20; i++) expect((await t.store.tasks.create({ subject: `job ${i}` })).ok).toBe(true);
    // Ten processes all acting as bob, each holding two claims; the survivors keep bob's heartbeat fresh.
    const holders = Array.from({ length: 10 }, () => start(process.execPath, [path.join(REPO, 'test', 'workers', 'holder.mjs'), t.dir, 'bob', '2']));
    const held = await Promise.all(holders.map((h) => waitFor(() => (h.out().includes('\n') ? (JSON.parse(h.out().split('\n')[0]!) as { pid: number; held: string[] }) : null), 'a holder to claim', 20_000)));
    for (const h of held) {
      for (const id of h.held) {
        const task = await t.store.tasks.get(id);
        expect(task.ok && task.value.holder).toEqual({ pid: h.pid, start: processStartTime(h.pid) });
      }
    }
    const killed = [0, 3, 4, 7, 9];
    for (const i of killed) holders[i]!.child.kill('SIGKILL');
    await Promise.all(killed.map((i) => holders[i]!.exit));

    const r = await cliProcess(['task', 'release', '--stale', '--json', '--team-dir', t.dir]);
    expect(r.code, r.err).toBe(0);
    const released = (JSON.parse(r.out) as { released: Array<{ id: string }> }).released.map((x) => x.id).sort();
    expect(released).toEqual(killed.flatMap((i) => held[i]!.held).sort());
    const board = await t.store.tasks.snapshot();
    for (const [i, h] of held.entries()) {
      for (const id of h.held) expect(board.index.get(id)?.owner, `task ${id} of holder ${i}`).toBe(killed.includes(i) ? null : 'bob');
    }
    const { events } = await t.store.events.read();
    expect(events.filter((e) => e.type === 'task_released').map((e) => String(e.why))).toEqual(expect.arrayContaining([expect.stringMatching(/the process that claimed it \(pid \d+\) is gone/)]));
    // Nothing more is stale while the survivors live.
    expect(JSON.parse((await cliProcess(['task', 'release', '--stale', '--json', '--team-dir', t.dir])).out)).toMatchObject({ released: [] });
  });

  it('claims.a-cli-claim-is-held-by-the-member-process-among-its-ancestors-else-by-its-parent', async () => {
    const t = await makeTeam(['amy', 'bob']);
    cleanup = t.cleanup;
    for (let i = 0; i < 2; i++) expect((await t.store.tasks.create({ subject: `job ${i}` })).ok).toBe(true);
    const env: NodeJS.ProcessEnv = { ...process.env, TEAMUX_TEAM_DIR: t.dir };
    delete env.TEAMUX_MEMBER;
    // amy's member process is a script (recorded in team.json, as teamux start does) that claims through
    // the CLI in a subshell once it is told to go (after its pid is recorded).
    const amy = start('bash', ['-c', `read go; id=$(${process.execPath} ${BIN} task claim --as amy --json); echo "$id"; exec sleep 600`], env);
    await t.store.memberStarted('amy', amy.child.pid!);
    amy.child.stdin!.write('go\n');
    // bob claims from a shell that is not a member process: the shell holds the claim.
    const shell = start('bash', ['-c', `${process.execPath} ${BIN} task claim --as bob --json; exec sleep 600`], env);
    const owners = await waitFor(async () => {
      const b = await t.store.tasks.snapshot();
      return b.tasks.every((x) => x.owner !== null) ? b.tasks : null;
    }, 'both claims', 20_000);
    const amyTask = owners.find((x) => x.owner === 'amy')!;
    const bobTask = owners.find((x) => x.owner === 'bob')!;
    expect(amyTask.holder).toEqual({ pid: amy.child.pid, start: processStartTime(amy.child.pid!) });
    expect(bobTask.holder).toEqual({ pid: shell.child.pid, start: processStartTime(shell.child.pid!) });
    // The CLI processes are long gone: nothing is stale while the holders live.
    expect(JSON.parse((await cliProcess(['task', 'release', '--stale', '--json', '--team-dir', t.dir])).out)).toMatchObject({ released: [] });
    shell.child.kill('SIGKILL');
    await shell.exit;
    const r = JSON.parse((await cliProcess(['task', 'release', '--stale', '--json', '--team-dir', t.dir])).out) as { released: Array<{ id: string }> };
    expect(r.released.map((x) => x.id)).toEqual([bobTask.id]);
    amy.child.kill('SIGKILL');
    await amy.exit;
    const r2 = JSON.parse((await cliProcess(['task', 'release', '--stale', '--json', '--team-dir', t.dir])).out) as { released: Array<{ id: string }> };
    expect(r2.released.map((x) => x.id)).toEqual([amyTask.id]);
  });
});
