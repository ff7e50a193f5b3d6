// A real child process that starts one pane through the node-pty host (dist/host/pty.js) and prints,
// as one JSON line, how it was started and what the pane's process reported about itself: its session
// and controlling terminal, the terminal's settings and size, its folder, its open descriptors, its
// blocked and ignored signals, which
// program the member's PATH found, and whether ^C from the terminal reached it. Run it with and
// without TEAMUX_SPAWN=forkpty to compare posix_spawn with node-pty's forkpty.
//   node pane-probe.mjs BIN_DIR CWD [PROGRAM]
import { PtyHost } from '../../dist/host/pty.js';
import { spawnMethod } from '../../dist/host/pty-spawn.js';

const [binDir, cwd, program] = process.argv.slice(2);
const probe = [
  // /proc/PID/stat: field 6 is the session, 7 the terminal, 8 its foreground process group
  'set -- $(sed "s/^.*) //" /proc/$$/stat); echo "session-leader=$([ "$4" = $$ ] && echo yes) ctty=$([ "$5" != 0 ] && echo yes) foreground=$([ "$6" = $$ ] && echo yes)"',
  'echo "stty=$(stty -g)"',
  'echo "size=$(stty size)"',
  'echo "cwd=$(pwd)"',
  'echo "fds=$(ls /proc/$$/fd | sort -n | tr "\\n" " ")"',
  'echo "found=$(command -v probe-tool)"',
  'echo "tty-open=$(echo x > /dev/tty && echo yes)"',
  // blocked and ignored signals, as the kernel has them for this process
  'echo "signals=$(grep -E "^Sig(Blk|Ign):" /proc/$$/status | tr -s " \\t" " " | tr "\\n" " ")"',
  'trap "echo got-sigint; exit 7" INT',
  'echo ready',
  'while :; do sleep 0.05; done',
].join('\n');
const host = new PtyHost();
const pane = await host.spawn({ id: 'probe', command: program ?? 'sh', args: program ? [] : ['-c', probe], cols: 91, rows: 37, cwd, env: { PATH: `${binDir}:/usr/bin:/bin`, HOME: cwd } });
let out = '';
pane.onData((d) => {
  out += d;
  if (out.includes('ready') && !out.includes('^C')) setTimeout(() => pane.write('\x03'), 50);
});
const exit = await new Promise((resolve) => pane.onExit(resolve));
await host.dispose();
process.stdout.write(JSON.stringify({ method: spawnMethod(), out: out.replace(/\r/g, ''), exit }) + '\n');
