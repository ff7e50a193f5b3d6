/**
 * The pipeline's lead op: retry_story, the one implementation of a retry for the CLI (`teamux
 * pipeline retry`), teamux's lead agent and the MCP server. The store applies the pipeline's rules
 * (protocol/pipeline-retry.ts) under the pipeline lock; a refusal carries the reason and what to do.
 */
import { z } from '../protocol/zod.js';
import { OPERATOR } from '../protocol/operator.js';
import { StoryId } from '../protocol/pipeline-fields.js';
import { defineOp, oneLine } from './op.js';

export const retryStory = defineOp({
  name: 'retry_story',
  description: 'Pipeline: retry stories the pipeline blocked — after their third failed attempt, or when it ended BLOCKED_AFTER_VERIFY after max_fix_rounds. Their tasks are reopened (or a new fix round with a fresh bound is made) and the stories waiting for them go on. Leave stories out to retry every blocked one.',
  leadOnly: true,
  input: z.strictObject({
    stories: z.array(StoryId).default([]).describe('story ids such as "s2"; empty: every story that can be retried'),
    reason: z.string().optional().describe('why it is worth another try'),
  }),
  summary: (i) => `${i.stories.join(', ') || 'every blocked story'}${i.reason ? `: ${oneLine(i.reason, 50)}` : ''}`,
  run: (i, ctx) => ctx.store.pipeline.retry(ctx.me?.name ?? OPERATOR, i.stories, i.reason ?? null),
  text: (v) => {
    const tasks = [...v.reopen.map((id) => `reopened task ${id}`), ...v.dispatched.map((d) => `created task ${d.id} (${d.key})`)];
    return `retried ${v.retried.join(', ')}${v.unblocked.length ? `; waiting again: ${v.unblocked.join(', ')}` : ''}; the pipeline is at ${v.state.stage}, fix round ${v.state.fixRound - v.state.fixBase}; ${tasks.join(', ')}`;
  },
});
