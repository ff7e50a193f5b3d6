// A real child process that reassigns task ID COUNT times through the store, to each of the member
// names in turn (a hand-over to the current owner is refused and skipped), printing one JSON line:
// how many hand-overs it made. With REASSIGN_UNTIL=FILE it goes on past COUNT until FILE exists (50 x
// COUNT at most): the watcher makes it once it has seen the task change hands, so that a watcher
// starved of CPU on a loaded machine still sees hand-overs happen.
import { existsSync } from 'node:fs';
import { TeamStore } from '../../dist/store/team.js';

const [dir, id, count, ...names] = process.argv.slice(2);
const opened = await TeamStore.open(dir, 'reassigner');
if (!opened.ok) throw new Error(opened.error.message);
const store = opened.store;
let done = 0;
let skipped = 0;
const until = process.env.REASSIGN_UNTIL;
for (let i = 0; i < Number(count) || (until && !existsSync(until) && i < Number(count) * 50); i++) {
  const r = await store.reassign('lead', id, names[i % names.length], `round ${i}`);
  if (r.ok) done++;
  else if (r.reason === 'invalid_input') skipped++;
  else throw new Error(`${r.reason}: ${r.message}`);
}
process.stdout.write(JSON.stringify({ done, skipped }) + '\n');
