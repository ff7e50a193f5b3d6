#!/usr/bin/env node
// The pinned Claude Code binary the e2e tests drive, kept in a cache outside the repository.
//   node scripts/claude-code.mjs            install it when missing, print its path
//   node scripts/claude-code.mjs --path     print its path if installed (exit 1 if not)
// The cache is $TEAMUX_TEST_CACHE, else ~/.cache/teamux-test. The binary is a test dependency, never a
// runtime one. It is only ever run with DISABLE_AUTOUPDATER=1 and CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
// (without them it once installed a newer version of itself globally), a throw-away HOME and a base
// URL on 127.0.0.1; npm's install scripts are not run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';

export const CLAUDE_CODE_VERSION = '2.1.328';

/** The folder the pinned version is installed into. */
export function claudeCodePrefix(env = process.env) {
  const cache = env.TEAMUX_TEST_CACHE || path.join(homedir(), '.cache', 'teamux-test');
  return path.join(cache, `claude-code-${CLAUDE_CODE_VERSION}`);
}

/** The native binary inside an install, or null. */
export function claudeCodeBinary(env = process.env) {
  const modules = path.join(claudeCodePrefix(env), 'node_modules', '@anthropic-ai');
  const candidates = [
    path.join(modules, `claude-code-${process.platform}-${process.arch}`, 'claude'),
    path.join(modules, 'claude-code', 'bin', 'claude.exe'),
  ];
  // bin/claude.exe is a small stub until the (skipped) postinstall replaces it; the platform package holds the binary.
  return candidates.find((f) => existsSync(f) && statSync(f).size > 1_000_000) ?? null;
}

/** The environment the binary is ever run with outside a teamux pane: offline, no updater, a scratch HOME. */
export function offlineEnv(home) {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' };
}

/** Install the pinned version when missing; returns the binary's path. */
export function ensureClaudeCode(env = process.env, log = (t) => process.stderr.write(`${t}\n`)) {
  const found = claudeCodeBinary(env);
  if (found) return found;
  const prefix = claudeCodePrefix(env);
  log(`installing @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} into ${prefix} (about 360 MB)`);
  execFileSync('npm', ['install', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
  });
  const bin = claudeCodeBinary(env);
  if (!bin) throw new Error(`npm installed @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} but no ${process.platform}-${process.arch} binary was found under ${prefix}`);
  const home = mkdtempSync(path.join(tmpdir(), 'teamux-claude-home-'));
  try {
    const version = execFileSync(bin, ['--version'], { env: offlineEnv(home), encoding: 'utf8', timeout: 60_000 }).trim();
    if (!version.startsWith(CLAUDE_CODE_VERSION)) throw new Error(`expected Claude Code ${CLAUDE_CODE_VERSION}, ${bin} says "${version}"`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return bin;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--path')) {
    const bin = claudeCodeBinary();
    if (bin) process.stdout.write(`${bin}\n`);
    process.exit(bin ? 0 : 1);
  }
  try {
    process.stdout.write(`${ensureClaudeCode()}\n`);
  } catch (err) {
    process.stderr.write(`claude-code: ${err.message}\n`);
    process.exit(1);
  }
}
