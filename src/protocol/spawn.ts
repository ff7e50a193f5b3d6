/**
 * Spawn requests (version 1): the lead's spawn_teammate tool writes `<team>/spawn/<epoch-ms>-<name>.json`
 * atomically; the running multiplexer watches that folder, adds the member to team.json, opens its
 * pane and removes the file. Exactly one of `agent` and `command` is present.
 */
import { z } from './zod.js';
import { Name } from './types.js';

/** One spawn request file. */
export const SpawnRequest = z.union([
  z.strictObject({ version: z.literal(1), name: Name, role: z.string(), agent: z.literal(true), requestedBy: Name, time: z.string() }),
  z.strictObject({ version: z.literal(1), name: Name, role: z.string(), command: z.string().min(1), requestedBy: Name, time: z.string() }),
]);
export type SpawnRequest = z.infer<typeof SpawnRequest>;
