/**
 * The pipeline fields a task file carries (Task.pipeline): its stage, story, key, round, verdict and
 * findings, with the stage and verdict names. A leaf module (zod only), so the record types in
 * types.ts can use it without an import cycle; the rules are in pipeline.ts.
 */
import { z } from './zod.js';

/** The stages, in the order they run (fix goes back to verify). */
export const STAGES = ['plan', 'prd', 'exec', 'verify', 'fix', 'report'] as const;
export type Stage = (typeof STAGES)[number];
export const StageSchema = z.enum(STAGES);

/** A verify or review verdict: a field, never prose. */
export const VERDICTS = ['APPROVE', 'ACCEPT_WITH_RESERVATIONS', 'ITERATE', 'REVISE', 'REJECT'] as const;
export type Verdict = (typeof VERDICTS)[number];
export const VerdictSchema = z.enum(VERDICTS);

export const StoryId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, { message: 'expected a story id: lowercase letters, digits, - and _, like "s1"' });

/** A finding of a verify or review: what is wrong, and with which story. */
export const Finding = z.object({
  story: StoryId.optional().describe('the story it is about; left out: all stories'),
  severity: z.enum(['info', 'minor', 'major', 'critical']).default('major'),
  text: z.string().min(1),
});
export type Finding = z.infer<typeof Finding>;

/** What a task records about its place in the pipeline (Task.pipeline). */
export const TaskPipeline = z.object({
  stage: StageSchema,
  story: StoryId.nullable().default(null),
  /** Unique per pipeline task ("exec-s1", "verify-r1"): creation is idempotent by it. */
  key: z.string().min(1),
  round: z.number().int().min(0).default(0),
  verdict: VerdictSchema.nullable().default(null),
  findings: z.array(Finding).default([]),
  /** What the task's completion handed over: `stories` for a plan, `criteria` for a prd (checked by pipeline.ts). */
  output: z.record(z.string(), z.unknown()).nullable().default(null),
});
export type TaskPipeline = z.infer<typeof TaskPipeline>;
