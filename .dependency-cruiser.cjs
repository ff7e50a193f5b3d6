/**
 * The layers of src/, checked by dependency-cruiser (`npm run check:layers`, part of `npm test`;
 * docs/architecture.md explains them). A folder imports its own folder and the folders of LOWER
 * tiers only: never a folder of its own tier or of a higher one. No import circle anywhere, inside a
 * folder too. One library behind one file: blessed behind ui/screen.ts, node-pty behind host/pty.ts,
 * @xterm/* inside vt/, zod behind protocol/zod.ts, chokidar (if it is used again) inside store/.
 * Type-only imports count: tsPreCompilationDeps sees them.
 */
/** Lowest first. */
const TIERS = [
  ['protocol'], // the rules and their zod schemas: pure functions of their arguments
  ['config', 'store', 'host', 'vt'], // the layout file; the team folder (and NATS); ptys, tmux, ssh, sockets; the emulator
  ['ops', 'keys'], // operations on the board (the one entrance for CLI, MCP, the agent); the key tables
  ['mux'], // the multiplexer's reducer and its model (layout maths, the sidebar's data): state in, effects out
  ['ui', 'agent', 'mcp', 'demo'], // the view (renders mux types); teamux's own agent runtime; the MCP server; the demo model server
  ['web'], // the web view: pages over the same model as ui, and their server
  ['app'], // the screen's runner: effects on panes, frames, the team folder's watch; a port for extensions
  ['agents'], // one folder per agent CLI (claude/ now): hooks, launch, its screen extension through app's port
  ['cli'], // one file per verb; `start` composes app with the agents' extensions
];

const tierOf = new Map(TIERS.flatMap((names, i) => names.map((n) => [n, i])));
const layerRules = [...tierOf].map(([folder, tier]) => {
  const notBelow = [...tierOf].filter(([other, t]) => other !== folder && t >= tier).map(([other]) => other);
  return {
    name: `layer-${folder}`,
    comment: `src/${folder} imports only folders of lower tiers (see TIERS in .dependency-cruiser.cjs)`,
    severity: 'error',
    from: { path: `^src/${folder}/` },
    to: { path: `^src/(${notBelow.join('|')})/` },
  };
});

/** A package that only `files` may import (their paths, as regexes). */
function onlyIn(name, pkg, files, comment) {
  return { name, comment, severity: 'error', from: { pathNot: files }, to: { path: `^node_modules/${pkg}/` } };
}

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-circular',
      comment: 'no import circle, not even inside one folder (type-only imports included)',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'mux-reads-store-types-only',
      comment: 'the reducer is pure: it knows the shapes of the team folder, never its code',
      severity: 'error',
      from: { path: '^src/mux/' },
      to: { path: '^src/store/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'pure-layers-do-no-io',
      comment: 'protocol, mux, keys and vt touch no files, processes or sockets: they are pure or hold memory only',
      severity: 'error',
      from: { path: '^src/(protocol|mux|keys|vt)/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|child_process|net|dgram|worker_threads)$' },
    },
    {
      name: 'blessed-patch-only-from-ui-screen',
      comment: 'the patch to blessed\'s Screen (ui/blessed-attrs.ts) is installed by ui/screen.ts alone',
      severity: 'error',
      from: { pathNot: '^src/ui/screen\\.ts$' },
      to: { path: '^src/ui/blessed-attrs\\.ts$' },
    },
    onlyIn('blessed-only-in-ui-screen', 'blessed', '^src/ui/(screen\\.ts|blessed-screen\\.d\\.ts)$', 'blessed is ui/screen.ts\'s (ui/blessed-screen.d.ts types the one blessed file it loads)'),
    onlyIn('node-pty-only-in-host-pty', 'node-pty', '^src/host/pty\\.ts$', 'node-pty is host/pty.ts\'s'),
    onlyIn('xterm-only-in-vt', '@xterm', '^src/vt/', 'the emulator (@xterm/headless and its addons) is vt/\'s'),
    onlyIn('chokidar-only-in-store', 'chokidar', '^src/store/', 'only store/ reads the team folder, so only store/ may watch it'),
    onlyIn('zod-only-through-protocol-zod', 'zod', '^src/protocol/zod\\.ts$', 'protocol/zod.ts sets zod\'s options (jitless) before any schema exists: import { z } from it'),
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: '^node_modules/' },
    enhancedResolveOptions: { extensions: ['.ts', '.cts', '.d.ts', '.js', '.cjs'] },
    exclude: { path: '\\.(js|cjs)\\.map$' },
  },
};
// The tiers, for test/layering.test.ts (every folder of src/ must have one); not part of the config.
Object.defineProperty(module.exports, 'TIERS', { value: TIERS, enumerable: false });
