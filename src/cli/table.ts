/**
 * The table of CLI verbs. Adding a verb means writing its file and listing it here; main.ts does the
 * dispatch, help and error reporting for all of them.
 */
import { agentVerb } from './agent.js';
import { attachVerb, detachVerb, killVerb, lsVerb } from './attach.js';
import { demoServerVerb } from './demo-server.js';
import { initVerb, validateVerb } from './init.js';
import { inboxVerb, msgVerb } from './msg.js';
import { planVerb, requestVerb } from './request.js';
import { startVerb } from './start.js';
import { taskVerb } from './task.js';
import { teamVerb } from './team.js';
import type { Verb } from './verb.js';

export const verbs: Verb[] = [startVerb, attachVerb, detachVerb, lsVerb, killVerb, initVerb, validateVerb, taskVerb, msgVerb, inboxVerb, requestVerb, planVerb, teamVerb, agentVerb, demoServerVerb];
