// The claimers' shared loop: with a GO_FILE, print "ready" and wait for that file so racers start
// together; then claim ready tasks until none is left, printing "won ID" as each claim is acknowledged
// (when `announce` is set) and a JSON summary line at the end.
import { existsSync } from 'node:fs';

/** Claim until no task is ready; any refusal other than no_ready_task fails the worker. */
export async function claimUntilDone(store, name, go, announce = false) {
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
    if (announce) process.stdout.write(`won ${r.value.id}\n`);
  }
  process.stdout.write(JSON.stringify({ name, won, ms: performance.now() - started }) + '\n');
}
