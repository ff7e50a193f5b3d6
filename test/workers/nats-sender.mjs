// A real child process that sends COUNT numbered messages to one inbox of a team on a NATS store,
// printing "ack SEQ ID" once each send is acknowledged by the server, then "done".
import { TeamStore } from '../../dist/store/team.js';
import { openNatsBackend } from '../../dist/store/nats/backend.js';

const [url, team, dir, from, to, countArg] = process.argv.slice(2);
const b = await openNatsBackend(url, team, process.env, from);
if (!b.ok) throw new Error(b.problem.message);
const opened = await TeamStore.openOn(dir, () => b.backend, from);
if (!opened.ok) throw new Error(opened.error.message);
const store = opened.store;
const count = Number(countArg);
process.stdout.write('ready\n');
for (let i = 0; i < count; i++) {
  const r = await store.send({ from, to, type: 'message', text: `${from}:${i}`, payload: { seq: i } });
  if (!r.ok) throw new Error(r.message);
  process.stdout.write(`ack ${i} ${r.value.id}\n`);
}
process.stdout.write('done\n');
await store.backend.close();
