/**
 * The lead's spawn_teammate op. It only writes a spawn request file (the format is defined in
 * protocol/spawn.ts); the multiplexer watches the folder, adds the member to team.json, opens its
 * pane and removes the file:
 *
 *   <team>/spawn/<epoch-ms>-<name>.json
 *   {
 *     "version": 1,
 *     "name": "carol",                 // new member name (NAME_PATTERN), not already in team.json
 *     "role": "Writes the docs",
 *     "agent": true,                   // run teamux's agent runtime (`teamux agent --as carol`) …
 *     "command": "bash -l",            // … or this command line; exactly one of the two is present
 *     "requestedBy": "lead",
 *     "time": "2025-01-01T12:00:00.000Z"
 *   }
 *
 * The file is written atomically (a temp file whose name starts with '.', then a rename), so a
 * watcher never reads half of one.
 */
import * as path from 'node:path';
import { z } from '../protocol/zod.js';
import { SpawnRequest } from '../protocol/spawn.js';
import { accept, Name, refuse } from '../protocol/types.js';
import { writeSpawnRequest } from '../store/spawns.js';
import { actor, defineOp } from './op.js';

// The queue's writer lives with its reader in store/spawns.ts.
export { spawnFileName, writeSpawnRequest } from '../store/spawns.js';

export const spawnTeammate = defineOp({
  name: 'spawn_teammate',
  description: 'Ask teamux to open a pane for a new teammate: an agent (default) or a command. The member joins the team once its pane starts.',
  leadOnly: true,
  input: z.strictObject({
    name: Name,
    role: z.string().min(1),
    command: z.string().min(1).optional().describe('a command line to run instead of an agent'),
  }),
  summary: (i) => `${i.name} (${i.command ? i.command : 'agent'})`,
  async run(i, ctx) {
    if (ctx.team.members.some((m) => m.name === i.name)) return refuse('duplicate', `${i.name} is already a member of the team`);
    const base = { version: 1 as const, name: i.name, role: i.role, requestedBy: actor(ctx).name, time: new Date().toISOString() };
    const req: SpawnRequest = i.command ? { ...base, command: i.command } : { ...base, agent: true };
    const file = await writeSpawnRequest(ctx.store.paths.spawns, req);
    return accept({ name: i.name, file });
  },
  text: (v) => `requested a pane for ${v.name} (${path.basename(v.file)}); it joins the team when teamux opens it`,
});
