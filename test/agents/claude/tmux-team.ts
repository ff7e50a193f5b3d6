// A teamux screen running Claude Code members with the real binary, for the e2e tests: `teamux start`
// in a private tmux server against a scripted Messages API this test owns, the team's store, and a
// cleanup that waits for every member process to exit before removing the folder; and the shared
// pieces of the plan-approving-lead tests (layout, scripts, reading a process's environment).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { startScriptedServer, type LoggedRequest, type ScriptedServer } from '../../../src/demo/server.js';
import { readClaudeActivity } from '../../../src/store/claude.js';
import { TeamStore } from '../../../src/store/team.js';
import { claudeOnPath, userHome } from '../../helpers/claude-code.js';
import { BIN, tempDir, waitFor } from '../../helpers/team.js';
import { TmuxDriver } from '../../helpers/tmux.js';

/** Every text of a request body, flattened (tool results included). */
export const bodyText = (r: LoggedRequest): string => JSON.stringify(r.body);

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A running Claude Code team. */
export interface ClaudeTeam {
  root: string;
  teamDir: string;
  store: TeamStore;
  server: ScriptedServer;
  d: TmuxDriver;
  /** The user's own Claude Code settings under the test HOME, as they were before teamux started. */
  userBefore: Record<string, string>;
  /** Those settings as they are now (teamux must never change them). */
  userNow(): Record<string, string>;
  /** teamux.log as it is now. */
  log(): string;
  /** Wait until the member sits idle at its prompt. */
  idle(name: string): Promise<unknown>;
  /** Send a message (refusals throw). */
  say(from: string, to: string, text: string): Promise<void>;
}

/**
 * Start `layout` (team `name`) with `scripts(root)`, the binary `claude` on PATH as `program`; `cleanups` gets what undoes it, in order; `serverOptions` go to the scripted server.
 * With `again`, the terminal runs `teamux start` a second time once the first has ended (TEAMUX-EXIT2 after it).
 */
export async function startClaudeTeam(claude: string, name: string, layout: string, scripts: (root: string) => Record<string, unknown>, cleanups: Array<() => Promise<void> | void>, cols = 200, serverOptions: { chunkDelayMs?: number } = {}, again = false, program = 'claude'): Promise<ClaudeTeam> {
  const tmp = tempDir(`teamux-claude-${name}-`);
  cleanups.push(async () => {
    const cfg = await TeamStore.open(path.join(tmp.dir, '.teamux', name)).then((r) => (r.ok ? r.store.config() : null)).catch(() => null);
    const pids = (cfg?.members ?? []).map((m) => m.pid).filter((p): p is number => p !== null);
    await waitFor(() => pids.every((p) => !pidAlive(p)), 'the member processes to exit', 30_000, 50).catch(() => undefined);
    // Hooks still finishing (SessionEnd, the detached Stop bookkeeping) may write a moment longer.
    await waitFor(() => {
      try {
        rmSync(tmp.dir, { recursive: true, force: true });
        return true;
      } catch {
        return false;
      }
    }, 'the test folder removed', 30_000, 200);
  });
  const root = tmp.dir;
  const file = path.join(root, 'team.yaml');
  writeFileSync(file, layout);
  const pathDir = claudeOnPath(root, claude, program);
  const user = userHome(root);
  const userBefore = user.snapshot();
  const server = await startScriptedServer({ ...serverOptions, scripts: scripts(root) as never });
  cleanups.push(() => server.close());
  const env = `env -u ANTHROPIC_API_KEY -u TMUX -u TMUX_PANE PATH=${pathDir}:${process.env.PATH} HOME=${user.home} TEAMUX_DEMO_URL=${server.url}`;
  const start = `${env} ${process.execPath} ${BIN} start ${file}`;
  const d = await TmuxDriver.start(`cd ${root} && ${start}; echo TEAMUX-EXIT=$?; ${again ? `${start}; echo TEAMUX-EXIT2=$?; ` : ''}sleep 600`, cols, 50);
  cleanups.push(() => d.kill());
  const teamDir = path.join(root, '.teamux', name);
  const opened = await waitFor(() => (existsSync(path.join(teamDir, 'team.json')) ? TeamStore.open(teamDir) : null), 'the team folder', 30_000);
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.store;
  return {
    root, teamDir, store, server, d, userBefore,
    userNow: () => user.snapshot(),
    log: () => (existsSync(store.paths.log) ? readFileSync(store.paths.log, 'utf8') : ''),
    idle: (member) => waitFor(async () => (await readClaudeActivity(store.paths, member))?.state === 'idle', `${member} idle at its prompt`, 60_000, 50),
    async say(from, to, text) {
      const sent = await store.send({ from, to, type: 'message', text });
      if (!sent.ok) throw new Error(sent.message);
    },
  };
}

/** The lead's unread messages once `member`'s idle_notification is among them (its result beside it). */
export function idleNotified(store: TeamStore, member: string): Promise<Array<{ type: string; from: string; text: string }>> {
  return waitFor(async () => {
    const m = (await store.mail.unread('lead', 'lead')).messages;
    return m.some((x) => x.type === 'idle_notification' && x.from === member) ? m : null;
  }, `${member} idle_notification`, 60_000, 50);
}

/** A team whose Claude Code lead approves plans (`plan_approver: lead`) and whose amy must submit one. */
export function approvingLeadLayout(name: string): string {
  return `name: ${name}
sidebar: { width: 48 }
plan_approver: lead
lead: { name: lead, role: Leads, agent: { cli: claude, permission_mode: acceptEdits } }
teammates:
  - { name: amy, role: Writes files, agent: { cli: claude, permission_mode: acceptEdits }, plan_required: true }
`;
}

/**
 * Scripts for that team: the lead approves the last plan request when told "approve it now"; amy's
 * steps are the test's, given the Write of ROOT/hello.txt that her plan is about.
 */
export function approvingLeadScripts(amySteps: (write: Record<string, unknown>) => unknown[]): (root: string) => Record<string, unknown> {
  return (root) => ({
    lead: {
      idle_reply: '(the lead waits)',
      steps: [
        { when: { last_user_contains: 'approve it now' }, reply: [{ tool_use: { name: 'mcp__teamux__approve_plan', input: { request_id: '{{last_request_id}}', feedback: 'go ahead' } } }] },
        { reply: [{ text: 'Approved amy\'s plan.' }] },
      ],
    },
    amy: {
      idle_reply: '(amy waits)',
      steps: amySteps({ tool_use: { name: 'Write', input: { file_path: path.join(root, 'hello.txt'), content: 'hello\n' } } }),
    },
  });
}

/** The environment of a running process, as any process of the same user can read it. */
export function environOf(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const kv of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const at = kv.indexOf('=');
    if (at > 0) env[kv.slice(0, at)] = kv.slice(at + 1);
  }
  return env;
}
