// Interop: a claimer written in Python from docs/protocol.md alone races teamux's own claimers (real
// processes on both sides) over one board. Every task is claimed exactly once, by the one the file
// names as owner, in a single write (revision 2), with one task_claimed event each.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTeam, REPO, waitFor } from '../helpers/team.js';

let cleanup: (() => void) | undefined;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  cleanup?.();
});

function run(program: string, args: string[]): { out: () => string; done: Promise<{ code: number | null; out: string; err: string }> } {
  const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  return { out: () => out, done };
}

const node = ['n0', 'n1', 'n2'];
const python = ['p0', 'p1', 'p2'];

describe('interop', () => {
  it('interop.python-claimers-from-the-doc-race-teamux-claimers-with-no-double-claim', async () => {
    const t = await makeTeam([...node, ...python]);
    cleanup = t.cleanup;
    // Independent tasks, and a chain whose later links only become ready through completion: the
    // Python side must respect blockedBy too (blocked tasks are never claimed by anyone).
    for (let i = 0; i < 400; i++) await t.store.tasks.create({ subject: `task ${i}` });
    const gate = await t.store.tasks.create({ subject: 'gate' });
    if (!gate.ok) throw new Error(gate.message);
    const blocked = await t.store.tasks.create({ subject: 'blocked by gate', blockedBy: [gate.value.id] });
    if (!blocked.ok) throw new Error(blocked.message);
    const go = path.join(path.dirname(t.dir), 'go');
    const racers = [
      ...node.map((n) => ({ name: n, ...run(process.execPath, [path.join(REPO, 'test', 'workers', 'claimer.mjs'), t.dir, n, go]) })),
      ...python.map((n) => ({ name: n, ...run('python3', [path.join(REPO, 'test', 'workers', 'claimer.py'), t.dir, n, go]) })),
    ];
    await waitFor(() => racers.every((r) => r.out().startsWith('ready\n')), 'every claimer to be ready', 60_000);
    writeFileSync(go, '');
    const results = await Promise.all(racers.map(async (r) => {
      const res = await r.done;
      expect(res.code, `${r.name}: ${res.err}`).toBe(0);
      return JSON.parse(res.out.split('\n').filter(Boolean).at(-1)!) as { name: string; won: string[] };
    }));
    const all = results.flatMap((r) => r.won);
    const claimable = 401;
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(claimable);
    expect(all).not.toContain(blocked.value.id);
    const board = await t.store.tasks.snapshot();
    expect(board.problems).toEqual([]);
    for (const r of results) for (const id of r.won) expect(board.index.get(id)!.owner, `task ${id}`).toBe(r.name);
    for (const task of board.tasks.filter((x) => x.id !== blocked.value.id)) {
      expect(task).toMatchObject({ status: 'in_progress', revision: task.id === gate.value.id ? 3 : 2 });
    }
    const { events, problems } = await t.store.events.read();
    expect(problems).toEqual([]);
    const claims = events.filter((e) => e.type === 'task_claimed');
    expect(claims).toHaveLength(claimable);
    // Both sides took part in the race.
    const byPython = results.filter((r) => python.includes(r.name)).reduce((n, r) => n + r.won.length, 0);
    const byNode = claimable - byPython;
    process.stdout.write(`interop race: ${byNode} tasks claimed by teamux claimers, ${byPython} by Python claimers, 0 double claims\n`);
    expect(byPython).toBeGreaterThan(0);
    expect(byNode).toBeGreaterThan(0);
  }, 120_000);
});
