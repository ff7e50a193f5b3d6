// The layering is enforced by a tool, not by hope: dependency-cruiser with the rules in
// .dependency-cruiser.cjs (tiers of folders, no circles, one library behind one file), run as
// `npm run check:layers`, which `npm test` runs too. Here: the check passes on src/, it fails on a
// tree with planted violations (so the gate can fail), and every folder of src/ has a tier (a folder
// the rules do not name would be unchecked, which the tool cannot see by itself).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from './helpers/team.js';

const CONFIG = path.join(REPO, '.dependency-cruiser.cjs');
const CRUISER = path.join(REPO, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const { TIERS } = createRequire(import.meta.url)(CONFIG) as { TIERS: string[][] };

/** Run dependency-cruiser on `target` (relative to `cwd`) with the repository's rules. */
function cruise(cwd: string, ...args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [CRUISER, '--config', CONFIG, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const planted = mkdtempSync(path.join(tmpdir(), 'teamux-layers-'));
afterAll(() => rmSync(planted, { recursive: true, force: true }));

describe('layering', () => {
  it('layers.npm-run-check-layers-passes-on-src', () => {
    const r = spawnSync('npm', ['run', '--silent', 'check:layers'], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    const cruised = /no dependency violations found \((\d+) modules, (\d+) dependencies cruised\)/.exec(`${r.stdout}${r.stderr}`);
    expect(cruised, `${r.stdout}${r.stderr}`).not.toBeNull();
    expect(Number(cruised![1])).toBeGreaterThan(300);
  });

  it('layers.the-known-violations-are-the-store-circles-being-reshaped', () => {
    // The baseline the check ignores holds only circles inside store/ (issue 25 reshapes store/ into
    // api.ts, folder/, watch/; each goes from the baseline as it goes from the code), and until the
    // screen's port lands, Claude Code's parts started by app/multiplexer.ts.
    const known = JSON.parse(readFileSync(path.join(REPO, '.dependency-cruiser-known-violations.json'), 'utf8')) as Array<{ from: string; to: string; rule: { name: string } }>;
    const untilThePort = (v: object): boolean => JSON.stringify(v).includes('"src/agents/claude/') && JSON.stringify(v).includes('"src/app/');
    const other = known.filter((v) => !(v.rule.name === 'no-circular' && v.from.startsWith('src/store/') && v.to.startsWith('src/store/')) && !untilThePort(v));
    expect(other).toEqual([]);
  });

  it('layers.every-folder-of-src-has-a-tier', () => {
    const named = new Set(TIERS.flat());
    const folders = readdirSync(path.join(REPO, 'src')).filter((n) => statSync(path.join(REPO, 'src', n)).isDirectory());
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((f) => !named.has(f)), 'give each src/ folder a tier in .dependency-cruiser.cjs').toEqual([]);
  });

  it('layers.the-check-fails-on-planted-violations', () => {
    // A small tree shaped like src/, one violation of each kind, with stand-ins for the packages.
    const files: Record<string, string> = {
      'src/vt/up.ts': "import { view } from '../ui/view.js';\nexport const up = view;\n",
      'src/ui/view.ts': "export const view = 1;\n",
      'src/ui/other.ts': "import blessed from 'blessed';\nexport const b = blessed;\n",
      'src/mux/reads.ts': "import { load } from '../store/load.js';\nexport const r = load;\n",
      'src/store/load.ts': "export const load = 2;\n",
      'src/app/a.ts': "import { b } from './b.js';\nexport const a = (): number => b();\n",
      'src/app/b.ts': "import { a } from './a.js';\nexport const b = (): number => a();\n",
      'src/host/spawn.cts': "import pty = require('node-pty');\nexport const p = pty;\n",
      'src/protocol/io.ts': "import { readFileSync } from 'node:fs';\nexport const io = readFileSync;\n",
      'src/config/schema.ts': "import { z } from 'zod';\nexport const s = z;\n",
      'src/ui/blessed-attrs.ts': "export const patch = 3;\n",
      'src/ui/pane.ts': "import { patch } from './blessed-attrs.js';\nexport const p = patch;\n",
    };
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(planted, rel)), { recursive: true });
      writeFileSync(path.join(planted, rel), text);
    }
    writeFileSync(path.join(planted, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src/**/*.ts', 'src/**/*.cts'] }));
    for (const pkg of ['blessed', 'node-pty', 'zod']) {
      mkdirSync(path.join(planted, 'node_modules', pkg), { recursive: true });
      writeFileSync(path.join(planted, 'node_modules', pkg, 'package.json'), JSON.stringify({ name: pkg, version: '0.0.0', main: 'index.js' }));
      writeFileSync(path.join(planted, 'node_modules', pkg, 'index.js'), 'module.exports = {};\n');
    }
    const r = cruise(planted, 'src');
    expect(r.code, r.out).not.toBe(0);
    for (const rule of ['layer-vt', 'blessed-only-in-ui-screen', 'mux-reads-store-types-only', 'no-circular', 'node-pty-only-in-host-pty', 'pure-layers-do-no-io', 'zod-only-through-protocol-zod', 'blessed-patch-only-from-ui-screen']) {
      expect(r.out, `the planted tree breaks ${rule}`).toMatch(new RegExp(`error ${rule}:`));
    }
  });
});
