/**
 * Spawn requests (version 1): the lead's spawn_teammate tool writes `<team>/spawn/<epoch-ms>-<name>.json`
 * atomically; the running multiplexer watches that folder, adds the member to team.json, opens its
 * pane and removes the file. Exactly one of `agent` and `command` is present. Spawning is the
 * lead's: the screen honours a request only from the team's lead, for a name no member has and that
 * is not the operator's (checkSpawn).
 */
import { overLimit } from './limits.js';
import { isOperator } from './operator.js';
import { z } from './zod.js';
import { accept, Name, refuse, type Member, type Outcome } from './types.js';

/** One spawn request file. */
export const SpawnRequest = z.union([
  z.strictObject({ version: z.literal(1), name: Name, role: z.string(), agent: z.literal(true), requestedBy: Name, time: z.string() }),
  z.strictObject({ version: z.literal(1), name: Name, role: z.string(), command: z.string().min(1), requestedBy: Name, time: z.string() }),
]);
export type SpawnRequest = z.infer<typeof SpawnRequest>;

/**
 * Whether the screen may act on `req`, found in the file named `fileName`, for a team whose members
 * are `members`: only the lead may ask (a file a teammate wrote by hand naming itself is refused), the
 * new name is not the operator's, not a member's and is the one the file is named for.
 */
export function checkSpawn(req: SpawnRequest, fileName: string, members: readonly Member[]): Outcome<SpawnRequest> {
  const lead = members.find((m) => m.kind === 'lead');
  if (!lead || req.requestedBy !== lead.name) return refuse('not_owner', `requested by ${JSON.stringify(req.requestedBy)}, but only the lead${lead ? ` (${lead.name})` : ''} may spawn teammates`);
  const long = overLimit({ role: req.role, command: 'command' in req ? req.command : undefined });
  if (long) return long;
  if (isOperator(req.name)) return refuse('invalid_input', `the name "${req.name}" is reserved for the person at the teamux screen`);
  if (members.some((m) => m.name === req.name)) return refuse('duplicate', `${req.name} is already a member of this team`);
  if (!fileName.endsWith(`-${req.name}.json`)) return refuse('invalid_input', `the file ${fileName} is not named for ${req.name} (<epoch-ms>-${req.name}.json)`);
  return accept(req);
}
