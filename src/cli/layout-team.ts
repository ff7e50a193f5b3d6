/**
 * From a validated layout to what the store and the multiplexer need: the team spec for the team
 * folder, and the folder's path. Shared by `init`, `start` and `attach`.
 */
import { planApproverOf, runtimeOf, type NormalizedLayout, type NormalizedMember } from '../config/index.js';
import { teamDirFor } from '../store/paths.js';
import type { MemberSpec, TeamSpec } from '../store/init.js';
import { formatErrors, loadLayout } from '../config/index.js';
import { mcpClientConfig } from '../mcp/config.js';
import { UsageError } from './context.js';
import { repoProbe } from './worktrees-run.js';

/** The team folder a layout's team lives in. */
export function teamDirOf(layout: NormalizedLayout): string {
  return teamDirFor(layout.root, layout.name);
}

function memberSpec(m: NormalizedMember, layout: NormalizedLayout): MemberSpec {
  return {
    name: m.name,
    role: m.role,
    kind: m.isLead ? 'lead' : 'teammate',
    runtime: runtimeOf(m),
    speaksProtocol: m.speaksProtocol,
    planRequired: m.planRequired,
    planApprover: planApproverOf(m, layout),
    tools: m.tools ?? null,
    budget: m.budget ?? null,
  };
}

/** The store's description of a layout's team. */
export function teamSpecOf(layout: NormalizedLayout, layoutFile: string): TeamSpec {
  return {
    name: layout.name,
    root: layout.root,
    layoutFile,
    budget: layout.budget ?? null,
    members: [layout.lead, ...layout.teammates].map((m) => memberSpec(m, layout)),
    seedTasks: layout.tasks.map((t) => ({ key: t.id, subject: t.subject, description: t.description ?? '', blockedBy: t.blockedBy })),
    pipeline: layout.pipeline,
    mcpConfigs: Object.fromEntries([layout.lead, ...layout.teammates].filter((m) => m.mcp).map((m) => [m.name, mcpClientConfig(teamDirOf(layout), m.name)])),
  };
}

/** Load a layout or throw a UsageError carrying every file:line:col message. */
export function loadLayoutOrFail(file: string, env: NodeJS.ProcessEnv): { layout: NormalizedLayout; file: string; warnings: string[] } {
  const r = loadLayout(file, { env, repo: repoProbe(env) });
  if (!r.ok) throw new UsageError(`${file} is not a valid layout:\n${formatErrors(r.errors)}`);
  return r;
}
