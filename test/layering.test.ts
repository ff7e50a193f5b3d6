// The layering is enforced by a test, not by hope: protocol → config → store/host → vt/ops → keys → mux (the
// multiplexer's reducer and its model: layout maths, the sidebar's data) → ui (renders mux types) → web (the web view: pages over the same model, its server) →
// agent/demo/mcp → app → agents (one folder per agent CLI, plugged into the screen) → cli. A file may import
// its own layer and lower ones only; store, protocol, config and vt import no UI, pty or watcher package
// (the team folder's one chokidar watch lives in store, as only store reads the folder); blessed is imported
// by ui/screen.ts alone (and ui/blessed-attrs.ts, the patch it installs, which only screen.ts imports, and the
// types of the one blessed file they load, ui/blessed-screen.d.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/team.js';

const RANK: Record<string, number> = { protocol: 0, config: 1, store: 2, host: 2, vt: 3, ops: 3, keys: 4, mux: 4.2, ui: 4.5, web: 4.7, agent: 5, demo: 5, mcp: 5, app: 7, agents: 7.5, cli: 8 };
/** The screen's core still starts Claude Code's parts itself; these go when they plug in through the screen's port (issue 25). */
const UNTIL_THE_PORT = new Set(['app/multiplexer.ts imports ../agents/claude/wake.js', 'app/multiplexer.ts imports ../agents/claude/native-teams.js', 'app/multiplexer.ts imports ../agents/claude/tmux-teammates.js', 'app/mux-options.ts imports ../agents/claude/native-teams.js']);
const PURE = new Set(['protocol', 'config', 'store', 'vt']);
const SRC = path.join(REPO, 'src');
/** The files that may import blessed, and the only file that may import the blessed patch. */
const BLESSED_FILES = new Set([path.join('ui', 'screen.ts'), path.join('ui', 'blessed-attrs.ts'), path.join('ui', 'blessed-screen.d.ts')]);
const BLESSED_PATCH_USERS = new Set([path.join('ui', 'screen.ts')]);

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) yield* sources(p);
    else if (p.endsWith('.ts')) yield p;
  }
}

/** Every import/export-from specifier of a file (static ones and `import('…')`). */
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s+['"]([^'"]+)['"]/gm)) out.push(m[1]!);
  for (const m of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) out.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

describe('layering', () => {
  it('layers.nothing-imports-upward-and-pure-layers-import-no-ui-or-pty', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const file of sources(SRC)) {
      const rel = path.relative(SRC, file);
      const layer = rel.split(path.sep)[0]!;
      expect(RANK[layer], `${rel}: src/${layer} has no place in the layer list`).not.toBeUndefined();
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        checked++;
        if (spec.startsWith('.')) {
          const target = path.relative(SRC, path.resolve(path.dirname(file), spec)).split(path.sep)[0]!;
          if (target !== layer && RANK[target]! >= RANK[layer]! && !UNTIL_THE_PORT.has(`${rel} imports ${spec}`)) problems.push(`${rel} imports ${spec} (${target} is not below ${layer})`);
        } else if (PURE.has(layer) && /^(blessed|node-pty|chokidar|@xterm\/)/.test(spec)
          && !(layer === 'vt' && spec.startsWith('@xterm/')) && !(layer === 'store' && spec === 'chokidar')) {
          problems.push(`${rel} imports ${spec} (src/${layer} must stay free of UI, pty and watcher packages)`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  });

  it('layers.blessed-is-imported-only-behind-ui-screen', () => {
    const problems: string[] = [];
    for (const file of sources(SRC)) {
      const rel = path.relative(SRC, file);
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        if (/^blessed(\/|$)/.test(spec) && !BLESSED_FILES.has(rel)) problems.push(`${rel} imports ${spec} (only ui/screen.ts may use blessed)`);
        if (spec.startsWith('.') && path.resolve(path.dirname(file), spec) === path.join(SRC, 'ui', 'blessed-attrs.js') && !BLESSED_PATCH_USERS.has(rel)) {
          problems.push(`${rel} imports ${spec} (the blessed patch is ui/screen.ts's business)`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('layers.zod-is-imported-only-through-protocol-zod', () => {
    // protocol/zod.ts sets zod's options (jitless) before any schema exists: a direct import could
    // make a schema first, with zod's defaults.
    const problems: string[] = [];
    for (const file of sources(SRC)) {
      const rel = path.relative(SRC, file);
      if (rel === path.join('protocol', 'zod.ts')) continue;
      for (const spec of specifiers(readFileSync(file, 'utf8'))) if (/^zod(\/|$)/.test(spec)) problems.push(`${rel} imports ${spec} (import { z } from protocol/zod.js instead)`);
    }
    expect(problems).toEqual([]);
  });

  it('layers.the-blessed-check-catches-an-import', () => {
    // The check above reads specifiers this way; an import of blessed in any form is found.
    expect(specifiers("import blessed from 'blessed';\nimport type { Widgets } from 'blessed';\nconst b = await import('blessed');")).toEqual(['blessed', 'blessed', 'blessed']);
  });
});
