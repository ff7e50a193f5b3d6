/**
 * The agent CLIs other than Claude Code that a member can run (`agent: { cli: codex }`): each one's
 * program name, install command and the oldest version whose hooks teamux relies on, and the check
 * that the binary on the member's PATH runs and is new enough (`codex --version` prints
 * `codex-cli 0.171.0`). One `--version` per binary and process.
 */
import { spawnSync } from 'node:child_process';

/** Where a program was found, or why it could not be. */
export type ProgramLookup = { ok: true; file: string } | { ok: false; message: string; hint?: string };

/** What teamux needs of one agent CLI. */
export interface AgentCliSpec {
  title: string;
  program: string;
  install: string;
  /** The oldest version with the hooks and flags teamux uses (see docs/agent-clis.md). */
  minVersion: string;
}

/** Codex CLI: hooks.json (PreToolUse, PermissionRequest, Stop) and --dangerously-bypass-hook-trust, as observed in 0.171.0. */
export const CODEX_CLI: AgentCliSpec = {
  title: 'Codex CLI',
  program: 'codex',
  install: 'install it with `npm install -g @openai/codex@0.171.0` (or newer), or put the codex binary on PATH',
  minVersion: '0.171.0',
};

const VERSION_TIMEOUT_MS = 15_000;
const answered = new Map<string, ProgramLookup>();

/** Compare two dotted versions numerically: <0, 0, >0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Run `PROGRAM --version` and accept it when it prints a version at least `spec.minVersion`. */
export function agentCliAnswers(spec: AgentCliSpec, file: string, cwd: string, env: Record<string, string | undefined>): ProgramLookup {
  const known = answered.get(file);
  if (known) return known;
  const run = spawnSync(file, ['--version'], { cwd, env, encoding: 'utf8', timeout: VERSION_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = `${run.stdout ?? ''}`.trim();
  const said = (out || `${run.stderr ?? ''}`.trim()).split('\n')[0]!.slice(0, 120);
  const version = /(\d+\.\d+\.\d+)/.exec(out)?.[1];
  let result: ProgramLookup;
  if (run.error) result = { ok: false, message: `${spec.title} at ${file} did not run: ${(run.error as NodeJS.ErrnoException).code ?? run.error.message}`, hint: spec.install };
  else if (run.status !== 0 || !version) result = { ok: false, message: `${file} is not a working ${spec.title}: \`${spec.program} --version\` ${run.status === 0 ? 'printed no version' : `exited ${run.status ?? run.signal}`}${said ? ` (${JSON.stringify(said)})` : ''}`, hint: spec.install };
  else if (compareVersions(version, spec.minVersion) < 0) result = { ok: false, message: `${spec.title} ${version} at ${file} is too old: teamux needs ${spec.minVersion} or newer for the hooks it uses`, hint: spec.install };
  else result = { ok: true, file };
  answered.set(file, result);
  return result;
}
