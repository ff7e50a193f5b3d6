/**
 * Node's floor for the start-up benchmark: what any Node multiplexer pays before its first frame,
 * and nothing more. `node node-floor.cjs PANES_JSON COLS ROWS` loads node-pty (teamux's own), starts
 * each pane's argv in a pty of its quarter of the screen, and once every pane has printed, writes one
 * frame: each pane's title (" N name ", as teamux draws it) and its first output, in a 2x2 grid. No
 * layout file, team folder, emulator or sidebar: the gap between this and `teamux start` is what
 * teamux itself costs, and the gap between this and tmux is Node's (its start-up, and node-pty).
 * CommonJS, so no ES module loader starts either. SIGTERM ends the panes and the process.
 */
'use strict';
const path = require('node:path');
const pty = require(path.join(__dirname, '..', '..', 'node_modules', 'node-pty'));

const panes = JSON.parse(process.argv[2]);
const cols = Number(process.argv[3]);
const rows = Number(process.argv[4]);
const half = { cols: Math.max(2, Math.floor(cols / 2)), rows: Math.max(2, Math.floor(rows / 2)) };
const printed = new Map();
const terms = panes.map((p, i) => {
  const term = pty.spawn(p.argv[0], p.argv.slice(1), { name: 'xterm-256color', cols: half.cols, rows: half.rows - 1, cwd: process.cwd(), env: process.env });
  term.onData((data) => {
    printed.set(i, (printed.get(i) ?? '') + data);
    if (printed.size === panes.length) frame();
  });
  return term;
});

let drawn = false;
function frame() {
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
}

process.on('SIGTERM', () => {
  for (const t of terms) t.kill('SIGKILL');
  process.stdout.write('\x1b[?1049l');
  process.exit(0);
});
