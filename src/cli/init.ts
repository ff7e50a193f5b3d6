/**
 * `teamux init` and `teamux validate`: check a layout file, and create or refresh the team folder
 * from it. Nothing is written unless the whole file is valid.
 */
import * as path from 'node:path';
import { formatErrors, loadLayout, summarizeLayout } from '../config/index.js';
import { initTeam } from '../store/init.js';
import { initRemoteTeam } from '../store/select.js';
import { EXIT_BAD_INPUT, EXIT_OK, onePositional, parse, storeOf, UsageError } from './context.js';
import { loadLayoutOrFail, teamDirOf, teamSpecOf } from './layout-team.js';
import { repoProbe } from './worktrees-run.js';
import type { Verb } from './verb.js';

const OPTS = { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } as const;

export const validateVerb: Verb = {
  name: 'validate',
  usage: ['validate LAYOUT.yaml [--json]'],
  examples: ['teamux validate examples/demo/team.yaml'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, OPTS, this.usage[0]!);
    const file = path.resolve(ctx.cwd, onePositional(positionals, 'layout file', this.usage[0]!));
    const r = loadLayout(file, { env: ctx.env, repo: repoProbe(ctx.env) });
    if (!r.ok) {
      if (values.json) ctx.out(JSON.stringify({ ok: false, errors: r.errors }));
      ctx.err(formatErrors(r.errors));
      return EXIT_BAD_INPUT;
    }
    for (const w of r.warnings) ctx.err(w);
    ctx.out(values.json ? JSON.stringify({ ok: true, summary: summarizeLayout(r.layout), warnings: r.warnings, teamDir: teamDirOf(r.layout) }) : `${path.relative(ctx.cwd, file) || file}: ok — ${summarizeLayout(r.layout)}`);
    return EXIT_OK;
  },
};

export const initVerb: Verb = {
  name: 'init',
  usage: ['init LAYOUT.yaml [--json] [--store nats://HOST:4222]'],
  examples: ['teamux init examples/demo/team.yaml', 'export TEAMUX_TEAM_DIR=$(teamux init layouts/minimal.yaml)', 'teamux init team.yaml --store nats://127.0.0.1:4222'],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, OPTS, this.usage[0]!);
    const file = path.resolve(ctx.cwd, onePositional(positionals, 'layout file', this.usage[0]!));
    const { layout, warnings } = loadLayoutOrFail(file, ctx.env);
    for (const w of warnings) ctx.err(w);
    const dir = teamDirOf(layout);
    const url = storeOf(ctx, layout.store);
    // The layout's own store: key is checked with the layout; --store and TEAMUX_STORE are checked here.
    if (url && layout.pipeline) {
      const shown = path.relative(ctx.cwd, file);
      throw new UsageError(`${shown && !shown.startsWith('..') ? shown : file}: pipeline: a staged pipeline keeps its rules and state in the team folder, so it cannot run on the NATS store ${url}`, 'leave out --store (and unset TEAMUX_STORE) to use the team folder, or remove the pipeline: section');
    }
    if (url) {
      // The shared state goes to the NATS server; this machine keeps the local folder (log, transcripts).
      const r = await initRemoteTeam(url, dir, teamSpecOf(layout, file), ctx.env);
      if (!r.ok) throw new UsageError(r.error.message, r.error.hint);
      await r.store.backend.close();
      ctx.out(values.json ? JSON.stringify({ ok: true, teamDir: dir, store: r.store.backend.where, team: layout.name, created: r.created, seeded: r.seeded }) : dir);
      return EXIT_OK;
    }
    const r = await initTeam(dir, teamSpecOf(layout, file));
    ctx.out(values.json ? JSON.stringify({ ok: true, teamDir: dir, created: r.created, seeded: r.seeded }) : dir);
    return EXIT_OK;
  },
};
