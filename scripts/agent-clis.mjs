#!/usr/bin/env node
// The pinned agent CLIs the real-binary e2e tests drive (Claude Code, Codex CLI, Gemini CLI), kept in a
// cache outside the repository.
//   node scripts/agent-clis.mjs [claude|codex|gemini|all]          install when missing, print the paths
//   node scripts/agent-clis.mjs [claude|codex|gemini] --path       print the path if installed (exit 1 if not)
// The cache is $TEAMUX_TEST_CACHE, else ~/.cache/teamux-test. These are test dependencies, never runtime
// ones; npm's install scripts are not run. They are only ever run offline: a throw-away HOME and config
// home, a base URL on 127.0.0.1, and for Claude Code DISABLE_AUTOUPDATER=1 with
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 (without them it once installed a newer version of itself
// globally).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';

const arch = `${process.platform}-${process.arch}`;
const muslTriple = { 'linux-x64': 'x86_64-unknown-linux-musl', 'linux-arm64': 'aarch64-unknown-linux-musl' }[arch] ?? arch;

/** Each CLI: its npm package, the pinned version, the executable inside an install, and what --version prints. */
export const AGENT_CLIS = {
  claude: {
    title: 'Claude Code',
    pkg: '@anthropic-ai/claude-code',
    version: '2.1.328',
    // bin/claude.exe is a small stub until the (skipped) postinstall replaces it; the platform package holds the binary.
    candidates: (modules) => [path.join(modules, '@anthropic-ai', `claude-code-${arch}`, 'claude'), path.join(modules, '@anthropic-ai', 'claude-code', 'bin', 'claude.exe')],
    minSize: 1_000_000,
  },
  codex: {
    title: 'Codex CLI',
    pkg: '@openai/codex',
    version: '0.171.0',
    candidates: (modules) => [path.join(modules, '@openai', `codex-${arch}`, 'vendor', muslTriple, 'bin', 'codex')],
    minSize: 1_000_000,
  },
  gemini: {
    title: 'Gemini CLI',
    pkg: '@google/gemini-cli',
    version: '0.61.0',
    candidates: (modules) => [path.join(modules, '@google', 'gemini-cli', 'bundle', 'gemini.js')],
    minSize: 1,
  },
};

export const CLAUDE_CODE_VERSION = AGENT_CLIS.claude.version;

/** The folder a CLI's pinned version is installed into. */
export function cliPrefix(name, env = process.env) {
  const cache = env.TEAMUX_TEST_CACHE || path.join(homedir(), '.cache', 'teamux-test');
  const cli = AGENT_CLIS[name];
  return path.join(cache, `${cli.pkg.split('/')[1]}-${cli.version}`);
}

/** The executable inside an install, or null. */
export function cliBinary(name, env = process.env) {
  const cli = AGENT_CLIS[name];
  const modules = path.join(cliPrefix(name, env), 'node_modules');
  return cli.candidates(modules).find((f) => existsSync(f) && statSync(f).size >= cli.minSize) ?? null;
}

/** The environment a CLI is ever run with outside a teamux pane: offline, no updater, a scratch HOME. */
export function offlineEnv(home) {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    CODEX_HOME: path.join(home, '.codex'),
    GEMINI_CLI_HOME: home,
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9',
  };
}

/** Install a CLI's pinned version when missing; returns the executable's path. */
export function ensureCli(name, env = process.env, log = (t) => process.stderr.write(`${t}\n`)) {
  const found = cliBinary(name, env);
  if (found) return found;
  const cli = AGENT_CLIS[name];
  const prefix = cliPrefix(name, env);
  const spec = `${cli.pkg}@${cli.version}`;
  log(`installing ${spec} into ${prefix}`);
  execFileSync('npm', ['install', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', spec], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
  });
  const bin = cliBinary(name, env);
  if (!bin) throw new Error(`npm installed ${spec} but no ${arch} executable was found under ${prefix}`);
  const home = mkdtempSync(path.join(tmpdir(), `teamux-${name}-home-`));
  try {
    const version = execFileSync(bin, ['--version'], { env: offlineEnv(home), encoding: 'utf8', timeout: 60_000 }).trim();
    if (!version.includes(cli.version)) throw new Error(`expected ${cli.title} ${cli.version}, ${bin} says "${version}"`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return bin;
}

/** Claude Code's executable, or null (the name the Claude Code tests and bench use). */
export const claudeCodeBinary = (env = process.env) => cliBinary('claude', env);
/** Install Claude Code when missing. */
export const ensureClaudeCode = (env = process.env, log) => ensureCli('claude', env, log);

if (import.meta.url === `file://${process.argv[1]}`) {
  const asked = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const names = asked.length === 0 || asked.includes('all') ? Object.keys(AGENT_CLIS) : asked;
  const unknown = names.filter((n) => !(n in AGENT_CLIS));
  if (unknown.length > 0) {
    process.stderr.write(`agent-clis: unknown CLI ${unknown.join(', ')} (expected ${Object.keys(AGENT_CLIS).join(', ')} or all)\n`);
    process.exit(1);
  }
  let failed = false;
  for (const name of names) {
    try {
      const bin = process.argv.includes('--path') ? cliBinary(name) : ensureCli(name);
      if (bin) process.stdout.write(`${bin}\n`);
      else failed = true;
    } catch (err) {
      process.stderr.write(`agent-clis: ${name}: ${err.message}\n`);
      failed = true;
    }
  }
  process.exit(failed ? 1 : 0);
}
