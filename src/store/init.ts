/**
 * Create or refresh a team folder from a team description (built from a layout by the caller).
 * Refreshing keeps what is live: the status and pid of members that are still declared, the Claude
 * Code teammates the tmux stand-in registered (they are never declared), the tasks, the inboxes and
 * the requests. Seed tasks are created only on a board that never had a task.
 * Members with `mcp: true` get their MCP client config written to mcp/<name>.json (0600, atomic).
 * Temp files left by writers that died between writing and renaming them are swept.
 */
import type { Budget } from '../protocol/budget.js';
import * as path from 'node:path';
import type { PipelineSettings } from '../protocol/pipeline.js';
import type { Member } from '../protocol/types.js';
import { ensureDir, sweepTempFiles, writeJson } from './fsx.js';
import { withLock } from './lock.js';
import type { StoreBackend } from './backend.js';
import type { TeamPaths } from './paths.js';
import { TeamStore } from './team.js';

/** A member as a layout declares it. */
export interface MemberSpec {
  name: string;
  role: string;
  kind: 'lead' | 'teammate';
  runtime: 'command' | 'agent' | 'claude' | 'codex';
  /** Answers shutdown requests (agents and Claude Code always; commands when the layout says `speaks_protocol`). */
  speaksProtocol: boolean;
  planRequired: boolean;
  /** Who answers its plan requests: the lead's name, `human` (the operator), or null for the lead itself. */
  planApprover: string | null;
  tools: string[] | null;
  /** The member's own budget, if any. */
  budget?: Budget | null;
}

/** A seed task; `key` is the id used in the layout, `blockedBy` refers to other keys. */
export interface SeedTaskSpec {
  key: string;
  subject: string;
  description: string;
  blockedBy: string[];
}

/** Everything init needs. */
export interface TeamSpec {
  name: string;
  root: string;
  layoutFile: string | null;
  members: MemberSpec[];
  seedTasks: SeedTaskSpec[];
  /** The whole team's budget, if any. */
  budget?: Budget | null;
  /** Ready MCP client configs to write, by member name (members with `mcp: true`). */
  mcpConfigs?: Record<string, unknown>;
  /** The staged pipeline's settings, when the layout has a `pipeline:` section. */
  pipeline?: Omit<PipelineSettings, 'version'> | null;
}

/** Create or refresh the folder; returns the store and whether seed tasks were created. */
export async function initTeam(dir: string, spec: TeamSpec, backend?: (paths: TeamPaths) => StoreBackend): Promise<{ store: TeamStore; created: boolean; seeded: number }> {
  const store = await TeamStore.forCreate(dir, 'init', backend);
  const subs = [store.paths.tasks, store.paths.inboxes, store.paths.requests, store.paths.heartbeats, store.paths.spawns, store.paths.transcripts];
  await Promise.all(subs.map((sub) => ensureDir(sub)));
  // Temp files of writers killed before their rename (kill -9, a crash) are never renamed: sweep them.
  const swept = await sweepTempFiles([store.dir, ...subs, store.paths.mcpConfigs]);
  if (swept.length > 0) store.log.info(`removed ${swept.length} temp file(s) left by writers that are gone: ${swept.map((f) => path.relative(store.dir, f)).join(', ')}`);
  // Under the config lock, so a refresh never loses a member update made at the same moment.
  const created = await withLock(store.paths.config, () => writeRoster(store, spec));
  for (const [member, config] of Object.entries(spec.mcpConfigs ?? {})) {
    await ensureDir(store.paths.mcpConfigs);
    await writeJson(store.paths.mcpConfig(member), config);
  }
  const seeded = await seed(store, spec);
  // The pipeline's settings follow the layout; its state and plan task are made once.
  if (spec.pipeline) await store.pipeline.init(spec.pipeline);
  return { store, created, seeded };
}

/** Write team.json from the spec, keeping the live state of members still declared; true if new. */
async function writeRoster(store: TeamStore, spec: TeamSpec): Promise<boolean> {
  const old = await store.readConfig();
  const previous = new Map<string, Member>(old.ok ? old.config.members.map((m) => [m.name, m]) : []);
  const members: Member[] = spec.members.map((s) => {
    const was = previous.get(s.name);
    return {
      name: s.name, role: s.role, kind: s.kind, runtime: s.runtime, speaksProtocol: s.speaksProtocol, planRequired: s.planRequired, planApprover: s.planApprover, tools: s.tools,
      ...(s.budget ? { budget: s.budget } : {}),
      status: was?.status ?? 'exited', pid: was?.pid ?? null, pidStart: was?.pidStart ?? null, joinedAt: was?.joinedAt ?? null, exitCode: was?.exitCode ?? null,
    };
  });
  // Claude Code teammates are added at run time by the tmux stand-in, not declared: keep them (unless
  // the layout now declares a member of the same name, which wins).
  const declared = new Set(members.map((m) => m.name));
  for (const was of previous.values()) {
    if (!was.claudeTeam) continue;
    if (declared.has(was.name)) store.log.warn(`team.json: Claude Code teammate ${was.name} (${was.claudeTeam}) is replaced by the layout's member of the same name`);
    else members.push(was);
  }
  await store.writeConfig({
    version: 1, name: spec.name, root: spec.root, layoutFile: spec.layoutFile,
    createdAt: old.ok ? old.config.createdAt : new Date().toISOString(), run: old.ok ? old.config.run : null, members,
    ...(spec.budget ? { budget: spec.budget } : {}),
  });
  return !old.ok;
}

/** Create the seed tasks on a board that never had a task; returns how many. */
async function seed(store: TeamStore, spec: TeamSpec): Promise<number> {
  if (spec.seedTasks.length === 0 || (await store.tasks.everHadTask())) return 0;
  const ids = new Map<string, string>();
  // Blockers first (the layout loader rejects cycles and unknown keys).
  for (const t of topoOrder(spec.seedTasks)) {
    const r = await store.tasks.create({ subject: t.subject, description: t.description, blockedBy: t.blockedBy.map((k) => ids.get(k)!) });
    if (!r.ok) throw new Error(`seed task ${t.key}: ${r.message}`);
    ids.set(t.key, r.value.id);
  }
  return ids.size;
}

/** Order seed tasks so every blocker comes before the tasks it blocks (stable otherwise). */
function topoOrder(tasks: SeedTaskSpec[]): SeedTaskSpec[] {
  const byKey = new Map(tasks.map((t) => [t.key, t]));
  const done = new Set<string>();
  const out: SeedTaskSpec[] = [];
  const visit = (t: SeedTaskSpec, stack: Set<string>): void => {
    if (done.has(t.key) || stack.has(t.key)) return;
    stack.add(t.key);
    for (const k of t.blockedBy) {
      const up = byKey.get(k);
      if (up) visit(up, stack);
    }
    done.add(t.key);
    out.push(t);
  };
  for (const t of tasks) visit(t, new Set());
  return out;
}
