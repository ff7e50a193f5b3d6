/**
 * The table of CLI verbs. Adding a verb means writing its file and listing it here; main.ts does the
 * dispatch, help and error reporting for all of them.
 */
import { inboxVerb, msgVerb } from './msg.js';
import { planVerb, requestVerb } from './request.js';
import { taskVerb } from './task.js';
import { teamVerb } from './team.js';
import type { Verb } from './verb.js';

export const verbs: Verb[] = [taskVerb, msgVerb, inboxVerb, requestVerb, planVerb, teamVerb];
