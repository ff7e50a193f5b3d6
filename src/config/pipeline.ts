/**
 * The layout's `pipeline:` section: a team that runs as staged pipeline (plan → prd → exec → verify
 * → fix → report). Which members may plan, execute, test, verify and review, and the bounds
 * (max_parallel, max_fix_rounds, story_cap). The schema is the source of the types and the messages;
 * `pipelineRoleProblems` checks the role lists against the roster, with the path of the bad entry.
 */
import { z } from '../protocol/zod.js';
import { describeValue } from './messages.js';
import { NAME_PATTERN } from '../protocol/types.js';
import { didYouMean } from './suggest.js';

const MemberName = z.string().regex(NAME_PATTERN, { error: (iss) => `expected a member name, got ${describeValue(iss.input)}` });
const Members = z.array(MemberName).min(1, { error: 'list at least one member, or leave the role out to open it to everyone' });

const StoryCap = z
  .union(
    [
      z.number().int().min(1).max(1000).transform((max) => ({ warn: Math.min(10, max), max })),
      z.strictObject({
        warn: z.number().int().min(1).max(1000).default(10).meta({ description: 'A plan with this many stories or more gets a warning.' }),
        max: z.number().int().min(1).max(1000).default(20).meta({ description: 'A plan with more stories than this is refused.' }),
      }),
    ],
    { error: (iss) => `expected a number of stories or { warn, max }, got ${describeValue(iss.input)}` },
  )
  .superRefine((cap, ctx) => {
    if (cap.warn > cap.max) ctx.addIssue({ code: 'custom', path: ['warn'], message: `warn ${cap.warn} is larger than max ${cap.max}`, params: { hint: 'make warn at most max' } });
  });

/** The `pipeline:` section. */
export const PipelineSchema = z
  .strictObject({
    goal: z.string().min(1).optional().meta({ description: 'What the pipeline builds; the plan task asks for stories toward it.' }),
    roles: z
      .strictObject({
        plan: Members.optional().meta({ description: 'May take plan, prd and report tasks.' }),
        execute: Members.optional().meta({ description: 'May take exec and fix tasks (stories).' }),
        test: Members.optional().meta({ description: 'May take exec and fix tasks too (test stories).' }),
        verify: Members.optional().meta({ description: 'May take verify tasks (never of work they authored).' }),
        review: Members.optional().meta({ description: 'May take verify tasks too (review).' }),
      })
      .default({})
      .meta({ description: 'Members per role. A stage is open to every member only when none of its roles lists members (plan, prd, report: plan; exec, fix: execute, test; verify: verify, review).' }),
    max_parallel: z.number().int().min(1).max(100).default(5).meta({ description: 'Stories in progress at once; a claim beyond it is refused (parallel_cap).' }),
    max_fix_rounds: z.number().int().min(1).max(20).default(3).meta({ description: 'Verify → fix rounds without approval before the pipeline ends BLOCKED_AFTER_VERIFY.' }),
    story_cap: StoryCap.default({ warn: 10, max: 20 }).meta({ description: 'Stories a plan may have: warn at `warn`, refuse over `max` (a number sets max).' }),
    handoff_retention_days: z.number().int().min(1).max(3650).default(30).meta({ description: 'Days a handoff document is kept (its expiresAt).' }),
  })
  .meta({ description: 'Run the team as a staged pipeline: plan → prd → exec → verify → fix → report.' });

/** The section after defaults. */
export type PipelineConfig = z.output<typeof PipelineSchema>;

/** A role entry that names no member of the team, at its path under `pipeline`. */
export function pipelineRoleProblems(pipeline: unknown, members: readonly string[]): { path: (string | number)[]; message: string; hint: string }[] {
  const roles = (pipeline as { roles?: unknown } | null)?.roles;
  if (typeof roles !== 'object' || roles === null) return [];
  const out: { path: (string | number)[]; message: string; hint: string }[] = [];
  for (const [role, list] of Object.entries(roles as Record<string, unknown>)) {
    if (!Array.isArray(list)) continue;
    list.forEach((name, i) => {
      if (typeof name !== 'string' || members.includes(name)) return;
      const near = didYouMean(name, members);
      out.push({ path: ['pipeline', 'roles', role, i], message: `"${name}" is not a member of this team`, hint: `${near ? `did you mean "${near}"? ` : ''}members: ${members.join(', ')}` });
    });
  }
  return out;
}

/** The normalized section: what init writes to the team folder for the store. */
export interface NormalizedPipeline {
  goal: string;
  roles: Record<'plan' | 'execute' | 'test' | 'verify' | 'review', string[] | null>;
  maxParallel: number;
  maxFixRounds: number;
  storyCap: { warn: number; max: number };
  retentionDays: number;
}

/** The section in the shape the rest of teamux reads. */
export function normalizePipeline(p: PipelineConfig): NormalizedPipeline {
  const list = (l: string[] | undefined): string[] | null => (l === undefined ? null : [...new Set(l)]);
  return {
    goal: p.goal ?? '',
    roles: { plan: list(p.roles.plan), execute: list(p.roles.execute), test: list(p.roles.test), verify: list(p.roles.verify), review: list(p.roles.review) },
    maxParallel: p.max_parallel,
    maxFixRounds: p.max_fix_rounds,
    storyCap: { ...p.story_cap },
    retentionDays: p.handoff_retention_days,
  };
}
