// A real child process that creates, claims and completes tasks in a loop until killed, printing an
// acknowledgement line after each operation has returned.
import { TeamStore } from '../../dist/store/team.js';

const [dir, name] = process.argv.slice(2);
const opened = await TeamStore.open(dir, name);
if (!opened.ok) throw new Error(opened.error.message);
const store = opened.store;
for (;;) {
  const c = await store.tasks.create({ subject: `churn by ${name}`, description: 'y'.repeat(500) });
  if (!c.ok) throw new Error(c.message);
  process.stdout.write(`ack created ${c.value.id}\n`);
  const cl = await store.tasks.claim(name, c.value.id);
  if (cl.ok) process.stdout.write(`ack claimed ${c.value.id}\n`);
  const done = await store.tasks.complete(c.value.id, name, 'ok');
  if (done.ok) process.stdout.write(`ack completed ${c.value.id}\n`);
}
