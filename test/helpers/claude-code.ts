// The real Claude Code binary for the e2e tests: the pinned version from the cache outside the repo
// (scripts/agent-clis.mjs, which also pins Codex CLI and Gemini CLI). On CI (CI set) it is installed when missing; elsewhere a missing binary
// skips the tests with a visible notice. Also the pieces every such test needs: a PATH folder holding
// `claude`, and a fake user HOME whose Claude Code settings must come out untouched.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { claudeSettings, DEMO_API_KEY, demoClaudeJson, type ClaudeMemberContext } from '../../src/agents/claude/launch.js';
import { BIN } from './team.js';
// @ts-expect-error: a plain .mjs script without types
import { AGENT_CLIS, cliBinary, ensureCli } from '../../scripts/agent-clis.mjs';

/** The agent CLIs the real-binary tests drive. */
export type AgentCliName = 'claude' | 'codex' | 'gemini';

/** A pinned CLI's executable, or null (with a notice on stderr saying how to get it). */
export function agentCliForTests(name: AgentCliName): string | null {
  const found = (cliBinary as (n: string) => string | null)(name);
  if (found) return found;
  if (process.env.CI) return (ensureCli as (n: string) => string)(name);
  const cli = (AGENT_CLIS as Record<string, { title: string; version: string }>)[name]!;
  process.stderr.write(`\n  NOTICE: ${cli.title} ${cli.version} is not installed: its real-binary e2e tests are SKIPPED.\n  Install it (outside the repo) with: node scripts/agent-clis.mjs ${name}\n\n`);
  return null;
}

/** The Claude Code binary's path, or null (with a notice on stderr saying how to get it). */
export function claudeCodeForTests(): string | null {
  return agentCliForTests('claude');
}

/** A folder to put first on PATH, holding `program` (default `claude`), a link to `binary`. */
export function claudeOnPath(dir: string, binary: string, program = 'claude'): string {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(binary, path.join(bin, program));
  return bin;
}

/**
 * A fake user HOME with Claude Code (and Codex CLI, Gemini CLI) settings of its own; `snapshot()` lists every file with its content,
 * except teamux's own code cache (~/.cache/teamux/, written by every screen: a cache, not
 * the user's settings; src/cli/code-cache.ts).
 */
export function userHome(dir: string): { home: string; snapshot: () => Record<string, string> } {
  const home = path.join(dir, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ theme: 'dark', hooks: {} }, null, 2));
  writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: {} }));
  // Codex CLI's and Gemini CLI's own settings, which a Codex or Gemini member must leave alone too.
  mkdirSync(path.join(home, '.codex'), { recursive: true });
  writeFileSync(path.join(home, '.codex', 'config.toml'), 'model = "users-own-model"\n');
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ ui: { theme: 'users-own' } }));
  const snapshot = (): Record<string, string> => {
    const out: Record<string, string> = {};
    const walk = (d: string): void => {
      for (const n of readdirSync(d)) {
        const f = path.join(d, n);
        if (statSync(f).isDirectory()) walk(f);
        else if (!path.relative(home, f).startsWith(`.cache${path.sep}teamux${path.sep}`)) out[path.relative(home, f)] = readFileSync(f, 'utf8');
      }
    };
    walk(home);
    return out;
  };
  return { home, snapshot };
}

/** Where `claude -p` runs as a member: its folder, HOME, teamux's settings file, the scripted API and extra environment. */
export interface ClaudePrintRun {
  member: string;
  root: string;
  home: string;
  settings: string;
  apiUrl: string;
  env: Record<string, string>;
  /** More arguments after teamux's (`--permission-mode manual` comes first). */
  args?: string[];
  /** Called with the child's killer, to run at the test's end. */
  onCleanup: (kill: () => void) => void;
}

/** `binary -p PROMPT` as `run.member`, offline against the scripted API; resolves with its exit code and output. */
export function claudePrint(binary: string, prompt: string, run: ClaudePrintRun): Promise<{ code: number; out: string }> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: run.home, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ANTHROPIC_BASE_URL: `${run.apiUrl}/m/${run.member}`, ANTHROPIC_API_KEY: DEMO_API_KEY, TEAMUX_MEMBER: run.member, ...run.env,
  };
  const child = spawn(binary, ['-p', prompt, '--settings', run.settings, '--permission-mode', 'manual', ...(run.args ?? [])], { cwd: run.root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  run.onCleanup(() => void child.kill('SIGKILL'));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, out })));
}

/**
 * The files `claude -p` needs to run as `member` of the team in `teamDir` with teamux's hooks: a demo
 * HOME (`root/home`, its `.claude.json` trusting `root`) and teamux's settings (`root/settings.json`),
 * with `extra` settings context (the Perl hooks, a longer permission timeout).
 */
export function printMemberFiles(root: string, teamDir: string, member: string, extra: Partial<ClaudeMemberContext> = {}): { home: string; settings: string } {
  const home = path.join(root, 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(home, '.claude.json'), JSON.stringify(demoClaudeJson(root)));
  const settings = path.join(root, 'settings.json');
  writeFileSync(settings, JSON.stringify(claudeSettings({ member, teamDir, teamuxBin: BIN, node: process.execPath, permissionTimeout: 60, ...extra })));
  return { home, settings };
}
