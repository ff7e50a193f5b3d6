// A real child process recording COUNT events as WRITER through the store (dist/), each carrying its
// sequence number, so a reader can check that every one arrives once and in order. It prints "done".
import { TeamStore } from '../../dist/store/team.js';

const [dir, writer, countArg] = process.argv.slice(2);
const opened = await TeamStore.open(dir, writer);
if (!opened.ok) throw new Error(opened.error.message);
for (let i = 0; i < Number(countArg); i++) {
  await opened.store.events.record('message_sent', { from: writer, to: 'lead', messageType: 'message', excerpt: `${writer} ${i} ${'x'.repeat(40)}`, writer, seq: i });
  opened.store.log.info(`${writer} wrote event ${i}`);
}
process.stdout.write('done\n');
