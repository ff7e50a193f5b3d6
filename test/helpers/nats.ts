// Test helpers for the JetStream store: a real nats-server with JetStream on 127.0.0.1, on a free
// port, with its own temporary store folder, started and stopped by the test (restartable in place,
// so file storage can be shown to survive a restart). And a team opened on it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { openNatsBackend } from '../../src/store/nats/backend.js';
import { TeamStore } from '../../src/store/team.js';
import { initTeamOn } from '../../src/store/nats/init.js';
import { members, tempDir, waitFor } from './team.js';
import type { MemberSpec } from '../../src/store/init.js';

export const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A running nats-server; `stop()` waits for it to exit, `start()` brings it back on the same port and folder. */
export class NatsServer {
  private child: ChildProcess | null = null;
  private log = '';

  private constructor(readonly port: number, readonly storeDir: string, private readonly extra: string[]) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Start a server with JetStream (`extra`: more flags, e.g. --user/--pass; `js: false` for none). */
  static async start(opts: { extra?: string[]; js?: boolean } = {}): Promise<NatsServer & { cleanup: () => Promise<void> }> {
    const tmp = tempDir('teamux-nats-');
    const server = new NatsServer(await freePort(), path.join(tmp.dir, 'js'), [...(opts.js === false ? [] : ['-js', '-sd', path.join(tmp.dir, 'js')]), ...(opts.extra ?? [])]);
    await server.start();
    return Object.assign(server, { cleanup: async () => { await server.stop(); await tmp.cleanup(); } });
  }

  async start(): Promise<void> {
    this.log = '';
    const child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(this.port), ...this.extra], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout!.on('data', (d: Buffer) => { this.log += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { this.log += d.toString(); });
    await waitFor(() => /Server is ready/.test(this.log) || child.exitCode !== null, 'nats-server to be ready', 30_000);
    if (child.exitCode !== null) throw new Error(`nats-server exited: ${this.log}`);
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill(signal);
    await exited;
    this.child = null;
  }
}

/** A team named `team` on the server, with a local folder of its own; returns the store and the folder. */
export async function makeNatsTeam(url: string, names: string[], opts: { team?: string; spec?: Partial<MemberSpec> } = {}): Promise<{ store: TeamStore; dir: string; team: string; cleanup: () => Promise<void> }> {
  const tmp = tempDir();
  const team = opts.team ?? `t${Math.random().toString(36).slice(2, 10)}`;
  const dir = path.join(tmp.dir, '.teamux', team);
  const { store } = await initTeamOn(url, process.env, dir, { name: team, root: tmp.dir, layoutFile: null, members: members(names, opts.spec), seedTasks: [] });
  return { store, dir, team, cleanup: async () => { await store.backend.close(); await tmp.cleanup(); } };
}

/** Open an existing team on the server as another process would. */
export async function openNatsTeam(url: string, team: string, dir: string, who = 'test'): Promise<TeamStore> {
  const b = await openNatsBackend(url, team, process.env, who);
  if (!b.ok) throw new Error(b.problem.message);
  const opened = await TeamStore.openOn(dir, () => b.backend, who);
  if (!opened.ok) throw new Error(opened.error.message);
  return opened.store;
}
