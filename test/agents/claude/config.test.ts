/**
 * `agent: { cli: claude }` in a layout: what it normalizes to, how a typo in it is reported, and that
 * `validate` refuses a Claude Code member when the claude binary is not on PATH, with the install command,
 * or when it does not answer `claude --version` (npm's launcher without the native binary); and the
 * member's prompt names the plan approver the layout configures.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { formatErrors, loadLayout } from '../../../src/config/load.js';
import { claudeLaunchOf } from '../../../src/agents/claude/member-launch.js';
import { launchOf } from '../../../src/cli/screen-setup.js';
import { OPERATOR } from '../../../src/protocol/trust.js';
import { claudeCodeForTests } from '../../helpers/claude-code.js';
import { BIN, cliProcess } from '../../helpers/team.js';
import { lines, tempDir, writeLayout } from '../../config/layout-files.js';

/** A folder holding an executable named `claude` (its content never runs here). */
function fakeClaudeDir(): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'claude'), '#!/bin/sh\n[ "$1" = --version ] && echo "2.1.328 (Claude Code)"\nexit 0\n', { mode: 0o755 });
  return dir;
}

const LAYOUT = lines(
  'name: cc',
  'permission_timeout: 30',
  'lead: { name: lead, role: Leads, agent: { cli: claude, model: claude-sonnet-5, permission_mode: acceptEdits } }',
  '  # a comment',
  'teammates:',
  '  - { name: amy, role: Builds, agent: { cli: claude, args: [--verbose] }, plan_required: true }',
  '  - { name: bob, role: Helps, agent: true }',
);

describe('claude members in the layout', () => {
  test('claude.layout-normalizes-cli-model-mode-and-args', () => {
    const r = loadLayout(writeLayout(LAYOUT), { env: { PATH: fakeClaudeDir() } });
    if (!r.ok) throw new Error(formatErrors(r.errors));
    expect(r.layout.lead.claude).toEqual({ model: 'claude-sonnet-5', permissionMode: 'acceptEdits', args: [] });
    expect(r.layout.lead.agent).toBeUndefined();
    expect(r.layout.teammates[0]!.claude).toEqual({ permissionMode: 'default', args: ['--verbose'] });
    expect(r.layout.teammates[1]!.claude).toBeUndefined();
    expect(r.layout.teammates[1]!.agent).toBeDefined();
    expect(r.layout.permissionTimeout).toBe(30);
  });

  test('claude.layout-permission-timeout-defaults-to-120', () => {
    const r = loadLayout(writeLayout(lines('name: cc', 'lead: { name: lead, role: L, agent: { cli: claude } }')), { env: { PATH: fakeClaudeDir() } });
    if (!r.ok) throw new Error(formatErrors(r.errors));
    expect(r.layout.permissionTimeout).toBe(120);
  });

  test('claude.layout-bad-permission-mode-names-the-key', () => {
    const file = writeLayout(lines('name: cc', 'lead: { name: lead, role: L, agent: { cli: claude, permission_mode: yolo } }'));
    const r = loadLayout(file, { env: { PATH: fakeClaudeDir() } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const text = formatErrors(r.errors).split(file).join('team.yaml');
    expect(text).toMatch(/^team\.yaml:2:\d+ lead\.agent\.permission_mode: /);
    expect(text).toContain('yolo');
  });

  test('claude.validate-without-claude-on-path-gives-the-install-command', async () => {
    const file = writeLayout(LAYOUT);
    const empty = tempDir();
    const r = await cliProcess(['validate', file], { PATH: `${empty}:${path.dirname(process.execPath)}` });
    expect(r.code).toBe(1);
    expect(r.err).toContain('lead.agent.cli: Claude Code ("claude") is not installed: not found on PATH');
    expect(r.err).toContain('npm install -g @anthropic-ai/claude-code');
    expect(r.err).not.toMatch(/at .*\.js:\d+/);
  });
});

test('claude.layout-unknown-cli-is-named', () => {
  const file = writeLayout(lines('name: cc', 'lead: { name: lead, role: L, agent: { cli: aider } }'));
  const r = loadLayout(file, { env: { PATH: fakeClaudeDir() } });
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(formatErrors(r.errors).split(file).join('team.yaml')).toMatch(/^team\.yaml:2:\d+ lead\.agent(\.cli)?: expected cli: claude \(Claude Code\), cli: codex \(Codex CLI\) or cli: teamux .*got "aider"/);
});

test('claude.example-layout-and-its-demo-scripts-are-valid', async () => {
  const repo = path.resolve(__dirname, '../../..');
  const r = loadLayout(path.join(repo, 'examples/claude/team.yaml'), { env: { PATH: fakeClaudeDir() } });
  if (!r.ok) throw new Error(formatErrors(r.errors));
  expect(r.warnings).toEqual([]);
  expect([r.layout.lead, ...r.layout.teammates].every((m) => m.claude)).toBe(true);
  const { loadScriptDir, formatScriptError } = await import('../../../src/demo/script.js');
  const scripts = await loadScriptDir(path.join(repo, 'examples/claude/scripts'));
  if (!scripts.ok) throw new Error(scripts.errors.map(formatScriptError).join('\n'));
  expect([...scripts.value.keys()].sort()).toEqual(['amy', 'bob', 'lead']);
});

// npm's own launcher, left in place when the package's postinstall did not fetch the native binary
// (the pinned package installed with --ignore-scripts has it, 500 bytes), and the native binary itself.
const npmLauncher = (() => {
  const real = claudeCodeForTests();
  const launcher = real && path.join(path.dirname(real), '..', 'claude-code', 'bin', 'claude.exe');
  return launcher && fs.existsSync(launcher) && fs.statSync(launcher).size < 10_000 ? { real, launcher } : null;
})();

describe.skipIf(!npmLauncher)('validate runs claude --version (real binary and npm launcher)', () => {
  test('claude.validate-refuses-npm-launcher-without-its-native-binary-and-accepts-the-real-one', async () => {
    const file = writeLayout(LAYOUT);
    const stub = tempDir();
    fs.symlinkSync(npmLauncher!.launcher, path.join(stub, 'claude'));
    const r = await cliProcess(['validate', file], { PATH: `${stub}:${path.dirname(process.execPath)}:/usr/bin:/bin` });
    expect(r.code, r.out).toBe(1);
    expect(r.err).toContain(`lead.agent.cli: ${path.join(stub, 'claude')} is not a working Claude Code: \`claude --version\` exited 1 ("Error: claude native binary not installed.")`);
    expect(r.err).toContain('hint: install it with `npm install -g @anthropic-ai/claude-code`');
    expect(r.err).not.toMatch(/at .*\.js:\d+/);
    const real = tempDir();
    fs.symlinkSync(npmLauncher!.real, path.join(real, 'claude'));
    const ok = await cliProcess(['validate', file], { PATH: `${real}:${path.dirname(process.execPath)}:/usr/bin:/bin` });
    expect(ok.code, ok.err).toBe(0);
  });
});

test('claude.member-prompt-names-the-configured-plan-approver', () => {
  for (const [approver, expected] of [['human', OPERATOR], ['lead', 'lead']] as const) {
    const r = loadLayout(writeLayout(`plan_approver: ${approver}\n${LAYOUT}`), { env: { PATH: fakeClaudeDir() } });
    if (!r.ok) throw new Error(formatErrors(r.errors));
    const amy = r.layout.teammates[0]!;
    const launch = claudeLaunchOf(amy, r.layout, tempDir(), BIN, {});
    const prompt = launch.args[launch.args.indexOf('--append-system-prompt') + 1]!;
    expect(prompt).toContain(`have it approved by ${expected} before`);
    expect(launchOf(amy, r.layout, tempDir(), {}).env.TEAMUX_PLAN_APPROVER).toBe(expected);
  }
});
