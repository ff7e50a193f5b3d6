/**
 * `teamux tmux-bridge --team-dir DIR`: the tmux stand-in's bridge process for a team on the tmux backend
 * (src/agents/claude/bridge-process.ts). `teamux start` and `teamux attach` start it detached, with its spec on
 * stdin; it is not meant to be typed. `startTmuxBridge` is that launch: it returns once the socket
 * answers, whether this process or one already running serves it.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import * as path from 'node:path';
import { parseBridgeSpec, runBridgeProcess, type BridgeSpec } from '../agents/claude/bridge-process.js';
import { openTeamAt } from '../store/select.js';
import { EXIT_BAD_INPUT, parse, UsageError } from './context.js';
import type { Verb } from './verb.js';

export const tmuxBridgeVerb: Verb = {
  name: 'tmux-bridge',
  usage: ['tmux-bridge --team-dir DIR   (spec as JSON on stdin; started by teamux start/attach)'],
  examples: ['teamux tmux-bridge --team-dir .teamux/demo < spec.json'],
  async run(ctx, argv) {
    const { values } = parse(argv, { 'team-dir': { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } }, this.usage[0]!);
    if (!values['team-dir']) throw new UsageError('tmux-bridge needs --team-dir DIR', 'it is started by `teamux start --backend tmux` for a native_teams lead');
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    const spec = parseBridgeSpec(Buffer.concat(chunks).toString('utf8'));
    if ('error' in spec) {
      ctx.err(`teamux: ${spec.error}`);
      return EXIT_BAD_INPUT;
    }
    const opened = await openTeamAt(path.resolve(ctx.cwd, values['team-dir']), ctx.env, 'tmux-bridge');
    if (!opened.ok) throw new UsageError(opened.error.message, opened.error.hint);
    const stop = new Promise<void>((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(sig, () => resolve());
    });
    try {
      return await runBridgeProcess(opened.store, spec, { stop });
    } finally {
      await opened.store.backend.close();
    }
  },
};

/** Ask the socket for `-V`: true once a bridge answers there. */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(socket);
    let text = '';
    const done = (ok: boolean): void => {
      c.destroy();
      resolve(ok);
    };
    c.setTimeout(2_000, () => done(false));
    c.on('connect', () => c.write(`${JSON.stringify({ argv: ['-V'], pane: null })}\n`));
    c.on('data', (d) => (text += d.toString('utf8')));
    c.on('end', () => done(text.includes('tmux ')));
    c.on('error', () => done(false));
  });
}

/**
 * Start the team's bridge process (detached, its own process group, outliving this screen) and wait
 * until the socket answers. If one already serves the team, the new one sees the lock and ends.
 */
export async function startTmuxBridge(teamDir: string, teamuxBin: string, spec: BridgeSpec, timeoutMs = 20_000): Promise<void> {
  const child = spawn(process.execPath, [teamuxBin, 'tmux-bridge', '--team-dir', teamDir], { detached: true, stdio: ['pipe', 'ignore', 'ignore'], cwd: spec.lead.cwd });
  let exited: number | null = null;
  child.on('exit', (code) => (exited = code ?? 1));
  child.on('error', () => (exited = 127));
  child.stdin.on('error', () => undefined);
  child.stdin.end(JSON.stringify(spec));
  child.unref();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await answers(spec.socket)) return;
    if (exited !== null && exited !== 0) throw new UsageError(`the tmux stand-in's bridge process exited with ${exited}`, `see ${path.join(teamDir, 'teamux.log')}`);
    if (Date.now() > deadline) throw new UsageError(`the tmux stand-in's bridge did not answer on ${spec.socket} within ${timeoutMs / 1000} s`, `see ${path.join(teamDir, 'teamux.log')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
