// A real child process acting as member NAME: claims COUNT ready tasks with the store (so it holds
// the claims itself), prints their ids as one JSON line, then keeps the member's heartbeat fresh
// until it is killed, as another process acting as the same member would.
import { TeamStore } from '../../dist/store/team.js';

const [dir, name, countArg] = process.argv.slice(2);
const opened = await TeamStore.open(dir, name);
if (!opened.ok) throw new Error(opened.error.message);
const store = opened.store;
const held = [];
for (let i = 0; i < Number(countArg); i++) {
  const r = await store.claim(name);
  if (!r.ok) throw new Error(`${r.reason}: ${r.message}`);
  held.push(r.value.id);
}
process.stdout.write(JSON.stringify({ pid: process.pid, held }) + '\n');
setInterval(() => void store.heartbeat(name), 500);
