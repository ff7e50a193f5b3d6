// The team folder's watch: real files, real inotify. Each change is named, sub-folders made or
// replaced after the start are followed, and on a board of 5,000 task files a task written by
// another process reaches the TeamWatch (a directory-diffing watcher lost it at that size).
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderWatch } from '../../src/store/folder-watch.js';
import { TeamWatch } from '../../src/store/team-watch.js';
import { cliProcess, makeTeam, tempDir, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('folder watch', () => {
  it('watch.names-changes-in-the-root-and-in-sub-folders-made-or-replaced-after-start', async () => {
    const t = tempDir('teamux-fw-');
    cleanup.push(t.cleanup);
    mkdirSync(path.join(t.dir, 'tasks'));
    const seen = new Set<string>();
    const errors: unknown[] = [];
    const w = new FolderWatch(t.dir, ['tasks', 'pipeline'], { change: (f) => seen.add(path.relative(t.dir, f)), error: (e) => errors.push(e) });
    w.start();
    cleanup.push(() => w.close());
    writeFileSync(path.join(t.dir, 'tasks', '1.json'), '{}');
    writeFileSync(path.join(t.dir, 'team.json.tmp'), '{}');
    renameSync(path.join(t.dir, 'team.json.tmp'), path.join(t.dir, 'team.json'));
    await waitFor(() => seen.has('tasks/1.json') && seen.has('team.json'), 'a task file and the renamed team.json', 20_000);
    // A folder that did not exist at the start: a file written right after it was made is reported.
    mkdirSync(path.join(t.dir, 'pipeline'));
    writeFileSync(path.join(t.dir, 'pipeline', 'state.json'), '{}');
    await waitFor(() => seen.has('pipeline/state.json'), 'a file in a folder made after the start', 20_000);
    writeFileSync(path.join(t.dir, 'pipeline', 'settings.json'), '{}');
    await waitFor(() => seen.has('pipeline/settings.json'), 'a later file in that folder', 20_000);
    // The tasks folder replaced by another: the folder itself is reported and the new one watched.
    mkdirSync(path.join(t.dir, 'tasks.new'));
    rmSync(path.join(t.dir, 'tasks'), { recursive: true });
    renameSync(path.join(t.dir, 'tasks.new'), path.join(t.dir, 'tasks'));
    await waitFor(() => seen.has('tasks'), 'the replaced tasks folder', 20_000);
    seen.clear();
    writeFileSync(path.join(t.dir, 'tasks', '2.json'), '{}');
    await waitFor(() => seen.has('tasks/2.json'), 'a file in the replacement tasks folder', 20_000);
    expect(errors).toEqual([]);
    // Closed: nothing more is reported.
    w.close();
    seen.clear();
    writeFileSync(path.join(t.dir, 'tasks', '3.json'), '{}');
    await new Promise((r) => setTimeout(r, 200));
    expect([...seen]).toEqual([]);
  }, 60_000);

  it('watch.a-task-written-by-another-process-reaches-the-team-watch-on-a-board-of-5000', async () => {
    const t = await makeTeam(['amy']);
    cleanup.push(t.cleanup);
    const now = new Date().toISOString();
    const n = 5_000;
    for (let i = 1; i <= n; i++) {
      const task = {
        version: 1, id: String(i), subject: `task ${i}`, description: '', status: 'pending', owner: null, blocks: [], blockedBy: [], revision: 1,
        createdAt: now, updatedAt: now, claimedAt: null, completedAt: null, result: null, holder: null,
      };
      writeFileSync(t.store.paths.task(String(i)), JSON.stringify(task));
    }
    writeFileSync(t.store.paths.highWater, `${n}\n`);
    const tw = new TeamWatch(t.store);
    await tw.start();
    cleanup.push(() => tw.dispose());
    expect(tw.state().board.size).toBe(n);
    for (let k = 1; k <= 3; k++) {
      const r = await cliProcess(['task', 'add', '--team-dir', t.dir, '--subject', `late ${k}`]);
      expect(r.code, r.err).toBe(0);
      await waitFor(() => tw.state().board.get(String(n + k))?.subject === `late ${k}`, `task ${n + k} in the watch`, 30_000);
    }
    expect(tw.state().board.size).toBe(n + 3);
  }, 120_000);
});
