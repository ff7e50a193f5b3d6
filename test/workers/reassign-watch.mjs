// A real child process that watches one task while others reassign it: it reads the task file as
// fast as it can, counting any moment the task is not in_progress or has no owner, and tries to claim
// it as member NAME each time (every try must be refused). It prints "ready", runs until STOP_FILE
// exists, then prints one JSON line with what it saw. With WATCH_SEEN=FILE it makes FILE once it has
// seen more than one owner (the reassigners go on until then).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { TeamStore } from '../../dist/store/team.js';

const [dir, id, name, stop] = process.argv.slice(2);
const opened = await TeamStore.open(dir, name);
if (!opened.ok) throw new Error(opened.error.message);
const store = opened.store;
const file = path.join(dir, 'tasks', `${id}.json`);
const seen = { reads: 0, ownerless: 0, owners: {}, claims: 0, won: 0, reasons: {} };
process.stdout.write('ready\n');
while (!existsSync(stop)) {
  for (let i = 0; i < 20; i++) {
    const t = JSON.parse(readFileSync(file, 'utf8'));
    seen.reads++;
    if (t.status !== 'in_progress' || t.owner === null) seen.ownerless++;
    seen.owners[t.owner] = (seen.owners[t.owner] ?? 0) + 1;
  }
  if (process.env.WATCH_SEEN && Object.keys(seen.owners).length > 1 && !existsSync(process.env.WATCH_SEEN)) writeFileSync(process.env.WATCH_SEEN, '');
  const r = await store.tasks.claim(name, id);
  seen.claims++;
  if (r.ok) seen.won++;
  else seen.reasons[r.reason] = (seen.reasons[r.reason] ?? 0) + 1;
}
process.stdout.write(JSON.stringify(seen) + '\n');
