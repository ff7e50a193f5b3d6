// A real teamux multiplexer in a real terminal that then hits a bug (an exception thrown from a timer):
// argv[2] is a team folder. Used by test/app/mux-crash.test.ts to check the terminal comes back sane.
import { Multiplexer } from '../../dist/app/multiplexer.js';
import { PtyHost } from '../../dist/host/pty.js';
import { buildKeyTable } from '../../dist/keys/keymap.js';
import { defaultBindings } from '../../dist/mux/actions.js';
import { TeamStore } from '../../dist/store/team.js';

const opened = await TeamStore.open(process.argv[2], 'mux');
if (!opened.ok) throw new Error(opened.error.message);
const store = opened.store;
const keys = buildKeyTable('C-a', {}, defaultBindings());
if (!keys.ok) throw new Error(keys.message);
// The bug strikes once the screen is up and the member's pid is in the team folder: conditions, polled
// one read at a time. (Reads overlapping under load used to schedule the throw twice; a second throw
// that comes after the screen has quit and removed its handler ends the process with 1, not 70.)
let up = false;
const mux = new Multiplexer({
  store, host: new PtyHost(), team: 'test', lead: 'lead', layout: 'main-vertical', mainSize: { percent: 50 },
  sidebar: { position: 'right', width: 30, hidden: false, sections: ['task_board', 'mailbox', 'requests'] },
  keys: keys.table, shutdownTimeoutMs: 2_000, demo: false, input: process.stdin, output: process.stdout,
  members: [{ name: 'lead', role: 'lead', isLead: true, command: 'sleep', args: ['60'], cwd: store.dir, env: {}, speaksProtocol: false }],
  onScreenUp: () => (up = true),
});
const exit = mux.run();
const started = Date.now();
const ready = async () => {
  const lead = await store.member('lead');
  return up && lead.ok && Boolean(lead.value.pid);
};
// Past the deadline it throws anyway: the test then says what was missing (no pid).
while (!(await ready()) && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 20));
setTimeout(() => {
  throw new Error('a bug in a timer');
}, 50);
process.exitCode = await exit;
