// A real teamux multiplexer that first asks its terminal for colours and cell size, as `teamux start`
// does (learnOuterTerminal with a layout theme), then runs a lead that asks its own pane the same
// queries and writes the answers to a file. argv[2] is a team folder, argv[3] the answers file.
// Used by test/ui/outer-query.test.ts: the test plays the outer terminal.
import { Multiplexer } from '../../dist/app/multiplexer.js';
import { PtyHost } from '../../dist/host/pty.js';
import { buildKeyTable } from '../../dist/keys/keymap.js';
import { defaultBindings } from '../../dist/app/actions.js';
import { TeamStore } from '../../dist/store/team.js';
import { learnOuterTerminal } from '../../dist/ui/outer-query.js';

const [dir, answers] = process.argv.slice(2);
const opened = await TeamStore.open(dir, 'mux');
if (!opened.ok) throw new Error(opened.error.message);
const store = opened.store;
const keys = buildKeyTable('C-a', {}, defaultBindings());
if (!keys.ok) throw new Error(keys.message);
await learnOuterTerminal({ input: process.stdin, output: process.stdout }, { cursor: '#ff0000', background: '#000000' });
// the lead asks OSC 10/11/12 and CSI 16 t, then DA1 (the end of the answers), and records them
const ask = [
  'import os, sys, tty, select',
  'fd = os.open("/dev/tty", os.O_RDWR); tty.setraw(fd)',
  'os.write(fd, b"\\x1b]10;?\\x1b\\\\\\x1b]11;?\\x1b\\\\\\x1b]12;?\\x1b\\\\\\x1b[16t\\x1b[c")',
  'buf = b""',
  'while not buf.endswith(b"c") and select.select([fd], [], [], 10)[0]: buf += os.read(fd, 100)',
  `open(${JSON.stringify(answers)}, "wb").write(buf)`,
  'select.select([fd], [], [], 60)',
].join('\n');
const mux = new Multiplexer({
  store, host: new PtyHost(), team: 'test', lead: 'lead', layout: 'main-vertical', mainSize: { percent: 50 },
  sidebar: { position: 'right', width: 30, hidden: true, sections: ['task_board', 'mailbox', 'requests'] },
  keys: keys.table, shutdownTimeoutMs: 2_000, demo: false, input: process.stdin, output: process.stdout,
  members: [{ name: 'lead', role: 'lead', isLead: true, command: 'python3', args: ['-c', ask], cwd: store.dir, env: {}, speaksProtocol: false }],
});
process.exitCode = await mux.run();
