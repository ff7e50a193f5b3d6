// A real child process that claims ready tasks of a team on a NATS store until none is left, printing
// each id it won as soon as the claim is acknowledged ("won ID"), then a summary line. With a GO_FILE
// argument it prints "ready" once connected and waits for that file, so racers start together.
import { TeamStore } from '../../dist/store/team.js';
import { openNatsBackend } from '../../dist/store/nats/backend.js';
import { claimUntilDone } from './claim-loop.mjs';

const [url, team, dir, name, go] = process.argv.slice(2);
const b = await openNatsBackend(url, team, process.env, name);
if (!b.ok) throw new Error(b.problem.message);
const opened = await TeamStore.openOn(dir, () => b.backend, name);
if (!opened.ok) throw new Error(opened.error.message);
await claimUntilDone(opened.store, name, go, true);
await opened.store.backend.close();
