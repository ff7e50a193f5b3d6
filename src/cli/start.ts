/**
 * `teamux start LAYOUT.yaml`: validate the layout before anything is written, create or refresh the
 * team folder, start the offline demo model when agents need one and no API key is set, run the
 * on_start hooks, then hand the terminal to the multiplexer until it quits.
 */
import { requireSandbox } from './sandbox-launch.js';
import { takeWebFlag, webSettingsOf } from './web-flag.js';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { PtyHost } from '../host/pty.js';
import { EXIT_REFUSED, onePositional, parse, storeOf, UsageError, type CliContext } from './context.js';
import { loadLayoutOrFail, teamDirOf, teamSpecOf } from './layout-team.js';
import { prepareCodexMembers } from '../agents/codex/member-launch.js';
import { isNativeLead, kickoffClaudeLead, prepareClaudeMembers } from '../agents/claude/member-launch.js';
import { archiveIfChosen, chooseStart, resumeWish, takeRun } from './start-run.js';
import { sayWhyDetached } from './mux-lock.js';
import type { Verb } from './verb.js';
import { learnOuterTerminal } from '../ui/outer-query.js';
import { trustFor } from './screen-trust.js';
import { startupMark } from '../host/startup-marks.js';
import { prepareRunWorktrees, retireRunWorktrees } from './worktrees-run.js';

import { BIN_DIR, demoScriptDir, initForStart, keyTableOf, muxFor, nativeBridgeSpec, openScreen, RemoteTeam, requireTty, runHooks } from './screen-setup.js';

export const startVerb: Verb = {
  name: 'start',
  usage: ['start LAYOUT.yaml [--backend pty|tmux] [--fresh | --resume] [--web[=PORT]]'],
  examples: ['teamux start examples/demo/team.yaml', 'teamux start layouts/tmux.yaml --backend tmux', 'teamux start examples/demo/team.yaml --fresh   # archive the earlier run, begin anew', 'teamux start examples/demo/team.yaml --web   # and C-a W for the link'],
  async run(ctx, allArgv) {
    const { argv, web } = takeWebFlag(allArgv);
    const { values, positionals } = parse(argv, { backend: { type: 'string' }, fresh: { type: 'boolean', default: false }, resume: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } }, this.usage[0]!);
    const wish = resumeWish(values);
    const file = path.resolve(ctx.cwd, onePositional(positionals, 'layout file', this.usage[0]!));
    if (values.backend !== undefined && values.backend !== 'pty' && values.backend !== 'tmux') throw new UsageError(`--backend "${values.backend}" is not a backend`, 'use pty or tmux');
    // Validate before anything is written or started.
    const { layout, warnings } = loadLayoutOrFail(file, ctx.env);
    requireSandbox(layout, file);
    startupMark('layout');
    const backend = (values.backend ?? layout.backend) as 'pty' | 'tmux';
    const teamDir = teamDirOf(layout);
    // With tmux, a team whose members still run is attached to, not started a second time.
    if (backend === 'tmux' && (await runsUnderTmux(ctx, layout.name, teamDir))) {
      if (wish === 'fresh') return refuseStart(ctx, `team ${layout.name} is still running under tmux`, `stop it with \`teamux kill ${layout.name}\` first, or leave out --fresh to attach to it`);
      return (await import('./attach.js')).attachVerb.run(ctx, [layout.name]);
    }
    // A NATS store: the shared state lives on the server; members started here are told where it is.
    const url = storeOf(ctx, layout.store);
    const remote: RemoteTeam | null = url ? { url, team: layout.name, env: ctx.env } : null;
    // Resume the earlier run or begin afresh: decided (and refused) before the terminal is taken.
    const choice = await chooseStart(teamDir, wish, remote !== null);
    if (choice.kind === 'refuse') return refuseStart(ctx, choice.message, choice.hint);
    requireTty('start');
    const keys = keyTableOf(layout, file);
    const elsewhere = [layout.lead, ...layout.teammates].find((m) => m.remote || m.host);
    if (elsewhere && !remote) throw new UsageError(`${file}: member ${elsewhere.name} runs on another machine (${elsewhere.remote ? 'remote: true' : `host: ${elsewhere.host}`}), but the team is kept in its folder, which other machines cannot share`, 'add store: nats://HOST:4222 to the layout (or pass --store), and start a NATS server: nats-server -js -sd DIR');
    if (layout.lead.remote || layout.lead.host) throw new UsageError(`${file}: lead.${layout.lead.remote ? 'remote' : 'host'}: the lead runs on this machine, beside the screen that enrols it`, `remove ${layout.lead.remote ? 'remote: true' : 'host:'} from the lead; teammates may run elsewhere`);
    const claudeAway = layout.teammates.find((m) => m.host && m.claude);
    if (claudeAway) throw new UsageError(`${file}: teammates: ${claudeAway.name} has host: and agent: { cli: claude }; a Claude Code member runs on the screen's machine (its hooks use this machine's folder)`, 'run it here (remove host:), or run teamux agent there (agent: true)');
    const hasKey = Boolean(ctx.env.ANTHROPIC_API_KEY || ctx.env.TEAMUX_API_KEY_FILE || ctx.env.TEAMUX_API_KEY_COMMAND || layout.apiKey);
    // Claude Code members without a key use the demo model only when the layout brings demo scripts;
    // otherwise Claude Code signs in its own way.
    const members = [layout.lead, ...layout.teammates];
    // A demo model already running (TEAMUX_DEMO_URL given, as the e2e tests do) is used as it is.
    const givenDemo = ctx.env.TEAMUX_DEMO_URL?.trim() || undefined;
    const needsModel = !givenDemo && !hasKey && (members.some((m) => m.agent) || (members.some((m) => m.claude || m.codex) && existsSync(demoScriptDir(layout, file))));
    // A finished run's folder (or any, with --fresh) is archived; on a NATS store the team's state is the server's to keep.
    const archive = await archiveIfChosen(teamDir, choice);
    if ('refused' in archive) return refuseStart(ctx, archive.refused, archive.hint);
    const archived = archive.archived;
    const { store, release } = await openScreen(teamDir, backend, remote, () => initForStart(teamDir, teamSpecOf(layout, file), remote));
    startupMark('team');
    // Ask the outer terminal its colours now and take the answer just before the screen opens: the
    // round trip (tens of ms over ssh) overlaps the run's set-up below. The query never rejects and
    // puts the terminal back as it found it when the answer (or its timeout) comes.
    const outer = learnOuterTerminal({ input: process.stdin, output: process.stdout }, layout.theme);
    if (archived) store.log.info(`the earlier run was archived to ${archived}`);
    if (remote) store.log.info(`team ${layout.name} on the NATS store ${store.backend.where}; this machine's folder is ${teamDir}`);
    let closeDemo: (() => Promise<void>) | null = null;
    const taken = await takeRun(store, choice, archived);
    const { run } = taken;
    if (choice.kind === 'resume') store.log.info(`resuming run ${run}`);
    for (const q of taken.expired) store.log.info(`request ${q.id} (${q.type} from ${q.from}) expired: ${q.expiredReason}`);
    for (const q of taken.askedAgain) store.log.info(`${q.from}'s plan, approved under the earlier screen's key, is asked again (${q.id})`);
    for (const q of taken.withdrawn) store.log.info(`request ${q.id} (permission from ${q.from}) ${q.response?.text ?? 'withdrawn'}`);
    // Cold recovery: claims of processes from an earlier run that are gone go back on the board (while
    // the run's trust root is made: neither waits for the other).
    const [staleRun, trustRun] = await Promise.allSettled([store.releaseStale(), trustFor(store, layout, run)]);
    if (staleRun.status === 'rejected') {
      if (trustRun.status === 'fulfilled') trustRun.value.dispose();
      throw staleRun.reason;
    }
    if (trustRun.status === 'rejected') throw trustRun.reason;
    const [stale, trust] = [staleRun.value, trustRun.value];
    for (const t of stale.released) store.log.info(`task ${t.id} released at start: ${t.attempts.at(-1)?.note ?? 'its owner is gone'}`);
    startupMark('run');
    try {
      for (const w of warnings) store.log.warn(w);
      // The tmux backend and the demo model are loaded only when the layout uses them: a layout of
      // plain commands starts without their module graphs (a smaller, faster start-up).
      const host = backend === 'pty' ? new PtyHost() : await (await import('./tmux-backend.js')).tmuxHostFor(layout, teamDir, ctx.env);
      const extraEnv: Record<string, string> = { ...trust.env };
      // Members started here open the same team on the same server (credentials stay in TEAMUX_NATS_*).
      if (remote) Object.assign(extraEnv, { TEAMUX_STORE: remote.url, TEAMUX_TEAM: remote.team });
      if (needsModel) {
        const dir = demoScriptDir(layout, file);
        if (!existsSync(dir)) throw new UsageError(`agents need a model: ANTHROPIC_API_KEY is not set and there are no demo scripts in ${dir}`, 'export ANTHROPIC_API_KEY=…, or give the agents demo_script files');
        if (backend === 'tmux') {
          const { startTmuxDemoModel } = await import('./tmux-backend.js');
          extraEnv.TEAMUX_DEMO_URL = await startTmuxDemoModel(layout.name, layout.root, teamDir, dir, path.join(BIN_DIR, 'teamux'), ctx.env);
        } else {
          const { runDemoServer } = await import('../demo/main.js');
          const server = await runDemoServer(dir);
          if (!server.ok) throw new UsageError(`the demo scripts in ${dir} are not valid:\n${server.errors.join('\n')}`);
          extraEnv.TEAMUX_DEMO_URL = server.server.url;
          closeDemo = () => server.server.close();
        }
        store.log.info(`no ANTHROPIC_API_KEY: agents use the demo model at ${extraEnv.TEAMUX_DEMO_URL} (scripts in ${dir})`);
      }
      if (givenDemo) extraEnv.TEAMUX_DEMO_URL = givenDemo;
      await prepareClaudeMembers(store, layout, path.join(BIN_DIR, 'teamux'), extraEnv.TEAMUX_DEMO_URL !== undefined);
      await prepareCodexMembers(store, layout, path.join(BIN_DIR, 'teamux'), extraEnv.TEAMUX_DEMO_URL);
      await kickoffClaudeLead(store, layout);
      await runHooks(store, 'on_start', layout.hooks.onStart, layout.root, { TEAMUX_TEAM_DIR: teamDir });
      const worktrees = await prepareRunWorktrees(layout, store, ctx.env);
      await outer;
      startupMark('set up');
      // With tmux, a native lead's stand-in is served beside the session, so it outlives this screen.
      if (backend === 'tmux' && isNativeLead(layout.lead)) await (await import('./tmux-bridge.js')).startTmuxBridge(teamDir, path.join(BIN_DIR, 'teamux'), nativeBridgeSpec(layout, store, extraEnv, (await import('./tmux-backend.js')).tmuxSocket(ctx.env)));
      const mux = muxFor({ layout, layoutFile: file, keys, store, host, teamDir, extraEnv, demo: extraEnv.TEAMUX_DEMO_URL !== undefined, memberEnv: trust.memberEnv, restartEnv: trust.restartEnv, boot: ctx.boot, greeting: taken.greeting, worktrees, web: webSettingsOf(layout, web) });
      trust.seePanes(() => mux.panes);
      const code = await mux.run();
      await retireRunWorktrees(store, ctx.env);
      await sayWhyDetached(ctx, store);
      return code;
    } finally {
      await outer;
      trust.dispose();
      await closeDemo?.();
      await release();
    }
  },
};

/** Whether the layout's team runs in the tmux server now, from this team folder. */
async function runsUnderTmux(ctx: CliContext, team: string, teamDir: string): Promise<boolean> {
  const [{ sessionTeamDir, tmuxSocket }, { TmuxHost }] = await Promise.all([import('./tmux-backend.js'), import('../host/tmux/index.js')]);
  return (await TmuxHost.hasSession(tmuxSocket(ctx.env), team)) && (await sessionTeamDir(team, ctx.env)) === teamDir;
}

/** A start refused (exit 3): what and what to do, as every refusal says it. */
function refuseStart(ctx: CliContext, message: string, hint: string): number {
  ctx.err(`teamux: refused: ${message}\n  hint: ${hint}`);
  return EXIT_REFUSED;
}
