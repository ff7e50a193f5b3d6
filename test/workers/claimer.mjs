// A real child process that claims ready tasks until none is left, printing each id it won. With a
// GO_FILE argument it prints "ready" once set up and waits for that file, so racers start together.
import { TeamStore } from '../../dist/store/team.js';
import { claimUntilDone } from './claim-loop.mjs';

const [dir, name, go] = process.argv.slice(2);
const opened = await TeamStore.open(dir, name);
if (!opened.ok) throw new Error(opened.error.message);
await claimUntilDone(opened.store, name, go);
