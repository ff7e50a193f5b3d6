/**
 * The layout's `worktrees:` section: every teammate works in a git worktree of its own (base branch,
 * branch name template, files copied in, setup commands), and the checks that need the repository
 * (root inside one, base a commit). The schema is the source of the types and messages; the
 * repository is asked through `RepoProbe`, which the CLI gives from the git seam (host/git), so
 * this layer runs no git itself.
 */
import path from 'node:path';
import { z } from '../protocol/zod.js';
import type { Problem } from './issues.js';
import { describeValue } from './messages.js';

/** The default branch name: `{team}` and `{member}` are filled in. */
export const DEFAULT_BRANCH_TEMPLATE = 'teamux/{team}/{member}';

const RelativeFile = z.string().min(1).superRefine((p, ctx) => {
  if (path.isAbsolute(p) || p.split(/[\\/]/).includes('..')) {
    ctx.addIssue({ code: 'custom', message: `expected a path inside root (relative, without ".."), got ${describeValue(p)}`, params: { hint: 'copy names files of root, like .env or config/local.json' } });
  }
});

/** `worktrees:` as written. */
export const WorktreesSchema = z
  .strictObject({
    base: z.string().min(1).optional().meta({ description: 'The branch worktrees start from and merges go into; default: the branch checked out at root when the run starts.' }),
    branch: z
      .string()
      .min(1)
      .default(DEFAULT_BRANCH_TEMPLATE)
      .superRefine((t, ctx) => {
        if (!t.includes('{member}')) ctx.addIssue({ code: 'custom', message: `the branch template must contain {member}, got ${describeValue(t)}`, params: { hint: `like "${DEFAULT_BRANCH_TEMPLATE}"` } });
      })
      .meta({ description: 'Branch name for each member; {team} and {member} are filled in.' }),
    copy: z.array(RelativeFile).default([]).meta({ description: 'Files copied from root into each new worktree (missing ones are skipped), like .env.' }),
    setup: z
      .union([z.string().min(1), z.array(z.string().min(1))], { error: (iss) => `expected a shell command or a list of them, got ${describeValue(iss.input)}` })
      .optional()
      .meta({ description: 'Shell commands run in a new worktree before its member starts; their output is in its pane.' }),
  })
  .meta({ description: 'Give every teammate a git worktree of its own (a member opts out with worktree: false; the lead opts in with worktree: true).' });

/** The section after defaults. */
export type WorktreesLayout = z.output<typeof WorktreesSchema>;

/** `worktrees:` settled: what the run creates worktrees with. */
export interface NormalizedWorktrees {
  /** null: the branch checked out at root when the run starts. */
  base: string | null;
  branchTemplate: string;
  copy: string[];
  setup: string[];
}

/** The normalized section. */
export function normalizeWorktrees(w: WorktreesLayout | undefined): NormalizedWorktrees | null {
  if (w === undefined) return null;
  return { base: w.base ?? null, branchTemplate: w.branch, copy: [...w.copy], setup: w.setup === undefined ? [] : typeof w.setup === 'string' ? [w.setup] : [...w.setup] };
}

/** A member's branch name from the template. */
export function branchFor(template: string, team: string, member: string): string {
  return template.replaceAll('{team}', team).replaceAll('{member}', member);
}

/** What the layout check asks of the repository. */
export interface RepoProbe {
  /** The top of the work tree `dir` is in, or null when it is in none. */
  toplevel(dir: string): string | null;
  /** Whether `ref` names a commit in the repository at `dir`. */
  hasCommit(dir: string, ref: string): boolean;
}

/** Problems with `worktrees:` against the repository at `root`. */
export function worktreeProblems(w: NormalizedWorktrees | null, root: string, probe: RepoProbe): Problem[] {
  if (w === null) return [];
  if (probe.toplevel(root) === null) {
    return [{ path: ['worktrees'], at: 'key', message: `root "${root}" is not inside a git repository, so members cannot get worktrees`, hint: 'run `git init` there (and commit something), point root at a repository, or remove worktrees:' }];
  }
  if (w.base !== null && !probe.hasCommit(root, w.base)) {
    return [{ path: ['worktrees', 'base'], at: 'value', message: `base "${w.base}" is not a branch or commit of the repository at ${root}`, hint: 'name an existing branch (git branch -a lists them), or leave base out to use the branch checked out at root' }];
  }
  if (w.base === null && !probe.hasCommit(root, 'HEAD')) {
    return [{ path: ['worktrees'], at: 'key', message: `the repository at ${root} has no commit yet, so there is nothing to start worktrees from`, hint: 'commit something first (git commit --allow-empty -m start)' }];
  }
  return [];
}
