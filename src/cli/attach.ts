/**
 * `teamux attach [TEAM] [-d]`: open the TUI over a team running under tmux (the tmux backend), taking
 * it over from another terminal with -d, as tmux's `attach -d` does.
 */
import { takeWebFlag, webSettingsOf } from './web-flag.js';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { withdrawOrphanPermissions } from '../store/resume.js';
import { readStoreMarker } from '../store/select.js';
import type { TeamStore } from '../store/team.js';
import { parse, UsageError } from './context.js';
import { loadLayoutOrFail } from './layout-team.js';
import { detachMux, liveMux, ownTerminal, sayWhyDetached } from './mux-lock.js';
import { pickTeam, openTeamStore, TEAM_OPTS } from './running-team.js';
import { BIN_DIR, keyTableOf, muxFor, nativeBridgeSpec, openScreen, requireTty } from './screen-setup.js';
import { trustFor } from './screen-trust.js';
import { requireSandbox } from './sandbox-launch.js';
import { isNativeLead } from '../agents/claude/member-launch.js';
import { attachTmux, bridgeSlots, tmuxSocket } from './tmux-backend.js';
import { adoptedTeammates } from '../agents/claude/tmux-teammates.js';
import type { Verb } from './verb.js';
import { learnOuterTerminal } from '../ui/outer-query.js';

export const attachVerb: Verb = {
  name: 'attach',
  usage: ['attach [TEAM] [-d] [--web[=PORT]]'],
  examples: ['teamux attach', 'teamux attach demo', 'teamux attach -d demo   # take it over from another terminal'],
  async run(ctx, allArgv) {
    const { argv, web } = takeWebFlag(allArgv);
    const { values, positionals } = parse(argv, { ...TEAM_OPTS, 'detach-other': { type: 'boolean', short: 'd', default: false } }, this.usage[0]!);
    const { team, dir } = await pickTeam(ctx, positionals[0], 'attach');
    requireTty('attach');
    const first = await openTeamStore(dir, ctx);
    const cfg = await first.config();
    if (!cfg.layoutFile) throw new UsageError(`${dir}/team.json does not name its layout file`, 'start the team again with `teamux start LAYOUT --backend tmux`');
    const { layout } = loadLayoutOrFail(cfg.layoutFile, ctx.env);
    requireSandbox(layout, cfg.layoutFile);
    const keys = keyTableOf(layout, cfg.layoutFile);
    await takeOver(first, team, values['detach-other']);
    // A team on a NATS store: its local folder's marker says where (credentials come from the env).
    const marker = readStoreMarker(dir);
    const remote = marker ? { url: marker.store, team: marker.team, env: ctx.env } : undefined;
    const { store, release } = await openScreen(dir, 'tmux', remote ?? null);
    // The run goes on, but this screen has a new key: members still running from the screen that
    // started them trust that screen's key only, and take this one's decisions after a restart (C-a R).
    const run = cfg.run ?? (await store.startRun()).run;
    const trust = await trustFor(store, layout, run);
    for (const m of cfg.members) if (m.pid !== null) store.startedByEarlierScreen.set(m.name, m.pid);
    for (const q of await withdrawOrphanPermissions(store)) store.log.info(`request ${q.id} (permission from ${q.from}) ${q.response?.text ?? 'withdrawn'}`);
    store.log.warn('attached with a new trust key: plan decisions from this screen count for members started or restarted (C-a R) from it; members still running from the earlier screen must be restarted first');
    try {
      const { host, procs } = await attachTmux(team, layout.root, dir, ctx.env);
      const demoUrl = existsSync(path.join(dir, 'demo-url'));
      await learnOuterTerminal({ input: process.stdin, output: process.stdout }, layout.theme);
      // A native lead's bridge lives as long as the session; one that crashed is started again.
      if (isNativeLead(layout.lead)) await (await import('./tmux-bridge.js')).startTmuxBridge(dir, path.join(BIN_DIR, 'teamux'), nativeBridgeSpec(layout, store, { ...trust.env }, tmuxSocket(ctx.env)));
      const teammates = adoptedTeammates(procs, [layout.lead, ...layout.teammates].map((m) => m.name), await bridgeSlots(team, ctx.env), layout.lead.cwd);
      const mux = muxFor({ layout, layoutFile: cfg.layoutFile, keys, store, host, teamDir: dir, extraEnv: { ...trust.env }, demo: demoUrl && !ctx.env.ANTHROPIC_API_KEY, adopt: procs, teammates, memberEnv: trust.memberEnv, restartEnv: trust.restartEnv, boot: ctx.boot, web: webSettingsOf(layout, web) });
      trust.seePanes(() => mux.panes);
      const code = await mux.run();
      await sayWhyDetached(ctx, store);
      return code;
    } finally {
      trust.dispose();
      await release();
    }
  },
};

/** With another TUI attached: take over (-d), as tmux's `attach -d` does, or refuse with the way to. */
async function takeOver(store: TeamStore, team: string, detachOther: boolean): Promise<void> {
  const other = await liveMux(store);
  if (!other) return;
  if (!detachOther) {
    throw new UsageError(
      `team "${team}" is already attached in another terminal (teamux pid ${other.pid}, since ${other.startedAt})`,
      `take it over here with \`teamux attach -d ${team}\` (the other terminal is told and let go), or free it with \`teamux detach ${team}\``,
    );
  }
  if (other.backend !== 'tmux') throw new UsageError(`team "${team}" is run by a pty-backend teamux (pid ${other.pid}); its members live and die with it`, 'switch to that terminal, or quit it there first');
  const tty = ownTerminal();
  const why = `taken over by \`teamux attach -d\` from ${tty ?? 'another terminal'} (pid ${process.pid})`;
  if (!(await detachMux(store, other, why))) {
    throw new UsageError(`the teamux attached to "${team}" (pid ${other.pid}) did not let go within 10 s`, `stop it with kill ${other.pid}, then attach again`);
  }
}
