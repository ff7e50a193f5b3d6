// The screen's first frame: it waits (a moment at most) for the panes' first output, so it shows
// what they printed rather than empty panes and a second frame; a pane that prints nothing does not
// hold the screen back; and teamux.log says where start-up spent its time. The real bin/teamux start
// in a real pty, with real processes in the panes.
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScreen } from '../helpers/screen-pty.js';
import { BIN, tempDir, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** The start-up timeline teamux.log gave: each step's name, time and pages faulted by then, in order. */
function timeline(log: string): Array<{ what: string; at: number; faults: number }> {
  const line = readFileSync(log, 'utf8').split('\n').find((l) => l.includes('start-up (ms since the process began): '));
  if (!line) return [];
  return line.slice(line.indexOf('began): ') + 8).split(', ').map((part) => {
    const m = /^(.+) (\d+) pf (\d+)$/.exec(part);
    if (!m) throw new Error(`a start-up step not as "what MS pf FAULTS": ${part}`);
    return { what: m[1]!, at: Number(m[2]), faults: Number(m[3]) };
  });
}

describe('the first frame', () => {
  it('first-frame.waits-for-the-panes-first-output-and-the-log-says-when', async () => {
    const tmp = tempDir('teamux-first-frame-');
    cleanup.push(tmp.cleanup);
    const layout = path.join(tmp.dir, 'team.yaml');
    const printing = (name: string): string => `{ name: ${name}, role: r, command: [sh, -c, "printf '${name.toUpperCase()}%s\\\\n' -MARK; exec sleep 600"] }`;
    writeFileSync(layout, [
      'name: first',
      `lead: ${printing('lead')}`,
      'teammates:',
      `  - ${printing('amy')}`,
      `  - ${printing('bob')}`,
      // Prints nothing: the first frame must not wait for it beyond its short cap.
      '  - { name: quiet, role: r, command: [sleep, "600"] }',
    ].join('\n') + '\n');
    const started = startScreen(BIN, layout, { cwd: tmp.dir, env: { ...process.env, TEAMUX_TEAM_DIR: '' } as Record<string, string>, cleanups: cleanup });
    await waitFor(() => ['LEAD-MARK', 'AMY-MARK', 'BOB-MARK', ' quiet '].every((s) => started.screen().includes(s)), 'every pane and its output on screen', 30_000);
    const log = path.join(tmp.dir, '.teamux', 'first', 'teamux.log');
    const steps = await waitFor(() => {
      const t = timeline(log);
      return t.some((s) => s.what === 'up') ? t : null;
    }, 'the start-up line in teamux.log', 30_000);
    await started.stop();
    const names = steps.map((s) => s.what);
    // In order, as the screen went through them, each at a time since the process began.
    for (const step of ['code', 'layout', 'team', 'run', 'set up', 'screen', 'first output', 'frame', 'drawn', 'panes', 'up']) expect(names).toContain(step);
    expect(names.indexOf('first output')).toBeLessThan(names.indexOf('frame'));
    expect(names.indexOf('screen')).toBeLessThan(names.indexOf('first output'));
    for (let i = 1; i < steps.length; i++) {
      expect(steps[i]!.at).toBeGreaterThanOrEqual(steps[i - 1]!.at);
      expect(steps[i]!.faults).toBeGreaterThanOrEqual(steps[i - 1]!.faults);
    }
    // Node alone faults in a few thousand pages before any of teamux's code runs.
    expect(steps[0]!.faults).toBeGreaterThan(500);
    // The panes were started with posix_spawn (native/pty-spawn.c, built by npm install), not forkpty.
    expect(readFileSync(log, 'utf8')).toContain('panes start with posix_spawn');
  }, 60_000);
});
