// blessed's terminfo capabilities are compiled when first used (ui/screen.ts compileTerminfoLazily), not all
// ~960 when a screen is made: every capability must still give the same bytes as blessed's own eager compile,
// which a separate Node process (without the patch) computes for the same parameters, from the same file
// (blessed's own xterm-256color, which the screen always reads: ui/screen.ts readBundledTerminfo).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { compileTerminfoLazily } from '../../src/ui/screen.js';
import { REPO } from '../helpers/team.js';

const PARAMS = [3, 7, 11, 2, 5, 1, 4, 9, 6];

/** Every string capability of xterm-256color, called with PARAMS: key → output (or the error it threw). */
const OUTPUTS = `
const Tput = require('blessed/lib/tput');
module.exports = (tput) => {
  const out = {};
  for (const key of Object.keys(tput.info.strings).sort()) {
    try { out[key] = String(tput.methods[key](${JSON.stringify(PARAMS)})); } catch (e) { out[key] = 'threw ' + e.message; }
  }
  return out;
};
if (require.main === module) process.stdout.write(JSON.stringify(module.exports(new Tput({ terminal: 'xterm-256color', extended: true, terminfoFile: require.resolve('blessed/usr/xterm-256color') }))));
`;

describe('terminfo', () => {
  it('terminfo.lazy-compile-gives-the-same-bytes-as-blessed', () => {
    const eager = JSON.parse(execFileSync(process.execPath, ['-e', `${OUTPUTS.replace('if (require.main === module) ', '')}`], { cwd: REPO, encoding: 'utf8' })) as Record<string, string>;
    compileTerminfoLazily();
    compileTerminfoLazily();
    const require = createRequire(`${REPO}/package.json`);
    const Tput = require('blessed/lib/tput') as new (o: object) => { info: { strings: Record<string, string> }; methods: Record<string, (p: number[]) => unknown> };
    const tput = new Tput({ terminal: 'xterm-256color', extended: true });
    const lazy: Record<string, string> = {};
    for (const key of Object.keys(tput.info.strings).sort()) {
      // Twice: the first call compiles, the second uses what it compiled (a fresh array each time: the
      // compiled code changes its params, as %i does).
      for (let i = 0; i < 2; i++) {
        try {
          lazy[key] = String(tput.methods[key]!([...PARAMS]));
        } catch (e) {
          lazy[key] = `threw ${(e as Error).message}`;
        }
      }
    }
    expect(Object.keys(eager).length).toBeGreaterThan(100);
    expect(lazy).toEqual(eager);
    expect(lazy.cursor_address).toBe('\x1b[4;8H');
  });

  it('terminfo.xterm-256color-is-read-from-blesseds-copy-without-a-failed-parse', () => {
    compileTerminfoLazily();
    const require = createRequire(`${REPO}/package.json`);
    const Tput = require('blessed/lib/tput') as new (o: object) => { error: Error | null; info: { file: string; name: string } };
    // Not the system's entry (ncurses 6.1+ writes it in a format blessed's reader rejects): no
    // failed parse first, and the same description on every system.
    const tput = new Tput({ terminal: 'xterm-256color' });
    expect(tput.error).toBeNull();
    expect(tput.info.file).toBe(require.resolve('blessed/usr/xterm-256color'));
    expect(tput.info.name).toBe('xterm-256color');
    // Another terminal is looked up as blessed does.
    const other = new Tput({ terminal: 'xterm' });
    expect(other.info.file).not.toBe(require.resolve('blessed/usr/xterm-256color'));
  });
});
