// A real child process that claims ready tasks of a team on a NATS store until none is left, printing
// each id it won as soon as the claim is acknowledged ("won ID"), then a summary line. With a GO_FILE
// argument it prints "ready" once connected and waits for that file, so racers start together.
import { existsSync } from 'node:fs';
import { TeamStore } from '../../dist/store/team.js';
import { openNatsBackend } from '../../dist/store/nats/backend.js';

const [url, team, dir, name, go] = process.argv.slice(2);
const b = await openNatsBackend(url, team, process.env, name);
if (!b.ok) throw new Error(b.problem.message);
const opened = await TeamStore.openOn(dir, () => b.backend, name);
if (!opened.ok) throw new Error(opened.error.message);
const store = opened.store;
if (go) {
  process.stdout.write('ready\n');
  while (!existsSync(go)) await new Promise((r) => setTimeout(r, 5));
}
const won = [];
const started = performance.now();
for (;;) {
  const r = await store.tasks.claim(name);
  if (!r.ok) {
    if (r.reason === 'no_ready_task') break;
    throw new Error(`${r.reason}: ${r.message}`);
  }
  won.push(r.value.id);
  process.stdout.write(`won ${r.value.id}\n`);
}
process.stdout.write(JSON.stringify({ name, won, ms: performance.now() - started }) + '\n');
await store.backend.close();
