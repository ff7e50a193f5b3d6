/**
 * The server side of the tmux stand-in: a unix socket the `tmux` on a native lead's PATH talks to
 * (one JSON line in, one out), a TmuxShim that decides what each command means, and the surface it
 * acts on: the lead's pane (`%0`) and the panes opened for it, driven through a PaneControl. It owns
 * the socket, the tmux pane ids it handed out, the titles set with `select-pane -T`, the teammates
 * it registered in team.json, and their `--lead-verify-key`s (kept in memory only: a key read back
 * from the team folder could have been swapped by a teammate). Commands run one at a time, in arrival order,
 * each change only once the calling process may make it (src/agents/claude/tmux-shim/caller-gate.ts).
 */
import type { Server, Socket } from 'node:net';
import { listenUnix } from '../../host/unix-server.js';
import { rmSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { parseLeadVerifyKey } from './lead-sig.js';
import { shellCommandOf } from './tmux-shim/argv.js';
import { CallerGate } from './tmux-shim/caller-gate.js';
import { TmuxShim, type PaneRun, type ShimAnswer, type ShimPane, type TmuxSurface } from './tmux-shim/exec.js';
import { demoRouted, ownMcpConfig, teammateOf } from './tmux-shim/teammate.js';
import { shellQuote } from '../../host/tmux/quote.js';
import { mcpClientConfig } from '../../mcp/config.js';
import { claudeFilesOf } from '../../store/claude.js';
import { tmuxShimFile, writeTeammateMcp } from '../../store/claude-teams.js';
import { LEAD_PANE_ID } from './launch.js';
import { OPERATOR } from '../../protocol/operator.js';
import type { Member } from '../../protocol/types.js';
import type { TeamStore } from '../../store/team.js';
import type { MemberLaunch } from '../../app/multiplexer.js';
import type { PaneControl } from './mux-pane-control.js';

/** What the bridge is started with. */
export interface BridgeOptions<H> {
  socket: string;
  store: TeamStore;
  control: PaneControl<H>;
  /** The native lead as the multiplexer launched it (its env is the teammates' base). */
  lead: MemberLaunch;
  /** Teammates are held to teamux's plan gate. */
  planRequired: boolean;
  /** The session name formats show (#{session_name}). */
  session: string;
  /** The teamux launcher a teammate's own MCP config runs (bin/teamux). */
  teamuxBin?: string;
  /** Panes an earlier bridge handed out (a bridge process started again reads them from tmux's tags). */
  known?: Array<{ id: string; handle: H; title: string; cwd: string; command: string }>;
}

/** One pane the bridge knows, by its tmux id. */
interface Known<H> {
  id: string;
  handle: H;
  title: string;
  cwd: string;
  command: string;
}

const REQUEST_LIMIT = 256 * 1024;

/** The teamux-only command a screen asks the bridge process for a teammate's lead verify key with. */
export const VERIFY_KEY_COMMAND = 'teamux-verify-key';
const IDLE_CONNECTION_MS = 10_000;

/** The running bridge. */
export class TmuxBridge<H> implements TmuxSurface {
  readonly session: string;
  readonly serverPid = process.pid;
  private readonly shim = new TmuxShim(this);
  private readonly known: Known<H>[] = [];
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** Each teammate's --lead-verify-key, as the lead's respawn-pane gave it (see src/agents/claude/lead-sig.ts). */
  private readonly verifyKeys = new Map<string, KeyObject>();
  private readonly verifyKeyTexts = new Map<string, string>();
  /** Who may change panes: the calling process, never its claimed $TMUX_PANE (caller-gate.ts). */
  private readonly gate: CallerGate;

  constructor(private readonly opts: BridgeOptions<H>) {
    this.session = opts.session;
    for (const k of opts.known ?? []) this.known.push({ ...k });
    // Ids go on from the highest one handed out: Claude Code keeps them in its team config.
    this.nextId = Math.max(0, ...this.known.map((k) => Number(k.id.slice(1)) || 0)) + 1;
    this.gate = new CallerGate({
      panes: () => this.panes().flatMap((p) => (p.dead || p.pid === null ? [] : [{ id: p.id, pid: p.pid }])),
      leadPane: LEAD_PANE_ID,
      log: opts.store.log,
      say: (text) => opts.control.say(text),
      shim: tmuxShimFile(opts.store.paths),
    });
  }

  /** Listen on the socket (a stale socket file from a crashed run is replaced). */
  async listen(): Promise<void> {
    const server = await listenUnix(this.opts.socket, (s) => this.accept(s));
    server.on('error', (err) => this.opts.store.log.error('tmux stand-in socket failed', err));
    this.server = server;
    this.opts.store.log.info(`tmux stand-in listening on ${this.opts.socket}`);
  }

  /** Run one command line as the stand-in would (the socket's handler; also used by tests). */
  handle(argv: string[], pane: string | null): Promise<ShimAnswer> {
    const own = this.teamuxOnly(argv);
    if (own) return Promise.resolve(own);
    const arrived = Date.now();
    const run = this.queue.then(async () => {
      await this.opts.control.refresh?.();
      return this.shim.run(argv, { pane });
    });
    this.queue = run.catch(() => undefined);
    return run.then((answer) => {
      this.opts.store.log.info(`tmux stand-in: ${pane ?? '-'} ${JSON.stringify(argv).slice(0, 200)} → ${answer.code} ${JSON.stringify(answer.out).slice(0, 80)} (${Date.now() - arrived} ms)`);
      for (const n of answer.notes) this.opts.store.log.warn(`${n} (from ${pane ?? 'outside a pane'})`);
      if (answer.code !== 0) this.opts.control.say(`tmux stand-in: ${answer.err.trim()} (tmux ${argv.join(' ').slice(0, 60)})`);
      return answer;
    }, (err: unknown) => {
      this.opts.store.log.error(`tmux stand-in: ${argv.join(' ')} failed`, err);
      return { out: '', err: `teamux: internal error: ${err instanceof Error ? err.message : String(err)}\n`, code: 1, notes: [] };
    });
  }

  private accept(s: Socket): void {
    this.sockets.add(s);
    s.setEncoding('utf8');
    s.setTimeout(IDLE_CONNECTION_MS, () => s.destroy());
    let buffer = '';
    const onData = (chunk: string): void => {
      buffer += chunk;
      if (buffer.length > REQUEST_LIMIT) {
        s.end(`${JSON.stringify({ out: '', err: 'teamux: command line too long\n', code: 1 })}\n`);
        return;
      }
      const nl = buffer.indexOf('\n');
      if (nl < 0) return;
      s.off('data', onData);
      const req = parseRequest(buffer.slice(0, nl));
      const answer = req
        // A control whose panes are read from elsewhere (tmux) reads them first: the gate places the caller in them.
        ? (this.opts.control.refresh?.() ?? Promise.resolve()).then(() => this.gate.admit(s, req.argv, req.pane, req.pid)).then((a) => ('refused' in a ? a.refused : this.handle(req.argv, a.pane)))
        : Promise.resolve({ out: '', err: 'teamux: bad request from the tmux stand-in\n', code: 1, notes: [] });
      void answer.then((a) => {
        if (s.destroyed) return;
        if (req?.bytes) {
          // The Perl stand-in's framing: "code outBytes errBytes\n", then the bytes.
          const out = Buffer.from(a.out, 'utf8');
          const err = Buffer.from(a.err, 'utf8');
          s.end(Buffer.concat([Buffer.from(`${a.code} ${out.length} ${err.length}\n`), out, err]));
        } else {
          s.end(`${JSON.stringify({ out: a.out, err: a.err, code: a.code })}\n`);
        }
      });
    };
    s.on('data', onData);
    s.on('error', () => undefined);
    s.on('close', () => this.sockets.delete(s));
  }

  /** Stop listening and remove the socket file; the panes stay the multiplexer's. */
  dispose(): void {
    for (const s of this.sockets) s.destroy();
    this.gate.dispose();
    this.server?.close();
    this.server = null;
    this.opts.control.dispose?.();
    rmSync(this.opts.socket, { force: true });
  }

  // --- TmuxSurface -----------------------------------------------------------------------------

  window(): { width: number; height: number } {
    return this.opts.control.area();
  }

  /** The lead's pane and the panes opened through the stand-in that are still there. */
  panes(): ShimPane[] {
    this.adoptLead();
    const c = this.opts.control;
    const out: ShimPane[] = [];
    for (const k of this.known) {
      const f = c.facts(k.handle);
      if (!f) continue;
      const r = f.rect ?? { left: 0, top: 0, width: 0, height: 0 };
      out.push({ id: k.id, title: k.title, left: r.left, top: r.top, width: r.width, height: r.height, active: f.focused, dead: !f.alive, pid: f.pid, cwd: k.cwd, command: k.command });
    }
    if (out.length > 0 && !out.some((p) => p.active)) out[0]!.active = true;
    return out;
  }

  private adoptLead(): void {
    if (this.known.some((k) => k.id === LEAD_PANE_ID)) return;
    const lead = this.opts.control.all().find((h) => this.opts.control.facts(h)?.name === this.opts.lead.name);
    if (lead !== undefined) this.known.unshift({ id: LEAD_PANE_ID, handle: lead, title: this.opts.lead.name, cwd: this.opts.lead.cwd, command: 'claude' });
  }

  private byId(id: string): Known<H> | undefined {
    return this.known.find((k) => k.id === id && this.opts.control.facts(k.handle) !== null);
  }

  async split(_target: ShimPane, run: PaneRun): Promise<{ id: string } | { error: string }> {
    const id = `%${this.nextId++}`;
    const launch = this.launchOf(id, id, 'pane opened by Claude Code', run, run.words.join(' '));
    if ('error' in launch) return launch;
    const handle = await this.opts.control.open(launch);
    this.known.push({ id, handle, title: '', cwd: launch.cwd, command: commandName(run.words) });
    this.opts.store.log.info(`tmux stand-in: opened ${id} for the Claude Code lead`);
    return { id };
  }

  async respawn(target: ShimPane, run: PaneRun): Promise<{ ok: true } | { error: string }> {
    const k = this.byId(target.id);
    if (!k) return { error: `can't find pane: ${target.id}` };
    if (k.id === LEAD_PANE_ID) return { error: "teamux does not respawn the lead's own pane" };
    const line = run.words.length === 1 ? run.words[0]! : run.words.join(' ');
    const mate = teammateOf(line);
    if (mate && 'error' in mate) return mate;
    let name = k.id;
    let command = line;
    if (mate) {
      const joined = await this.register(mate.name, mate.team);
      if (!joined.ok) return { error: joined.error };
      name = mate.name;
      this.noteVerifyKey(mate.name, mate.leadVerifyKey);
      const demo = this.opts.lead.env.TEAMUX_DEMO_URL;
      if (demo) command = demoRouted(command, demo, this.opts.lead.name, mate.name);
      // The lead's flags come along, its MCP config too: the teammate gets its own, speaking as itself.
      const paths = this.opts.store.paths;
      const own = await writeTeammateMcp(paths, mate.name, mcpClientConfig(paths.dir, mate.name, this.opts.teamuxBin));
      const swapped = ownMcpConfig(command, claudeFilesOf(paths, this.opts.lead.name).mcp, own, shellQuote);
      if (swapped === null) return { error: `the teammate's --mcp-config is not the lead's file ${claudeFilesOf(paths, this.opts.lead.name).mcp}; refusing to start it with an MCP server speaking as someone else` };
      command = swapped;
    }
    const words = run.words.length === 1 ? [command] : run.words;
    const launch = this.launchOf(k.id, name, mate ? `Claude Code teammate (${mate.team})` : 'pane opened by Claude Code', { ...run, words }, line, mate ? name : null);
    if ('error' in launch) return launch;
    k.handle = await this.opts.control.replace(k.handle, launch);
    k.cwd = launch.cwd;
    k.command = mate ? 'claude' : commandName(run.words);
    if (mate) this.opts.control.say(`Claude Code lead started teammate ${mate.name}`);
    return { ok: true };
  }

  /**
   * Commands only teamux's own screen sends, never Claude Code: `teamux-verify-key NAME` gives the
   * `--lead-verify-key` the lead started NAME with (a public key), so a screen attached after the
   * bridge process learnt it checks lead_sig too. Not logged: a screen asks again for a key it lacks.
   */
  private teamuxOnly(argv: readonly string[]): ShimAnswer | null {
    if (argv[0] !== VERIFY_KEY_COMMAND) return null;
    const key = this.verifyKeyTexts.get((argv[1] ?? '').toLowerCase());
    return key ? { out: `${key}\n`, err: '', code: 0, notes: [] } : { out: '', err: `no lead verify key for ${argv[1] ?? '(none)'}\n`, code: 1, notes: [] };
  }

  /** The key the lead's messages to `teammate` are checked with, once its respawn named one. */
  leadVerifyKey(teammate: string): KeyObject | null {
    return this.verifyKeys.get(teammate.toLowerCase()) ?? null;
  }

  private noteVerifyKey(teammate: string, value: string | null): void {
    if (value === null) return;
    const key = parseLeadVerifyKey(value);
    if (key) {
      this.verifyKeys.set(teammate.toLowerCase(), key);
      this.verifyKeyTexts.set(teammate.toLowerCase(), value);
    }
    else this.opts.store.log.warn(`tmux stand-in: teammate ${teammate}'s --lead-verify-key is not an ed25519 key teamux can read; its lead messages stay unverified`);
  }

  setTitle(target: ShimPane, title: string): void {
    const k = this.byId(target.id);
    if (!k) return;
    k.title = title;
    if (k.id !== LEAD_PANE_ID) this.opts.control.setTitle?.(k.handle, title);
  }

  focus(target: ShimPane): void {
    const k = this.byId(target.id);
    if (k) this.opts.control.focus(k.handle);
  }

  async kill(target: ShimPane): Promise<void> {
    const k = this.byId(target.id);
    if (!k) return;
    const name = this.opts.control.facts(k.handle)?.name;
    await this.opts.control.close(k.handle);
    this.known.splice(this.known.indexOf(k), 1);
    if (name) await this.opts.store.updateMember(name, { status: 'exited' }).catch(() => undefined);
  }

  /** Add a Claude Code teammate to team.json (once; a name a layout member holds is refused). */
  private async register(name: string, team: string): Promise<{ ok: true } | { ok: false; error: string }> {
    const cfg = await this.opts.store.config();
    const had = cfg.members.find((m) => m.name === name);
    if (had) return had.claudeTeam ? { ok: true } : { ok: false, error: `teammate name "${name}" is already a member of the teamux team; name the teammate differently` };
    const member: Member = {
      name, role: `Claude Code teammate (${team})`, kind: 'teammate', status: 'exited', pid: null, pidStart: null, joinedAt: null, exitCode: null,
      planRequired: this.opts.planRequired, planApprover: OPERATOR, tools: null, runtime: 'claude', speaksProtocol: false, claudeTeam: team,
    };
    const added = await this.opts.store.addMember(member);
    return added.ok || added.reason === 'duplicate' ? { ok: true } : { ok: false, error: added.message };
  }

  /** The launch of a pane: the lead's environment (HOME, credentials, the stand-in on PATH), this pane's $TMUX_PANE. */
  private launchOf(id: string, name: string, role: string, run: PaneRun, _line: string, member: string | null = null): MemberLaunch | { error: string } {
    const shell = shellCommandOf(run.words);
    const lead = this.opts.lead;
    const env: Record<string, string> = { ...lead.env, ...run.env, TMUX_PANE: id };
    delete env.TEAMUX_ENROL_TOKEN;
    delete env.TEAMUX_ENROL_SOCKET;
    if (member) {
      env.TEAMUX_MEMBER = member;
      env.TEAMUX_PLAN_REQUIRED = this.opts.planRequired ? '1' : '0';
      env.TEAMUX_PLAN_APPROVER = OPERATOR;
    } else {
      delete env.TEAMUX_MEMBER;
    }
    const argv = shell ?? { command: env.SHELL || '/bin/sh', args: [] };
    return { name, role, isLead: false, speaksProtocol: false, command: argv.command, args: argv.args, cwd: run.cwd ?? lead.cwd, env };
  }
}

function parseRequest(line: string): { argv: string[]; pane: string | null; pid: number | null; bytes: boolean } | null {
  try {
    const v = JSON.parse(line) as { argv?: unknown; pane?: unknown; pid?: unknown; frame?: unknown };
    if (!Array.isArray(v.argv) || !v.argv.every((a) => typeof a === 'string')) return null;
    // The pid is a claim too: the caller check believes it only if that process holds the socket.
    const pid = typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 ? v.pid : null;
    return { argv: v.argv as string[], pane: typeof v.pane === 'string' ? v.pane : null, pid, bytes: v.frame === 'bytes' };
  } catch {
    return null;
  }
}

function commandName(words: readonly string[]): string {
  const first = (words.length === 1 ? words[0]!.trim().split(/\s+/)[0] : words[0]) ?? '';
  return first.split('/').pop() ?? first;
}
