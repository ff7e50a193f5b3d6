// `teamux start` asks the outer terminal its colours while the run is being set up and takes the
// answer just before the screen opens (cli/start.ts): a program in a pane that asks OSC 11 gets the
// background the outer terminal reported. Real processes: teamux in a node-pty that plays the outer
// terminal, and a node program in the pane.
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, tempDir, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('start and the outer terminal', () => {
  it('start.a-pane-gets-the-outer-terminals-background', async () => {
    const tmp = tempDir('teamux-start-outer-');
    cleanup.push(tmp.cleanup);
    const asker = path.join(tmp.dir, 'ask.cjs');
    // Ask OSC 11 once, then show the reply with its control characters as dots.
    writeFileSync(asker, `process.stdin.setRawMode(true); let got = ''; process.stdin.on('data', (d) => { got += d; if (/\\x07|\\x1b\\\\/.test(got)) process.stdout.write('BG=' + got.replace(/[\\x00-\\x1f]/g, '.') + '\\n'); }); process.stdout.write('\\x1b]11;?\\x1b\\\\');\n`);
    const layout = path.join(tmp.dir, 'team.yaml');
    writeFileSync(layout, `name: outer\nlead: { name: lead, role: r, command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(asker)}] }\n`);
    const term = pty.spawn(process.execPath, [BIN, 'start', layout], { cols: 120, rows: 30, cwd: tmp.dir, env: { ...process.env, TEAMUX_TEAM_DIR: '', TERM: 'xterm-256color' } as Record<string, string> });
    let screen = '';
    let exited: number | null = null;
    let asked = false;
    term.onData((d) => {
      screen += d;
      // The outer terminal: a background colour for OSC 11, nothing for the rest, then DA1.
      if (!asked && screen.includes('\x1b]11;?')) {
        asked = true;
        term.write('\x1b]11;rgb:1212/3434/5656\x1b\\\x1b[?62;22c');
      }
    });
    term.onExit(({ exitCode }) => (exited = exitCode));
    cleanup.push(() => {
      if (exited === null) term.kill('SIGKILL');
    });
    await waitFor(() => /BG=.\]11;rgb:1212\/3434\/5656/.test(screen), `the pane's OSC 11 answer; so far: ${JSON.stringify(screen.slice(-400))}`, 30_000);
    term.kill('SIGTERM');
    await waitFor(() => exited !== null, 'teamux to end on SIGTERM', 15_000);
  }, 120_000);
});
