/**
 * Checks a valid layout against the machine it will run on: the root and every member's cwd are
 * directories, every `command` program can be found and executed (PATH lookup as execvp does it),
 * every `demo_script` exists, and Claude Code is on PATH for `cli: claude` members and answers
 * `claude --version` with a version (npm's launcher without its native binary does not). Also the soft warnings that never stop a team from starting.
 * Results are problems at document paths, so the loader can point at the right line.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { agentCliAnswers, CODEX_CLI, type ProgramLookup } from './cli-checks.js';
import { hasModifier } from './keys-actions.js';
import type { Problem } from './issues.js';
import type { NormalizedLayout, NormalizedMember } from './normalize.js';
import type { Layout, Member } from './schema.js';

/** The Claude Code binary's name, looked up on PATH for `agent: { cli: claude }` members. */
export const CLAUDE_PROGRAM = 'claude';
/** How to get Claude Code when it is missing. */
export const CLAUDE_INSTALL_HINT = 'install it with `npm install -g @anthropic-ai/claude-code`, or put the claude binary on PATH';

/** How long `claude --version` may take before the binary counts as not answering. */
const CLAUDE_VERSION_TIMEOUT_MS = 15_000;
// One `claude --version` per binary and process (validate and start load a layout once; tests many times).
const claudeVersions = new Map<string, ProgramLookup>();

/**
 * Run `claude --version` offline (no updater, no traffic) and accept it only when it prints a version:
 * `node_modules/.bin/claude` from a package whose postinstall did not fetch the native binary is a
 * 500-byte launcher that prints `Error: claude native binary not installed.` in every pane.
 */
export function claudeAnswers(file: string, cwd: string, env: Record<string, string | undefined>): ProgramLookup {
  const known = claudeVersions.get(file);
  if (known) return known;
  const run = spawnSync(file, ['--version'], {
    cwd, encoding: 'utf8', timeout: CLAUDE_VERSION_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
  });
  const out = `${run.stdout ?? ''}${run.stderr ?? ''}`.trim();
  const said = out.split('\n')[0]!.slice(0, 120);
  let result: ProgramLookup;
  if (run.status === 0 && /^\d+\.\d+\.\d+/.test(out)) result = { ok: true, file };
  else if (run.error) result = { ok: false, message: `Claude Code at ${file} did not run: ${(run.error as NodeJS.ErrnoException).code ?? run.error.message}`, hint: CLAUDE_INSTALL_HINT };
  else result = { ok: false, message: `${file} is not a working Claude Code: \`claude --version\` ${run.status === 0 ? 'printed no version' : `exited ${run.status ?? run.signal}`}${said ? ` (${JSON.stringify(said)})` : ''}`, hint: `${CLAUDE_INSTALL_HINT}; npm's launcher without its native binary prints "claude native binary not installed"` };
  claudeVersions.set(file, result);
  return result;
}

export type { ProgramLookup };

function statOf(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p);
  } catch {
    return undefined;
  }
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds `program` like execvp: a path with a slash is taken from `cwd`, a bare name searched on `searchPath`. */
export function findProgram(program: string, cwd: string, searchPath: string): ProgramLookup {
  const install = 'install it or give an absolute path';
  if (program.includes('/')) {
    const file = path.resolve(cwd, program);
    const st = statOf(file);
    if (!st) {
      const message = file === program ? `"${file}" not found` : `"${program}" not found (looked for ${file})`;
      return { ok: false, message, hint: install };
    }
    if (st.isDirectory()) return { ok: false, message: `"${file}" is a directory, not a program` };
    if (!isExecutable(file)) return { ok: false, message: `"${file}" is not executable`, hint: `chmod +x ${file}` };
    return { ok: true, file };
  }
  for (const dir of searchPath.split(path.delimiter)) {
    const file = path.resolve(cwd, dir || '.', program);
    const st = statOf(file);
    if (st?.isFile() && isExecutable(file)) return { ok: true, file };
  }
  return { ok: false, message: `"${program}" not found on PATH`, hint: install };
}

function membersOf<T>(lead: T, teammates: readonly T[]): { member: T; at: (string | number)[] }[] {
  return [{ member: lead, at: ['lead'] }, ...teammates.map((member, i) => ({ member, at: ['teammates', i] }))];
}

/** Filesystem problems: missing directories, programs and demo scripts. */
export function filesystemProblems(layout: Layout, normalized: NormalizedLayout, processPath: string): Problem[] {
  const problems: Problem[] = [];
  const rootStat = statOf(normalized.root);
  if (!rootStat?.isDirectory()) {
    problems.push({
      path: layout.root === undefined ? [] : ['root'],
      at: 'value',
      message: rootStat ? `root "${normalized.root}" is not a directory` : `root directory "${normalized.root}" does not exist`,
    });
    return problems;
  }
  const raw = membersOf<Member>(layout.lead, layout.teammates);
  const norm = membersOf<NormalizedMember>(normalized.lead, normalized.teammates);
  raw.forEach(({ member, at }, i) => {
    const m = norm[i]!.member;
    const cwdStat = statOf(m.cwd);
    if (!cwdStat?.isDirectory()) {
      const what = cwdStat ? 'is not a directory' : 'does not exist';
      problems.push({ path: [...at, 'cwd'], at: 'value', message: `working directory "${m.cwd}" ${what}` });
      return;
    }
    if (m.command) {
      const found = findProgram(m.command.program, m.cwd, m.env['PATH'] ?? processPath);
      if (!found.ok) {
        const where = Array.isArray(member.command) ? [...at, 'command', 0] : [...at, 'command'];
        problems.push({ path: where, at: 'value', message: found.message, ...(found.hint ? { hint: found.hint } : {}) });
      }
    }
    if (m.claude) {
      const found = findProgram(CLAUDE_PROGRAM, m.cwd, m.env['PATH'] ?? processPath);
      const answers = found.ok ? claudeAnswers(found.file, m.cwd, { ...process.env, ...m.env, PATH: m.env['PATH'] ?? processPath }) : undefined;
      if (!found.ok) {
        problems.push({ path: [...at, 'agent', 'cli'], at: 'value', message: `Claude Code ("${CLAUDE_PROGRAM}") is not installed: not found on PATH`, hint: CLAUDE_INSTALL_HINT });
      } else if (answers && !answers.ok) {
        problems.push({ path: [...at, 'agent', 'cli'], at: 'value', message: answers.message, ...(answers.hint ? { hint: answers.hint } : {}) });
      }
    }
    if (m.codex) {
      const found = findProgram(CODEX_CLI.program, m.cwd, m.env['PATH'] ?? processPath);
      const answers = found.ok ? agentCliAnswers(CODEX_CLI, found.file, m.cwd, { ...process.env, ...m.env, PATH: m.env['PATH'] ?? processPath }) : undefined;
      if (!found.ok) problems.push({ path: [...at, 'agent', 'cli'], at: 'value', message: `${CODEX_CLI.title} ("${CODEX_CLI.program}") is not installed: not found on PATH`, hint: CODEX_CLI.install });
      else if (answers && !answers.ok) problems.push({ path: [...at, 'agent', 'cli'], at: 'value', message: answers.message, ...(answers.hint ? { hint: answers.hint } : {}) });
    }
    const script = m.agent?.demoScript;
    if (script !== undefined && !statOf(script)?.isFile()) {
      problems.push({ path: [...at, 'agent', 'demo_script'], at: 'value', message: `demo script "${script}" does not exist` });
    }
  });
  return problems;
}

/** Things that are allowed but probably not meant. */
export function layoutWarnings(layout: Layout): Problem[] {
  const warnings: Problem[] = [];
  if (!hasModifier(layout.keys.prefix)) {
    warnings.push({
      path: ['keys', 'prefix'],
      at: 'value',
      message: `prefix "${layout.keys.prefix}" has no C- or M- modifier, so it cannot be typed into a pane`,
    });
  }
  if (layout.plan_approver === 'lead' && layout.lead.agent === undefined && layout.teammates.some((m) => m.plan_required)) {
    // Plan decisions are signed (docs/protocol.md §12); only an agent lead (teamux's or Claude Code) enrols a signing key.
    warnings.push({
      path: ['plan_approver'],
      at: 'value',
      message: 'plan_approver: lead needs an agent lead: a command lead cannot sign plan decisions, so no plan could be approved (use plan_approver: human)',
    });
  }
  if (layout.web && !/^(127\.|localhost$|::1$)/.test(layout.web.listen)) {
    warnings.push({
      path: ['web', 'listen'],
      at: 'value',
      message: `the web view listens on ${layout.web.listen}, so anyone who can reach this machine can try its token${layout.web.tls ? '' : ', and without tls: the token and answers cross the network in the clear'}`,
    });
  }
  if (layout.sandbox === false) warnings.push({ path: ['sandbox'], at: 'value', message: 'sandbox: false runs every member unsandboxed: a member with a shell can write anywhere you can, read other members\' processes and rewrite what teamux runs (docs/security.md)' });
  for (const { member, at } of membersOf<Member>(layout.lead, layout.teammates)) {
    if (member.sandbox === false && layout.sandbox) warnings.push({ path: [...at, 'sandbox'], at: 'value', message: `sandbox: false runs ${member.name} unsandboxed: it can write anywhere you can and read other members' processes (docs/security.md)` });
    if (member.command === undefined) continue;
    // plan_required is kept for command members too: a script can follow the gate through
    // `teamux plan submit/status`, and teamux tells it through TEAMUX_PLAN_REQUIRED=1.
    if (member.tools !== undefined && member.mcp !== true) {
      warnings.push({ path: [...at, 'tools'], at: 'key', message: 'tools only apply to agent members and mcp: true members' });
    }
  }
  return warnings;
}
