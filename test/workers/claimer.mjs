// A real child process that claims ready tasks until none is left, printing each id it won. With a
// GO_FILE argument it prints "ready" once set up and waits for that file, so racers start together.
import { existsSync } from 'node:fs';
import { TeamStore } from '../../dist/store/team.js';

const [dir, name, go] = process.argv.slice(2);
const opened = await TeamStore.open(dir, name);
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
}
process.stdout.write(JSON.stringify({ name, won, ms: performance.now() - started }) + '\n');
