// A real child process that claims ready tasks until none is left, printing each id it won.
import { TeamStore } from '../../dist/store/team.js';

const [dir, name] = process.argv.slice(2);
const opened = await TeamStore.open(dir, name);
if (!opened.ok) throw new Error(opened.error.message);
const store = opened.store;
const won = [];
const started = performance.now();
for (;;) {
  const r = await store.tasks.claim(name);
  if (!r.ok) {
    if (r.reason === 'no_ready_task') break;
    throw new Error(`${r.reason}: ${r.message}`);
  }
  won.push(r.value.id);
}
process.stdout.write(JSON.stringify({ name, won, ms: performance.now() - started }) + '\n');
