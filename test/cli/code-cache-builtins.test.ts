// Node's own modules and the screen's V8 flag (src/cli/code-cache.ts, SCREEN_BUILTINS): once a V8 flag
// changes at run time, V8 refuses the code cache Node ships for its built-in modules, so every one
// loaded after the change is compiled from source. The bundled screen loads the ones it needs first:
// a real `teamux start` in a real pty, traced by a --require hook, loads none between the change and
// the screen's `up` (a module added to the start path later shows up here, to be added to the list).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, REPO, tempDir, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const TRACE = path.join(REPO, 'test', 'fixtures', 'cli', 'trace-builtins.cjs');

interface Trace {
  flags: string[];
  up: boolean;
  after: string[];
}

/** Run the bundled `teamux start` on `layout` with the hook until it is up; what the hook saw. */
async function traceStart(dir: string, layout: string, env: Record<string, string>): Promise<Trace> {
  const out = path.join(dir, `trace-${Math.random().toString(36).slice(2)}.json`);
  const child = pty.spawn(process.execPath, ['--require', TRACE, BIN, 'start', layout], { cols: 120, rows: 30, cwd: dir, env: { ...(process.env as Record<string, string>), TERM: 'xterm-256color', TEAMUX_TEAM_DIR: '', XDG_CACHE_HOME: path.join(dir, 'cache'), TRACE_BUILTINS_OUT: out, ...env } });
  let exited = false;
  child.onData((d) => {
    if (d.includes('\x1b[c')) child.write('\x1b[?62;22c');
  });
  child.onExit(() => (exited = true));
  cleanup.push(() => {
    if (!exited) child.kill('SIGKILL');
  });
  await waitFor(() => existsSync(out), 'the screen up (the trace written)', 30_000);
  child.kill('SIGTERM');
  await waitFor(() => exited, 'teamux to end on SIGTERM', 15_000);
  return JSON.parse(readFileSync(out, 'utf8')) as Trace;
}

describe("the screen's built-in modules", () => {
  it('code-cache-builtins.none-is-compiled-after-the-v8-flag-changes', async () => {
    const tmp = tempDir('teamux-builtins-');
    cleanup.push(tmp.cleanup);
    const layout = path.join(tmp.dir, 'team.yaml');
    writeFileSync(layout, `name: builtins\nlead: { name: lead, role: r, command: [sh, -c, "exec sleep 600"] }\nteammates:\n  - { name: amy, role: r, command: [sh, -c, "exec sleep 600"] }\n`);
    // Twice: without a code cache (it is written), and with it.
    for (const run of ['first', 'cached']) {
      const trace = await traceStart(tmp.dir, layout, {});
      // (Set again, to the same value, by the CLI's main(): no change.)
      expect([...new Set(trace.flags)], run).toEqual(['--semi-space-growth-factor=1']);
      expect(trace.up).toBe(true);
      // Internal parts follow their public module; a Node upgrade may move those around.
      expect(trace.after.filter((m) => !m.startsWith('internal/')), `${run}: load these in SCREEN_BUILTINS (src/cli/code-cache.ts)`).toEqual([]);
    }
    // The flag left as V8 has it: nothing is changed, so there is nothing to load first.
    const grow = await traceStart(tmp.dir, layout, { TEAMUX_YOUNG_GEN: 'grow' });
    expect(grow.flags).toEqual([]);
  }, 120_000);
});
