/**
 * Where everything lives inside a team folder `<root>/.teamux/<team>/`. Names are checked against
 * NAME_PATTERN before they become path parts, so no member name can reach outside the folder.
 */
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NAME_PATTERN } from '../protocol/message-line.js';

/** A synchronous require for built-in modules loaded only when needed. */
const requireBuiltin = createRequire(import.meta.url);

/** The paths of one team folder. */
export class TeamPaths {
  constructor(readonly dir: string) {}

  get config(): string { return path.join(this.dir, 'team.json'); }
  get tasks(): string { return path.join(this.dir, 'tasks'); }
  get highWater(): string { return path.join(this.dir, 'tasks', 'highwater'); }
  get inboxes(): string { return path.join(this.dir, 'inboxes'); }
  get requests(): string { return path.join(this.dir, 'requests'); }
  get heartbeats(): string { return path.join(this.dir, 'heartbeats'); }
  get spawns(): string { return path.join(this.dir, 'spawn'); }
  get transcripts(): string { return path.join(this.dir, 'transcripts'); }
  get trust(): string { return path.join(this.dir, 'trust'); }
  get events(): string { return path.join(this.dir, 'events.jsonl'); }
  /** Sealed segments of the append-only logs (events, inboxes, teamux.log), see store/segments.ts. */
  get segments(): string { return path.join(this.dir, 'segments'); }
  get log(): string { return path.join(this.dir, 'teamux.log'); }
  get claude(): string { return path.join(this.dir, 'claude'); }
  get mcpConfigs(): string { return path.join(this.dir, 'mcp'); }
  /** Codex CLI members' config homes (CODEX_HOME) and scratch folders. */
  get codex(): string { return path.join(this.dir, 'codex'); }
  /** The unix socket of the tmux stand-in a `native_teams` Claude Code lead talks to. */
  get tmuxSocket(): string { return path.join(this.dir, 'tmux.sock'); }
  /** The pid file of the tmux stand-in's bridge process (tmux backend): one per team. */
  get tmuxBridgeLock(): string { return path.join(this.dir, 'tmux-bridge.pid'); }
  /**
   * The folder of everything teamux executes on a member's behalf (the Claude Code hooks, the tmux
   * stand-in): outside the team folder, written by the screen only (store/exec-folder.ts).
   */
  get exec(): string { return execFolderOf(this.dir); }
  /** The folder holding the `tmux` stand-in, first on a `native_teams` lead's PATH (nothing else in it). */
  get tmuxShimBin(): string { return path.join(this.exec, 'tmux'); }
  get usage(): string { return path.join(this.dir, 'usage'); }

  /** The folders a store refuses to open when one is a link or not a folder. */
  get guardedFolders(): string[] { return [this.tasks, this.inboxes, this.requests, this.heartbeats, this.spawns, this.transcripts, this.mcpConfigs]; }
  /** The top-level files a store refuses to open when one is a link or not a regular file. */
  get guardedFiles(): string[] { return [this.config, this.events, this.log]; }

  task(id: string): string { return path.join(this.tasks, `${id}.json`); }
  inbox(member: string): string { return path.join(this.inboxes, `${safeName(member)}.jsonl`); }
  cursor(member: string, reader: string): string {
    return path.join(this.inboxes, `${safeName(member)}.cursor.${safeName(reader)}.json`);
  }
  request(id: string): string { return path.join(this.requests, `${id}.json`); }
  heartbeat(member: string): string { return path.join(this.heartbeats, `${safeName(member)}.json`); }
  transcript(member: string): string { return path.join(this.transcripts, `${safeName(member)}.json`); }
  /** A Claude Code member's generated files (settings, MCP config, demo HOME). */
  claudeMember(member: string): string { return path.join(this.claude, safeName(member)); }
  /** A Codex CLI member's generated folder: `home/` is its CODEX_HOME, `tmp/` its TMPDIR. */
  codexMember(member: string): string { return path.join(this.codex, safeName(member)); }
  /** A Claude Code (or Codex CLI) member's activity: state, tokens and cost, as its hooks last saw them. */
  claudeActivity(member: string): string { return path.join(this.claude, `${safeName(member)}.activity.json`); }
  enrolment(id: string): string { return path.join(this.trust, `enrol-${safeName(id)}.json`); }
  enrolmentAnswer(id: string): string { return path.join(this.trust, `answer-${safeName(id)}.json`); }
  /** Model calls of a teamux agent member, one usage record per line (budgets, `teamux report`). */
  usageLog(member: string): string { return path.join(this.usage, `${safeName(member)}.jsonl`); }
  /** The ready MCP client config of a member with `mcp: true`. */
  mcpConfig(member: string): string { return path.join(this.mcpConfigs, `${safeName(member)}.json`); }
}

/** The team folder for a team name under a root folder. */
export function teamDirFor(root: string, team: string): string {
  return path.join(path.resolve(root), '.teamux', safeName(team));
}

/** Return the name if it is safe as a path part, else throw (a bug: callers validate first). */
export function safeName(name: string): string {
  if (!NAME_PATTERN.test(name)) throw new Error(`unsafe name ${JSON.stringify(name)}`);
  return name;
}

/**
 * Where a team folder's executables live: `<temp folder>/teamux-<uid>/exec-<hash
 * of the team folder>`, so no member that may write the team folder writes what teamux runs for it,
 * and a sandbox can show it read-only.
 */
export function execFolderOf(teamDir: string, runtimeDir = tmpdir(), uid = process.getuid?.() ?? 0): string {
  // node:crypto is loaded on first use, not with this module: the CLI's short paths (a claim, an
  // inbox read) import the paths and never ask for the exec folder, and loading crypto costs them.
  const { createHash } = requireBuiltin('node:crypto') as typeof import('node:crypto');
  const hash = createHash('sha256').update(path.resolve(teamDir)).digest('hex').slice(0, 16);
  return path.join(runtimeDir, `teamux-${uid}`, `exec-${hash}`);
}
