// Defect 6: an action that fails (a lock timeout in approve or broadcast) reaches the status line and
// teamux.log and never becomes an unhandled rejection; a start-up failure still restores the terminal.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { LockBusyError } from '../../src/store/lock.js';
import { RESTORE_MODES } from '../../src/ui/terminal-guard.js';
import { makeTeam, waitFor } from '../helpers/team.js';
import { startMux, type MuxHarness } from '../helpers/mux.js';

const cleanups: Array<() => void | Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function team(names: string[] = ['alice']) {
  const t = await makeTeam(names);
  cleanups.push(t.cleanup);
  return t;
}

async function running(store: Awaited<ReturnType<typeof team>>['store'], opts = {}): Promise<MuxHarness> {
  const h = await startMux(store, opts);
  cleanups.push(() => h.stop());
  return h;
}

describe('actions that fail report and keep the screen', () => {
  it('mux.broadcast-lock-timeout-goes-to-status-and-log', async () => {
    const { store } = await team();
    const h = await running(store);
    store.broadcast = async () => {
      throw new LockBusyError('inboxes/alice.jsonl');
    };
    h.prefix('b');
    await h.see('broadcast:');
    h.type('hello team\r');
    await h.see(/broadcast failed: .*locked by another process/);
    expect(readFileSync(store.paths.log, 'utf8')).toMatch(/broadcast failed: .*locked by another process/);
    // The screen still works: the next key is handled.
    h.prefix('?');
    await h.see('teamux keys');
  });

  it('mux.approve-lock-timeout-goes-to-status-and-log', async () => {
    const { store } = await team();
    const opened = await store.openRequest('plan_approval', 'alice', 'lead', 'my plan');
    expect(opened.ok).toBe(true);
    const h = await running(store);
    await h.see(/plan alice/);
    store.answerRequest = async () => {
      throw new LockBusyError('requests');
    };
    h.prefix('a');
    await h.see(/approve failed: .*locked by another process/);
    expect(readFileSync(store.paths.log, 'utf8')).toMatch(/approve failed/);
  });

  it('mux.reject-failure-after-the-prompt-is-reported', async () => {
    const { store } = await team();
    await store.openRequest('plan_approval', 'alice', 'lead', 'my plan');
    const h = await running(store);
    await h.see(/plan alice/);
    store.answerRequest = async () => {
      throw new Error('disk full');
    };
    h.prefix('r');
    await h.see('feedback:');
    h.type('add tests\r');
    await h.see(/reject .*failed: disk full/);
  });
});

describe('start-up failures restore the terminal', () => {
  it('mux.startup-failure-restores-and-says-why', async () => {
    const { store } = await team();
    // A file where the spawn folder should be: watching spawn requests fails during start-up.
    rmSync(store.paths.spawns, { recursive: true, force: true });
    writeFileSync(store.paths.spawns, 'not a folder');
    const h = await startMux(store, { spawnLaunch: () => ({ error: 'unused' }) });
    const code = await waitFor(() => Promise.race([h.exit, new Promise<null>((r) => setTimeout(() => r(null), 50))]), 'the multiplexer to give up');
    expect(code).toBe(1);
    expect(h.tty.input.isRaw).toBe(false);
    expect(h.tty.raw).toContain(RESTORE_MODES);
    expect(h.tty.raw.slice(h.tty.raw.lastIndexOf(RESTORE_MODES))).toMatch(/could not start: .*\n {2}hint: see .*teamux\.log/);
    expect(readFileSync(store.paths.log, 'utf8')).toMatch(/start-up failed/);
    // Every pane's process was told to go.
    expect(h.host.disposed).toEqual({ kill: true });
  });
});
