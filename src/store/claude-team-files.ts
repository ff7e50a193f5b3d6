/**
 * Claude Code's own team files, read (never written) under the HOME a `native_teams` lead runs
 * with: `.claude/teams/<team>/config.json` (members, panes, the lead's session), its
 * `inboxes/<name>.json` (arrays of messages, emptied once delivered) and `.claude/tasks/<team>/`.
 * Every file is checked loosely with zod (Claude Code adds fields freely); a file that cannot be read
 * becomes a problem line, never an exception. Messages whose text is itself a JSON object
 * (idle_notification, plan_approval_request, shutdown_request…) are given that object's type.
 */
import { promises as fsp, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { z } from '../protocol/zod.js';
import { readText, readTextSync } from './fsx.js';

/** A member as Claude Code's config.json lists it. */
export interface ClaudeTeamMember {
  name: string;
  agentType: string;
  /** `in-process` for the lead, `tmux` for a pane teammate. */
  backendType: string;
  paneId: string | null;
  /** Claude Code's own flag; null when it does not say. */
  active: boolean | null;
  planModeRequired: boolean;
}

/** One inbox entry. */
export interface ClaudeTeamMessage {
  /** Whose inbox it sits in. */
  to: string;
  from: string;
  text: string;
  /** The message type: the entry's own, else the type of the JSON object its text holds, else 'message'. */
  kind: string;
  timestamp: string;
  id: string;
  /**
   * The lead's signature (lead_sig): 'verified' / 'forged' once checked against the teammate's
   * verify key (by the app, see src/agents/claude/lead-sig.ts), 'unverified' while no key is known, 'none'
   * when the entry has none.
   */
  sig: LeadSigStatus;
  /** The entry's fields as written, that lead_sig signs; null when it carries no lead_sig. */
  signing: LeadSignedEntry | null;
}

/** What a message's lead_sig says. */
export type LeadSigStatus = 'verified' | 'forged' | 'unverified' | 'none';

/** An inbox entry's signed fields as they are in the file, and its lead_sig. */
export interface LeadSignedEntry {
  msgId: unknown;
  from: unknown;
  timestamp: unknown;
  text: unknown;
  summary: unknown;
  color: unknown;
  fromPlugin: unknown;
  leadSig: unknown;
}

/** A task file of the team. */
export interface ClaudeTeamTask {
  id: string;
  subject: string;
  status: string;
  owner: string | null;
}

/** One Claude Code team as its files show it now. */
export interface ClaudeTeamFiles {
  name: string;
  leadSessionId: string | null;
  members: ClaudeTeamMember[];
  /** What the inboxes hold at this moment (Claude Code empties them on delivery). */
  inbox: ClaudeTeamMessage[];
  tasks: ClaudeTeamTask[];
  problems: string[];
}

const Config = z.looseObject({
  name: z.string().optional(),
  leadSessionId: z.string().optional(),
  members: z.array(z.looseObject({
    name: z.string(),
    agentType: z.string().optional(),
    backendType: z.string().optional(),
    tmuxPaneId: z.string().optional(),
    isActive: z.boolean().optional(),
    planModeRequired: z.boolean().optional(),
  })).default([]),
});

const InboxEntry = z.looseObject({
  from: z.string().default('?'),
  text: z.string().default(''),
  timestamp: z.union([z.string(), z.number()]).optional(),
  msg_id: z.string().optional(),
  type: z.string().optional(),
  lead_sig: z.unknown().optional(),
  summary: z.unknown().optional(),
  color: z.unknown().optional(),
  from_plugin: z.unknown().optional(),
});

const TaskFile = z.looseObject({
  id: z.union([z.string(), z.number()]).optional(),
  subject: z.string().optional(),
  title: z.string().optional(),
  status: z.string().optional(),
  owner: z.string().nullable().optional(),
});

/** The folders Claude Code keeps its teams and tasks in, under a HOME. */
export function claudeTeamDirs(home: string): { teams: string; tasks: string } {
  return { teams: path.join(home, '.claude', 'teams'), tasks: path.join(home, '.claude', 'tasks') };
}

async function readJson(file: string): Promise<{ ok: true; value: unknown } | { ok: false; problem: string } | null> {
  let text: string | undefined;
  try {
    // Written by Claude Code and its teammates: no link, no FIFO, nothing over the cap (store/fsx.ts).
    text = await readText(file, 'log');
  } catch (err) {
    return { ok: false, problem: (err as Error).message };
  }
  if (text === undefined) return null;
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    // Claude Code writes these files whole; a half-written one is read again on the next look.
    return { ok: false, problem: `${file}: not valid JSON (being written?)` };
  }
}

async function names(dir: string): Promise<string[]> {
  return fsp.readdir(dir).catch(() => [] as string[]);
}

/** The kind of an inbox text: the type of the JSON object it holds, if any. */
export function messageKind(text: string): string | null {
  if (!text.startsWith('{')) return null;
  try {
    const v = JSON.parse(text) as { type?: unknown };
    return typeof v.type === 'string' ? v.type : null;
  } catch {
    return null;
  }
}

/** The folder of a team's inboxes (one `<member>.json` each). */
export function claudeInboxDir(home: string, team: string): string {
  return path.join(claudeTeamDirs(home).teams, team, 'inboxes');
}

/** The messages of one inbox file as read, or the problem with it. */
function inboxOf(file: string, read: { ok: true; value: unknown } | { ok: false; problem: string }): { messages: ClaudeTeamMessage[] } | { problem: string } {
  if (!read.ok) return { problem: read.problem };
  const entries = z.array(InboxEntry).safeParse(read.value);
  if (!entries.success) return { problem: `${file}: not a list of messages` };
  const to = path.basename(file, '.json');
  return {
    messages: entries.data.map((e) => {
      const timestamp = typeof e.timestamp === 'number' ? new Date(e.timestamp).toISOString() : e.timestamp ?? '';
      const signed = e.lead_sig !== undefined && e.lead_sig !== null;
      const signing: LeadSignedEntry | null = signed ? { msgId: e.msg_id, from: e.from, timestamp: e.timestamp, text: e.text, summary: e.summary, color: e.color, fromPlugin: e.from_plugin, leadSig: e.lead_sig } : null;
      return { to, from: e.from, text: e.text, kind: e.type && e.type !== 'message' ? e.type : messageKind(e.text) ?? e.type ?? 'message', timestamp, id: e.msg_id ?? `${to}/${e.from}/${timestamp}/${e.text.length}`, sig: signed ? 'unverified' : 'none', signing };
    }),
  };
}

/**
 * Read inboxes at once, synchronously: `name` (a `<member>.json`), or every inbox when null. Called
 * from a file-change event, so the messages are read before Claude Code empties the file on delivery
 * (an asynchronous read waits for the thread pool). Inbox files are a few kilobytes; a file that is
 * gone is skipped, one that cannot be read or parsed is a problem line.
 */
export function readClaudeInboxesSync(home: string, team: string, name: string | null): { messages: ClaudeTeamMessage[]; problems: string[] } {
  const dir = claudeInboxDir(home, team);
  const out: { messages: ClaudeTeamMessage[]; problems: string[] } = { messages: [], problems: [] };
  let files: string[];
  try {
    files = name === null ? readdirSync(dir).filter((n) => n.endsWith('.json')).sort() : [name];
  } catch {
    return out;
  }
  for (const f of files) {
    const file = path.join(dir, f);
    let text: string | undefined;
    try {
      text = readTextSync(file, 'log');
    } catch (err) {
      out.problems.push((err as Error).message);
      continue;
    }
    if (text === undefined) continue;
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      out.problems.push(`${file}: not valid JSON (being written?)`);
      continue;
    }
    const got = inboxOf(file, { ok: true, value });
    if ('problem' in got) out.problems.push(got.problem);
    else out.messages.push(...got.messages);
  }
  return out;
}

/** Read one team's files. */
export async function readClaudeTeam(home: string, team: string): Promise<ClaudeTeamFiles | null> {
  const dirs = claudeTeamDirs(home);
  const dir = path.join(dirs.teams, team);
  const cfgRead = await readJson(path.join(dir, 'config.json'));
  if (cfgRead === null) return null;
  const problems: string[] = [];
  const out: ClaudeTeamFiles = { name: team, leadSessionId: null, members: [], inbox: [], tasks: [], problems };
  if (!cfgRead.ok) problems.push(cfgRead.problem);
  else {
    const cfg = Config.safeParse(cfgRead.value);
    if (!cfg.success) problems.push(`${path.join(dir, 'config.json')}: ${cfg.error.issues[0]?.message ?? 'unexpected shape'}`);
    else {
      out.leadSessionId = cfg.data.leadSessionId ?? null;
      out.members = cfg.data.members.map((m) => ({
        name: m.name, agentType: m.agentType ?? '?', backendType: m.backendType ?? '?', paneId: m.tmuxPaneId ?? null,
        active: m.isActive ?? null, planModeRequired: m.planModeRequired ?? false,
      }));
    }
  }
  for (const file of (await names(path.join(dir, 'inboxes'))).filter((n) => n.endsWith('.json')).sort()) {
    const read = await readJson(path.join(dir, 'inboxes', file));
    if (read === null) continue;
    const got = inboxOf(path.join(dir, 'inboxes', file), read);
    if ('problem' in got) problems.push(got.problem);
    else out.inbox.push(...got.messages);
  }
  for (const file of (await names(path.join(dirs.tasks, team))).filter((n) => n.endsWith('.json')).sort()) {
    const read = await readJson(path.join(dirs.tasks, team, file));
    if (read === null || !read.ok) {
      if (read && !read.ok) problems.push(read.problem);
      continue;
    }
    const t = TaskFile.safeParse(read.value);
    if (!t.success) continue;
    out.tasks.push({ id: String(t.data.id ?? file.slice(0, -5)), subject: t.data.subject ?? t.data.title ?? '', status: t.data.status ?? '?', owner: t.data.owner ?? null });
  }
  return out;
}

/** The team a lead session leads (its config names the session), or null. */
export async function findClaudeTeam(home: string, leadSessionId: string): Promise<string | null> {
  const dirs = claudeTeamDirs(home);
  // Claude Code names the team after the session's first 8 characters; check the config to be sure.
  const guess = `session-${leadSessionId.slice(0, 8)}`;
  for (const team of [guess, ...(await names(dirs.teams)).filter((n) => n !== guess)]) {
    const read = await readJson(path.join(dirs.teams, team, 'config.json'));
    if (read?.ok && (read.value as { leadSessionId?: unknown }).leadSessionId === leadSessionId) return team;
  }
  return null;
}

/** What the sidebar shows of a Claude Code team: its files now, plus the traffic seen since teamux started. */
export interface ClaudeTeamView {
  name: string;
  members: ClaudeTeamMember[];
  tasks: ClaudeTeamTask[];
  /** Messages seen passing through the inboxes, oldest first (they are emptied on delivery). */
  traffic: ClaudeTeamMessage[];
  problems: string[];
}
