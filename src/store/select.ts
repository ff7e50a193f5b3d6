/**
 * Choosing the store a team lives in: the team folder (the default), or a NATS JetStream server when
 * a store URL is given (the layout's `store:`, --store or TEAMUX_STORE). With NATS, the team is named
 * (--team or TEAMUX_TEAM) and this machine keeps only a local folder for its log, transcripts and
 * spawn files. The NATS client is imported only when it is used.
 */
import * as path from 'node:path';
import type { StoreBackend } from './backend.js';
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
  return { ok: true, ...r };
}

/** The local folder of a NATS team when none is given: ./.teamux/TEAM under `cwd`. */
export function localDirFor(cwd: string, team: string): string {
  return teamDirFor(path.resolve(cwd), team);
}
