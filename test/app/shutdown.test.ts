// Closing members in real ptys: a member that does not speak the protocol is hung up on at once (no
// request is opened, no timeout is waited out); one that ignores SIGHUP still goes, by SIGTERM.
import { afterEach, describe, expect, it } from 'vitest';
import { Pane } from '../../src/app/pane.js';
import { hangUp, shutdownHandshake } from '../../src/app/shutdown.js';
import { PtyHost } from '../../src/host/pty.js';
import { makeTeam, waitFor } from '../helpers/team.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function pane(name: string, command: string, args: string[], cwd: string): Promise<Pane> {
  const host = new PtyHost();
  cleanups.push(() => host.dispose({ kill: true }));
  const p = new Pane({ id: name, command, args, cwd, env: { ...process.env, PS1: 'READY$ ' } as Record<string, string>, cols: 80, rows: 24 }, 'r', false, true, 100, () => undefined, () => undefined);
  await p.start(host);
  return p;
}

describe('shutdown', () => {
  it('shutdown.a-shell-that-does-not-speak-the-protocol-is-hung-up-on-without-a-request', async () => {
    const t = await makeTeam(['sh']);
    cleanups.push(t.cleanup);
    const sh = await pane('sh', 'bash', ['--norc', '--noprofile', '-i'], t.dir);
    sh.speaksProtocol = false;
    await waitFor(() => sh.term.snapshotText().join('\n').includes('READY$'), 'the prompt', 10_000);
    const steps: string[] = [];
    const started = Date.now();
    // A 60 s handshake timeout that must not be waited out.
    const outcome = await shutdownHandshake(t.store, 'lead', sh, 60_000, (s) => steps.push(s));
    expect(outcome).toEqual({ kind: 'exited', how: 'hung_up' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(steps).toEqual(['not a protocol member; sending SIGHUP']);
    expect(sh.exit?.signal).toBe('SIGHUP');
    expect((await t.store.requests.list()).requests).toEqual([]);
  });

  it('shutdown.a-process-that-ignores-sighup-is-terminated-after-the-grace-period', async () => {
    const t = await makeTeam(['stubborn']);
    cleanups.push(t.cleanup);
    const p = await pane('stubborn', 'sh', ['-c', 'trap "" HUP; echo TRAPPED; while :; do sleep 0.05; done'], t.dir);
    p.speaksProtocol = false;
    await waitFor(() => p.term.snapshotText().join('\n').includes('TRAPPED'), 'the trap to be set', 10_000);
    const steps: string[] = [];
    const outcome = await hangUp(p, (s) => steps.push(s), 1_000);
    expect(outcome).toEqual({ kind: 'exited', how: 'terminated' });
    expect(steps).toEqual(['not a protocol member; sending SIGHUP', 'still running 1s after SIGHUP', 'sending SIGTERM']);
  });
});
