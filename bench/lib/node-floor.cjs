/**
 * Node's floor for the benchmarks: what any multiplexer written for Node pays, and nothing more. Two
 * modes, each in an outer terminal like the multiplexers it is compared with:
 *
 * - `node node-floor.cjs frame PANES_JSON COLS ROWS` (start-up): loads node-pty (teamux's own),
 *   starts each pane's argv in a pty of its quarter of the screen, and once every pane has printed,
 *   writes one frame: each pane's title (" N name ", as teamux draws it) and its first output, in a
 *   2x2 grid. No layout file, team folder, emulator or sidebar.
 * - `node node-floor.cjs relay ARGV_JSON` (keystroke echo): runs the argv in a pty of the outer
 *   terminal's size, passes the terminal's raw input to it and its output straight back. No parser,
 *   no frame.
 *
 * The gap between the floor and teamux is what teamux itself costs; the gap between the floor and
 * tmux is Node's (its start-up, its event loop and streams, node-pty). CommonJS, so no ES module
 * loader starts either. SIGTERM ends the panes and the process.
 */
'use strict';
const path = require('node:path');
const pty = require(path.join(__dirname, '..', '..', 'node_modules', 'node-pty'));

const terms = [];
const [mode, ...args] = process.argv.slice(2);
if (mode === 'frame') frameMode(JSON.parse(args[0]), Number(args[1]), Number(args[2]));
else if (mode === 'relay') relayMode(JSON.parse(args[0]));
else {
  process.stderr.write('usage: node node-floor.cjs frame PANES_JSON COLS ROWS | relay ARGV_JSON\n');
  process.exit(2);
}

function frameMode(panes, cols, rows) {
  const half = { cols: Math.max(2, Math.floor(cols / 2)), rows: Math.max(2, Math.floor(rows / 2)) };
  const printed = new Map();
  let drawn = false;
  const frame = () => {
    if (drawn) return;
    drawn = true;
    let out = '\x1b[?1049h\x1b[H\x1b[2J';
    panes.forEach((p, i) => {
      const left = 1 + (i % 2) * half.cols;
      const top = 1 + Math.floor(i / 2) * half.rows;
      const text = printed.get(i).replace(/[\x00-\x1f\x7f]/g, '').slice(0, half.cols);
      out += `\x1b[${top};${left}H ${i + 1} ${p.name} \x1b[${top + 1};${left}H${text}`;
    });
    process.stdout.write(out);
  };
  panes.forEach((p, i) => {
    const term = pty.spawn(p.argv[0], p.argv.slice(1), { name: 'xterm-256color', cols: half.cols, rows: half.rows - 1, cwd: process.cwd(), env: process.env });
    term.onData((data) => {
      printed.set(i, (printed.get(i) ?? '') + data);
      if (printed.size === panes.length) frame();
    });
    terms.push(term);
  });
}

function relayMode(argv) {
  const term = pty.spawn(argv[0], argv.slice(1), { name: 'xterm-256color', cols: process.stdout.columns || 80, rows: process.stdout.rows || 24, cwd: process.cwd(), env: process.env });
  terms.push(term);
  process.stdin.setRawMode(true);
  process.stdin.on('data', (data) => term.write(data.toString('latin1')));
  term.onData((data) => process.stdout.write(data));
}

process.on('SIGTERM', () => {
  for (const t of terms) t.kill('SIGKILL');
  process.stdout.write('\x1b[?1049l');
  process.exit(0);
});
