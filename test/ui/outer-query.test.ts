// The outer terminal's colours and cell size (issue 15): teamux asks once at start, panes answer
// their programs with them, the layout's theme fills what the terminal does not say. The pure
// parsing, then a real multiplexer in a real pty with the test playing the outer terminal.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { OUTER_QUERIES, parseOuterReplies, resolveAppearance, themeColors } from '../../src/ui/outer-query.js';
import { makeTeam, REPO, waitFor } from '../helpers/team.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('the replies', () => {
  it('outer-query.picks-colour-size-and-DA1-replies-out-of-typed-keys', () => {
    const r = parseOuterReplies('a\x1b]11;rgb:fdfd/f6f6/e3e3\x07b\x1b]10;#203040\x1b\\\x1b[6;20;10t\x1b[4;480;800t\x1b[Ac\x1b[?62;22c');
    expect(r.colors).toEqual({ background: { r: 0xfd, g: 0xf6, b: 0xe3 }, foreground: { r: 0x20, g: 0x30, b: 0x40 } });
    expect(r.cell).toEqual({ width: 10, height: 20 });
    expect(r.window).toEqual({ width: 800, height: 480 });
    expect(r.complete).toBe(true);
    expect(r.rest).toBe('ab\x1b[Ac');
  });

  it('outer-query.a-reply-cut-short-waits-for-the-rest', () => {
    const r = parseOuterReplies('x\x1b]11;rgb:fd');
    expect([r.rest, r.pending, r.complete]).toEqual(['x', '\x1b]11;rgb:fd', false]);
    expect(parseOuterReplies('\x1b[?6').pending).toBe('\x1b[?6');
  });

  it('outer-query.terminal-then-theme-then-defaults-and-cells-from-the-window', () => {
    const theme = themeColors({ background: '#fdf6e3', cursor: 'rgb:ff/0/0' });
    const a = resolveAppearance({ colors: { foreground: { r: 1, g: 2, b: 3 } }, window: { width: 800, height: 480 } }, { cols: 80, rows: 24 }, theme);
    expect(a.colors).toEqual({ foreground: { r: 1, g: 2, b: 3 }, background: { r: 0xfd, g: 0xf6, b: 0xe3 }, cursor: { r: 255, g: 0, b: 0 } });
    expect(a.cellPixels).toEqual({ width: 10, height: 20 });
    expect(resolveAppearance({ colors: {} }, { cols: 80, rows: 24 }).cellPixels).toEqual({ width: 8, height: 16 });
  });
});

describe('a pane answers with the outer terminal', () => {
  it('outer-query.a-program-in-a-pane-gets-the-outer-colours-cell-size-and-theme', async () => {
    const t = await makeTeam([]);
    cleanups.push(t.cleanup);
    const answers = path.join(t.dir, 'answers.bin');
    const worker = path.join(REPO, 'test', 'workers', 'outer-query-mux.mjs');
    const term = pty.spawn(process.execPath, [worker, t.dir, answers], { cols: 100, rows: 30, cwd: REPO, env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string> });
    let out = '';
    let answered = false;
    term.onData((d) => {
      out += d;
      // the outer terminal: foreground and background (not the cursor colour), the cell size, DA1
      if (!answered && out.includes(OUTER_QUERIES)) {
        answered = true;
        term.write('\x1b]10;rgb:2020/3030/4040\x1b\\\x1b]11;#fdf6e3\x07\x1b[6;18;9t\x1b[?62;22c');
      }
    });
    cleanups.push(() => term.kill());
    await waitFor(() => existsSync(answers) && readFileSync(answers, 'latin1').endsWith('c'), 'the lead to record its answers', 45_000);
    const got = readFileSync(answers, 'latin1');
    expect(got).toContain('\x1b]10;rgb:2020/3030/4040\x1b\\');
    expect(got).toContain('\x1b]11;rgb:fdfd/f6f6/e3e3\x1b\\');
    // the terminal did not say: the layout's theme
    expect(got).toContain('\x1b]12;rgb:ffff/0000/0000\x1b\\');
    expect(got).toContain('\x1b[6;18;9t');
  });
});
