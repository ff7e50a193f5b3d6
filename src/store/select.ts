/**
 * Choosing the store a team lives in: the team folder (the default), or a NATS JetStream server when
 * a store URL is given (the layout's `store:`, --store or TEAMUX_STORE). With NATS, the team is named
 * (--team or TEAMUX_TEAM) and this machine keeps only a local folder for its log, transcripts and
 * spawn files. The NATS client is imported only when it is used.
 */
import * as path from 'node:path';
import type { StoreBackend } from './backend.js';
import { readTextSync, writeJson } from './fsx.js';
import type { TeamSpec } from './init.js';
import type { TeamPaths } from './paths.js';
import { teamDirFor } from './paths.js';
import { TeamStore, type OpenError } from './team.js';

/** True for a store value that names a NATS server. */
export function isRemoteStore(value: string | undefined): value is string {
  return value !== undefined && /^(nats|tls):\/\//i.test(value.trim());
}

/** Connect to the NATS store for team `team`; a problem is an OpenError with a hint. */
export async function connectBackend(url: string, team: string, env: NodeJS.ProcessEnv, who: string): Promise<{ ok: true; backend: StoreBackend } | { ok: false; error: OpenError }> {
  const { openNatsBackend } = await import('./nats/backend.js');
  const r = await openNatsBackend(url, team, env, who);
  return r.ok ? r : { ok: false, error: { message: r.problem.message, hint: r.problem.hint } };
}

/**
 * Open team `team` on the NATS store at `url`, with `dir` (default: ./.teamux/TEAM under `cwd`) as this
 * machine's local folder. The team must already exist on the server.
 */
export async function openRemoteTeam(url: string, team: string, dir: string, env: NodeJS.ProcessEnv, who: string): Promise<{ ok: true; store: TeamStore; warnings: string[] } | { ok: false; error: OpenError }> {
  const b = await connectBackend(url, team, env, who);
  if (!b.ok) return b;
  const opened = await TeamStore.openOn(dir, () => b.backend, who);
  if (!opened.ok) await b.backend.close();
  return opened;
}

/** Create or refresh team `spec.name` on the NATS store at `url`; `dir` is the local folder. */
export async function initRemoteTeam(url: string, dir: string, spec: TeamSpec, env: NodeJS.ProcessEnv): Promise<{ ok: true; store: TeamStore; created: boolean; seeded: number } | { ok: false; error: OpenError }> {
  const b = await connectBackend(url, spec.name, env, 'init');
  if (!b.ok) return b;
  const { initTeam } = await import('./init.js');
  const r = await initTeam(dir, spec, (_paths: TeamPaths) => b.backend);
  await writeJson(path.join(r.store.dir, STORE_MARKER), { store: withoutCredentials(url), team: spec.name } satisfies StoreMarker);
  return { ok: true, ...r };
}

/**
 * The file in a NATS team's local folder that says where its shared state lives, so verbs run with
 * that folder (--team-dir, TEAMUX_TEAM_DIR, ./.teamux/TEAM) find the server without --store. It holds
 * the URL without credentials; those still come from the environment.
 */
export const STORE_MARKER = 'store.json';

/** What the marker holds. */
export interface StoreMarker {
  store: string;
  team: string;
}

/** A URL with any user:password taken out. */
function withoutCredentials(url: string): string {
  return url.replace(/(\w+:\/\/)[^@/,]*@/g, '$1');
}

/**
 * The marker of a local folder, or null when it has none (a folder team) or it is not one. A marker
 * that is a link, a FIFO or too large is an UnsafePathError naming it (never followed, never waited on).
 */
export function readStoreMarker(dir: string): StoreMarker | null {
  const text = readTextSync(path.join(dir, STORE_MARKER), 'record');
  if (text === undefined) return null;
  try {
    const m = JSON.parse(text) as Partial<StoreMarker>;
    return typeof m.store === 'string' && isRemoteStore(m.store) && typeof m.team === 'string' && /^[a-z][a-z0-9_-]*$/.test(m.team) ? { store: m.store, team: m.team } : null;
  } catch {
    return null;
  }
}

/** Open the team whose folder is `dir`: on the NATS store its marker names, or the folder itself. */
export async function openTeamAt(dir: string, env: NodeJS.ProcessEnv, who: string): Promise<{ ok: true; store: TeamStore; warnings: string[] } | { ok: false; error: OpenError }> {
  const marker = readStoreMarker(dir);
  return marker ? openRemoteTeam(marker.store, marker.team, dir, env, who) : TeamStore.open(dir, who);
}

/** The local folder of a NATS team when none is given: ./.teamux/TEAM under `cwd`. */
export function localDirFor(cwd: string, team: string): string {
  return teamDirFor(path.resolve(cwd), team);
}
