// A real child process that sends COUNT numbered messages to one inbox, printing each id once the
// append has returned (an acknowledgement). With LOOP it keeps going until killed.
import { TeamStore } from '../../dist/store/team.js';

const [dir, from, to, countArg, mode] = process.argv.slice(2);
const opened = await TeamStore.open(dir, from);
if (!opened.ok) throw new Error(opened.error.message);
const store = opened.store;
const count = Number(countArg);
for (let i = 0; mode === 'loop' || i < count; i++) {
  const r = await store.send({ from, to, type: 'message', text: `${from}:${i}`, payload: { seq: i, pad: 'x'.repeat(i % 7 === 0 ? 3000 : 20) } });
  if (!r.ok) throw new Error(r.message);
  if (mode === 'loop') process.stdout.write(`ack msg ${r.value.id}\n`);
}
if (mode !== 'loop') process.stdout.write('done\n');
