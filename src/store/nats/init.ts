/**
 * Creating a team on a NATS server for tests and tools that hold a URL: the same init as the folder
 * (roster, seed tasks), with the shared state written to JetStream. Throws with the problem's message
 * and hint when the server cannot be used.
 */
import type { TeamSpec } from '../init.js';
import { initRemoteTeam } from '../select.js';
import type { TeamStore } from '../team.js';

/** Create or refresh `spec.name` on `url`, keeping `dir` as the local folder. */
export async function initTeamOn(url: string, env: NodeJS.ProcessEnv, dir: string, spec: TeamSpec): Promise<{ store: TeamStore; created: boolean; seeded: number }> {
  const r = await initRemoteTeam(url, dir, spec, env);
  if (!r.ok) throw new Error(`${r.error.message} (hint: ${r.error.hint})`);
  return r;
}
