// The backends every contract test runs against, unchanged: the team folder, the team folder with
// every member's claim (TeamStore.claim) made by `teamux task claim --json` through its short path
// (cli/task-claim-fast.ts; a claim it hands to the full verb fails the test, except for a name not on
// the roster), and NATS
// JetStream (a real nats-server started for the file and stopped after it). `open(who)` opens the
// same team again as a second process would (a new connection for NATS, a new handle for the folder).
import { afterAll, beforeAll } from 'vitest';
import { taskClaimFast } from '../../../src/cli/task-claim-fast.js';
import { accept, refuse, type Outcome, type RefusalReason, type Task } from '../../../src/protocol/types.js';
import { TeamStore } from '../../../src/store/team.js';
import { makeNatsTeam, NatsServer, openNatsTeam } from '../../helpers/nats.js';
import { cli, makeTeam } from '../../helpers/team.js';

/** A team on one backend. */
export interface ContractTeam {
  store: TeamStore;
  dir: string;
  open(who?: string): Promise<TeamStore>;
  cleanup(): Promise<void>;
}

/** One backend under test. */
export interface Backend {
  name: 'folder' | 'folder-cli' | 'nats';
  make(names: string[]): Promise<ContractTeam>;
}

/** Both backends; the NATS server lives from beforeAll to afterAll of the calling file. */
export function contractBackends(): Backend[] {
  let server: (NatsServer & { cleanup: () => Promise<void> }) | null = null;
  beforeAll(async () => {
    server = await NatsServer.start();
  }, 60_000);
  afterAll(async () => {
    await server?.cleanup();
  });
  const extra: TeamStore[] = [];
  return [
    {
      name: 'folder',
      async make(names) {
        const t = await makeTeam(names);
        return {
          store: t.store,
          dir: t.dir,
          async open(who = 'test') {
            const r = await TeamStore.open(t.dir, who);
            if (!r.ok) throw new Error(r.error.message);
            return r.store;
          },
          cleanup: t.cleanup,
        };
      },
    },
    {
      name: 'folder-cli',
      async make(names) {
        const t = await makeTeam(names);
        return {
          store: claimingThroughCli(t.store),
          dir: t.dir,
          async open(who = 'test') {
            const r = await TeamStore.open(t.dir, who);
            if (!r.ok) throw new Error(r.error.message);
            return claimingThroughCli(r.store);
          },
          cleanup: t.cleanup,
        };
      },
    },
    {
      name: 'nats',
      async make(names) {
        const t = await makeNatsTeam(server!.url, names);
        return {
          store: t.store,
          dir: t.dir,
          async open(who = 'test') {
            const s = await openNatsTeam(server!.url, t.team, t.dir, who);
            extra.push(s);
            return s;
          },
          async cleanup() {
            for (const s of extra.splice(0)) await s.backend.close();
            await t.cleanup();
          },
        };
      },
    },
  ];
}

/** `teamux task claim [ID] --as BY --json` as an Outcome: its short path must take every claim by a member on the roster. */
async function cliClaim(dir: string, by: string, id?: string): Promise<Outcome<Task>> {
  const argv = [...(id === undefined ? [] : [id]), '--as', by, '--team-dir', dir, '--json'];
  let out = '';
  const ctx = { out: (t: string) => { out += t; }, err: () => undefined, env: {}, cwd: dir };
  let code = await taskClaimFast(argv, ctx);
  if (code === null) {
    const full = await cli(['task', 'claim', ...argv], {}, dir);
    if (!/"reason":"unknown_member"/.test(full.out)) throw new Error(`the short path of task claim handed ${argv.join(' ')} to the full verb: ${full.out}`);
    [code, out] = [full.code, full.out];
  }
  const r = JSON.parse(out) as { ok: boolean; reason?: RefusalReason; message?: string } & Record<string, unknown>;
  if (r.ok !== (code === 0)) throw new Error(`exit code ${code} with ${out}`);
  if (!r.ok) return refuse(r.reason!, r.message!);
  const { ok: _ok, ...task } = r;
  return accept(task as unknown as Task);
}

/**
 * The store with its member claims (TeamStore.claim, what the CLI verb does) made through the CLI.
 * TaskBoard.claim stays in-process: it is the board's own step, without the member's holder and status.
 */
function claimingThroughCli(store: TeamStore): TeamStore {
  return new Proxy(store, {
    get: (target, key, receiver) => {
      if (key === 'claim') return (by: string, id?: string) => cliClaim(store.dir, by, id);
      const v = Reflect.get(target, key, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
