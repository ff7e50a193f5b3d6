// The screen's young generation (cli/screen-heap.ts): in a real child process that allocates as a
// start-up does (many objects that survive their first scavenges), V8's new space stays at its
// initial size once the screen verb set the flag, and grows as by default for other verbs or with
// TEAMUX_YOUNG_GEN=grow.
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/team.js';

const MODULE = pathToFileURL(path.join(REPO, 'dist', 'cli', 'screen-heap.js')).href;

/** New space (MiB) after a surviving-heavy allocation, in a fresh process that called keepYoungGenerationSmall(verb, env). */
function newSpaceAfter(verb: string, env: Record<string, string>): Promise<{ set: boolean; mib: number }> {
  const script = `
    const { keepYoungGenerationSmall } = await import(${JSON.stringify(MODULE)});
    const set = keepYoungGenerationSmall(${JSON.stringify(verb)}, ${JSON.stringify(env)});
    const v8 = await import('node:v8');
    let keep = [];
    for (let i = 0; i < 2e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 3e5) keep = []; }
    const ns = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    console.log(JSON.stringify({ set, mib: ns.space_size / 2 ** 20 }));`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))));
  });
}

describe('screen heap', () => {
  it('screen-heap.start-keeps-the-new-space-at-its-initial-size', async () => {
    const start = await newSpaceAfter('start', {});
    expect(start.set).toBe(true);
    expect(start.mib).toBeLessThanOrEqual(4);
    const attach = await newSpaceAfter('attach', {});
    expect(attach).toMatchObject({ set: true });
    expect(attach.mib).toBeLessThanOrEqual(4);
  }, 60_000);

  it('screen-heap.other-verbs-and-grow-keep-v8s-default', async () => {
    const task = await newSpaceAfter('task', {});
    expect(task.set).toBe(false);
    // The same work grows V8's default new space well past the initial size: the flag is what differs.
    expect(task.mib).toBeGreaterThan(4);
    const grow = await newSpaceAfter('start', { TEAMUX_YOUNG_GEN: 'grow' });
    expect(grow.set).toBe(false);
    expect(grow.mib).toBeGreaterThan(4);
  }, 60_000);
});
