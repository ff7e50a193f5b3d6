// blessed's Screen widget and node-pty's JavaScript inside the screen's bundle (scripts/bundle.mjs →
// dist/boot/screen.cjs), so that their code is in the code cache instead of compiled from node_modules
// on every start. Some of their files read differently there: tput.js finds its own terminfo
// fallbacks in blessed/lib/ (not next to the bundle), unicode.js never loads blessed's main module (all
// 34 widgets), and node-pty finds its native module and spawn helper in its own folder. Proved on the
// built bundle and by real starts in a real pty under three TERMs, one the system has no terminfo for.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScreen } from '../helpers/screen-pty.js';
import { BIN, REPO, tempDir, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const BUNDLE = path.join(REPO, 'dist', 'boot', 'screen.cjs');
const TRACE = path.join(REPO, 'test', 'fixtures', 'cli', 'trace-requires.cjs');

/** The modules esbuild put into the bundle (it names each in a comment above its code). */
function bundledModules(text: string): string[] {
  return [...text.matchAll(/^\/\/ (\S+)$/gm)].map((m) => m[1]!);
}

describe('blessed and node-pty in the screen bundle', () => {
  it('code-cache-blessed.bundle-holds-the-screen-widget-only-and-node-ptys-unix-side', () => {
    const text = readFileSync(BUNDLE, 'latin1');
    const blessed = bundledModules(text).filter((m) => m.includes('node_modules/blessed/'));
    for (const file of ['lib/widgets/screen.js', 'lib/widgets/element.js', 'lib/program.js', 'lib/tput.js', 'lib/unicode.js', 'lib/colors.js']) expect(blessed.some((m) => m.endsWith(`/blessed/${file}`)), file).toBe(true);
    // Not the main module, the widget table, or any widget the screen does not use.
    expect(blessed.filter((m) => /\/lib\/(blessed|widget)\.js$|\/widgets\/(list|form|image|terminal|video|table|textarea)\.js$/.test(m))).toEqual([]);
    // Its terminfo fallbacks are found in blessed's folder, not from the bundle's own.
    expect(text).not.toMatch(/__dirname \+ "\/\.\.\/usr/);
    expect(text).toMatch(/__teamuxBlessedLib\(\) \+ "\/\.\.\/usr\/xterm"/);
    expect(/[^\x00-\x7f]/.test(text)).toBe(false);
    // node-pty's JavaScript for this platform, not its Windows side (loaded from the package if ever used).
    const pty = bundledModules(text).filter((m) => m.includes('node_modules/node-pty/'));
    for (const file of ['lib/index.js', 'lib/unixTerminal.js', 'lib/utils.js']) expect(pty.some((m) => m.endsWith(`/node-pty/${file}`)), file).toBe(true);
    expect(pty.filter((m) => /windows/i.test(m))).toEqual([]);
    expect(text).toMatch(/__teamuxNodePtyRequire\(dir \+ "\/" \+ name \+ "\.node"\)/);
  });

  it('code-cache-blessed.start-draws-under-known-and-unknown-terms-without-blessed-or-node-pty-js-from-node-modules', async () => {
    const tmp = tempDir('teamux-blessed-bundle-');
    cleanup.push(tmp.cleanup);
    const layout = path.join(tmp.dir, 'team.yaml');
    const pane = (mark: string): string => `[sh, -c, "printf '%s%s\\\\n' ${mark} -MARK; exec sleep 600"]`;
    writeFileSync(layout, `name: terms\nlead: { name: lead, role: r, command: ${pane('LEAD')} }\nteammates:\n  - { name: amy, role: r, command: ${pane('AMY')} }\n`);
    const log = path.join(tmp.dir, '.teamux', 'terms', 'teamux.log');
    // The last is no terminal at all: blessed falls back to the xterm terminfo file it ships.
    for (const term of ['xterm-256color', 'screen-256color', 'no-such-terminal-teamux']) {
      const out = path.join(tmp.dir, `requires-${term}.txt`);
      // The bundled screen under TERM=`term`, with the require tracer.
      const started = startScreen(BIN, layout, { cwd: tmp.dir, env: { ...(process.env as Record<string, string>), XDG_CACHE_HOME: path.join(tmp.dir, 'cache'), TRACE_REQUIRES_OUT: out }, cleanups: cleanup, nodeArgs: ['--require', TRACE], term });
      await waitFor(() => started.screen().includes('LEAD-MARK') && started.screen().includes('AMY-MARK'), `both panes on screen with TERM=${term}`, 30_000);
      await started.stop();
      expect(started.screen(), term).not.toMatch(/could not start|ENOENT/);
      await waitFor(() => existsSync(out), 'the list of required files', 10_000);
      const required = readFileSync(out, 'utf8').split('\n');
      // node-pty's native module still comes from its folder; its JavaScript and blessed only from the bundle.
      expect(required.filter((f) => f.includes('node_modules/node-pty/')), term).toEqual([expect.stringMatching(/node_modules\/node-pty\/build\/Release\/pty\.node$/)]);
      expect(required.filter((f) => f.includes('node_modules/blessed/')), term).toEqual([]);
    }
    expect(readFileSync(log, 'utf8')).not.toMatch(/\berror\b/i);
  }, 120_000);
});
