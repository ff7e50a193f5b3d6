/**
 * A Claude Code member's files in the team folder: the generated settings and MCP config it is
 * launched with (under `claude/<member>/`, with a demo HOME when the offline model is used), and its
 * activity record `claude/<member>.activity.json` (working / idle / waiting for permission, tokens
 * and cost, a spent budget) that its hooks write (the status line's Perl form too, src/agents/claude/hook-perl.ts,
 * under the same lock directory) and the pane title and roster read.
 */
import { lstat, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { z } from '../protocol/zod.js';
import { ensureDir, parseJson, readText, writeJson } from './fsx.js';
import { withLock } from './lock.js';
import type { TeamPaths } from './paths.js';

/** The files a Claude Code member is started with. */
export interface ClaudeFiles {
  settings: string;
  mcp: string;
  /** HOME for the offline demo (a folder holding .claude.json). */
  demoHome: string;
}

/** Where a member's generated files live. */
export function claudeFilesOf(paths: TeamPaths, member: string): ClaudeFiles {
  const dir = paths.claudeMember(member);
  return { settings: path.join(dir, 'settings.json'), mcp: path.join(dir, 'mcp.json'), demoHome: path.join(dir, 'home') };
}

/** Write a member's settings and MCP config (and the demo HOME's .claude.json when given). */
export async function writeClaudeFiles(paths: TeamPaths, member: string, content: { settings: unknown; mcp: unknown; demoClaudeJson?: unknown }): Promise<ClaudeFiles> {
  const files = claudeFilesOf(paths, member);
  await ensureDir(path.dirname(files.settings));
  await writeJson(files.settings, content.settings);
  await writeJson(files.mcp, content.mcp);
  if (content.demoClaudeJson !== undefined) {
    await ensureDir(files.demoHome);
    await writeJson(path.join(files.demoHome, '.claude.json'), content.demoClaudeJson);
  }
  return files;
}

/** Where the Stop hook's Perl script is written (one for the team, in the exec folder: it takes the member from its argv). */
export function claudeStopScript(paths: TeamPaths): string {
  return path.join(paths.exec, 'stop-hook');
}

/** Where the StatusLine and PreToolUse fast paths' Perl script is written (one for the team, in the exec folder). */
export function claudeHookScript(paths: TeamPaths): string {
  return path.join(paths.exec, 'hooks');
}

/** What a Claude Code member is doing, as its hooks report it. */
export const ClaudeState = z.enum(['starting', 'working', 'idle', 'waiting for permission', 'ended']);
export type ClaudeState = z.infer<typeof ClaudeState>;

/** The activity record. */
export const ClaudeActivity = z.object({
  state: ClaudeState,
  at: z.string(),
  sessionId: z.string().nullable().default(null),
  transcriptPath: z.string().nullable().default(null),
  /** Dollars, from Claude Code's own statusLine (cost.total_cost_usd). */
  costUsd: z.number().nullable().default(null),
  /** Input (with cache) and output tokens, summed from its transcript's usage records. */
  tokens: z.object({ input: z.number(), output: z.number() }).nullable().default(null),
  model: z.string().nullable().default(null),
  /** Why its budget (or the team's) stops it, in one line; null: it may work. */
  budget: z.string().nullable().default(null),
});
export type ClaudeActivity = z.infer<typeof ClaudeActivity>;

/** Read a member's activity record; undefined when there is none (or it cannot be read). */
export async function readClaudeActivity(paths: TeamPaths, member: string): Promise<ClaudeActivity | undefined> {
  const file = paths.claudeActivity(member);
  const text = await readText(file, 'record').catch(() => undefined);
  if (text === undefined) return undefined;
  const json = parseJson(file, text);
  if (!json.ok) return undefined;
  const parsed = ClaudeActivity.safeParse(json.value);
  return parsed.success ? parsed.data : undefined;
}

/** Merge a change into a member's activity record, under its lock (hooks and the status line overlap). */
export async function updateClaudeActivity(paths: TeamPaths, member: string, patch: Partial<ClaudeActivity>): Promise<ClaudeActivity> {
  await ensureDir(paths.claude);
  const file = paths.claudeActivity(member);
  return withLock(file, async () => {
    const old = await readClaudeActivity(paths, member);
    const next: ClaudeActivity = ClaudeActivity.parse({ state: 'starting', ...old, ...patch, at: new Date().toISOString() });
    await writeJson(file, next);
    return next;
  });
}

/** Set why a budget stops the member (null: it may work); returns what was recorded before, under the record's lock. */
export async function swapClaudeBudget(paths: TeamPaths, member: string, held: string | null): Promise<string | null> {
  await ensureDir(paths.claude);
  const file = paths.claudeActivity(member);
  return withLock(file, async () => {
    const old = await readClaudeActivity(paths, member);
    const before = old?.budget ?? null;
    if (before !== held) await writeJson(file, ClaudeActivity.parse({ state: 'starting', ...old, budget: held, at: new Date().toISOString() }));
    return before;
  });
}

/** A recorded Claude Code session that can be taken up, or why it cannot. */
export type RecordedSession = { ok: true; sessionId: string } | { ok: false; why: string };

/**
 * The session a member's hooks recorded (SessionStart), if `claude --resume` can take it up: an id of
 * Claude Code's shape, whose transcript is a regular file `<home>/.claude/projects/<folder>/<id>.jsonl`
 * of JSON lines (a last line cut off by a crash aside). null: nothing recorded. The record is a file
 * a teammate can write, so nothing in it is used unchecked (the id is the only thing passed on).
 */
export async function recordedSession(paths: TeamPaths, member: string, home: string, isId: RegExp): Promise<RecordedSession | null> {
  const act = await readClaudeActivity(paths, member);
  const id = act?.sessionId ?? null;
  if (id === null) return null;
  if (!isId.test(id)) return { ok: false, why: `the recorded session id ${JSON.stringify(id.slice(0, 60))} is not one Claude Code makes` };
  const projects = path.join(home, '.claude', 'projects');
  const file = act?.transcriptPath ?? '';
  if (path.basename(file) !== `${id}.jsonl` || path.dirname(path.dirname(file)) !== projects) return { ok: false, why: `its transcript is not where Claude Code keeps session ${id} (under ${projects})` };
  const st = await lstat(file).catch(() => null);
  if (!st?.isFile()) return { ok: false, why: `its transcript ${file} is ${st ? 'not a regular file' : 'missing'}` };
  const lines = (await readFile(file, 'utf8')).split('\n');
  // The last line may be cut off by a crash; every other line must be a JSON object.
  const bad = lines.slice(0, -1).findIndex((l) => {
    try {
      const v: unknown = JSON.parse(l);
      return typeof v !== 'object' || v === null;
    } catch {
      return true;
    }
  });
  if (bad >= 0) return { ok: false, why: `its transcript ${file} is damaged at line ${bad + 1}` };
  if (lines.length < 2) return { ok: false, why: `its transcript ${file} holds no complete line` };
  return { ok: true, sessionId: id };
}
