// The backends every contract test runs against, unchanged: the team folder and NATS JetStream (a
// real nats-server started for the file and stopped after it). `open(who)` opens the same team again
// as a second process would (a new connection for NATS, a new handle for the folder).
import { afterAll, beforeAll } from 'vitest';
import { TeamStore } from '../../../src/store/team.js';
import { makeNatsTeam, NatsServer, openNatsTeam } from '../../helpers/nats.js';
import { makeTeam } from '../../helpers/team.js';

/** A team on one backend. */
export interface ContractTeam {
  store: TeamStore;
  dir: string;
  open(who?: string): Promise<TeamStore>;
  cleanup(): Promise<void>;
}

/** One backend under test. */
export interface Backend {
  name: 'folder' | 'nats';
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
