// A real child process caught between writing a temp file and renaming it (as atomicWrite does):
// it writes part of the file under the name atomicWrite would use, prints that name, and waits to
// be killed.
import { writeFileSync } from 'node:fs';
import { tempPathFor } from '../../dist/store/fsx.js';

const [file] = process.argv.slice(2);
const tmp = tempPathFor(file);
writeFileSync(tmp, '{"version":1,"id":"1","subject":"half-writ', { mode: 0o600 });
process.stdout.write(`${tmp}\n`);
setInterval(() => undefined, 60_000);
