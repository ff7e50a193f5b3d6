/**
 * Checks a valid layout against the machine it will run on: the root and every member's cwd are
 * directories, every `command` program can be found and executed (PATH lookup as execvp does it),
 * every `demo_script` exists, and Claude Code is on PATH for `cli: claude` members. Also the soft warnings that never stop a team from starting.
 * Results are problems at document paths, so the loader can point at the right line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { hasModifier } from './keys-actions.js';
import type { Problem } from './issues.js';
import type { NormalizedLayout, NormalizedMember } from './normalize.js';
import type { Layout, Member } from './schema.js';

/** The Claude Code binary's name, looked up on PATH for `agent: { cli: claude }` members. */
export const CLAUDE_PROGRAM = 'claude';
/** How to get Claude Code when it is missing. */
export const CLAUDE_INSTALL_HINT = 'install it with `npm install -g @anthropic-ai/claude-code`, or put the claude binary on PATH';

/** Where a program was found, or why it could not be. */
export type ProgramLookup = { ok: true; file: string } | { ok: false; message: string; hint?: string };

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
      if (!found.ok) {
        problems.push({ path: [...at, 'agent', 'cli'], at: 'value', message: `Claude Code ("${CLAUDE_PROGRAM}") is not installed: not found on PATH`, hint: CLAUDE_INSTALL_HINT });
      }
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
  for (const { member, at } of membersOf<Member>(layout.lead, layout.teammates)) {
    if (member.command === undefined) continue;
    // plan_required is kept for command members too: a script can follow the gate through
    // `teamux plan submit/status`, and teamux tells it through TEAMUX_PLAN_REQUIRED=1.
    if (member.tools !== undefined && member.mcp !== true) {
      warnings.push({ path: [...at, 'tools'], at: 'key', message: 'tools only apply to agent members and mcp: true members' });
    }
  }
  return warnings;
}
