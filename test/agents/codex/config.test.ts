/**
 * `agent: { cli: codex }` in a layout: what it normalizes to, the files and argv teamux launches Codex
 * with (its config home in the team folder, the hooks through `teamux hook`), and `validate` refusing a
 * Codex member whose binary is missing or too old, with the install command and the version found, and
 * accepting the pinned real one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { formatErrors, loadLayout } from '../../../src/config/load.js';
import { codexArgs, codexConfigToml, codexHooks } from '../../../src/agents/codex/launch.js';
import { readCodexPromptBox } from '../../../src/agents/codex/prompt-box.js';
import { transcriptResponses } from '../../../src/protocol/transcript-usage.js';
import { agentCliForTests } from '../../helpers/claude-code.js';
import { BIN } from '../../helpers/team.js';
import { lines, tempDir, writeLayout } from '../../config/layout-files.js';

const LAYOUT = lines('name: cx', 'lead: { name: lead, role: L, command: bash }', 'teammates:', '  - { name: cody, role: Tests, agent: { cli: codex, model: gpt-5-codex, sandbox: read-only, args: [--no-alt-screen] } }');

/** A folder holding an executable `codex` that prints `version`. */
function fakeCodex(version: string): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'codex'), `#!/bin/sh\n[ "$1" = --version ] && echo "${version}"\nexit 0\n`, { mode: 0o755 });
  return dir;
}

describe('codex members in a layout', () => {
  test('codex.layout-normalizes-model-approval-sandbox-and-args', () => {
    const r = loadLayout(writeLayout(LAYOUT), { env: { PATH: `${fakeCodex('codex-cli 0.171.0')}:/usr/bin:/bin` } });
    if (!r.ok) throw new Error(formatErrors(r.errors));
    expect(r.layout.teammates[0]!.codex).toEqual({ model: 'gpt-5-codex', approval: 'on-request', sandbox: 'read-only', args: ['--no-alt-screen'] });
  });

  test('codex.validate-names-a-missing-binary-with-the-install-command', () => {
    const r = loadLayout(writeLayout(LAYOUT), { env: { PATH: `${tempDir()}:/usr/bin:/bin` } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const text = formatErrors(r.errors);
    expect(text).toMatch(/teammates\[0\]\.agent\.cli: Codex CLI \("codex"\) is not installed: not found on PATH/);
    expect(text).toContain('npm install -g @openai/codex@0.171.0');
  });

  test('codex.validate-refuses-a-too-old-binary-naming-the-version-found', () => {
    const r = loadLayout(writeLayout(LAYOUT), { env: { PATH: `${fakeCodex('codex-cli 0.98.2')}:/usr/bin:/bin` } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(formatErrors(r.errors)).toMatch(/Codex CLI 0\.98\.2 at .*codex is too old: teamux needs 0\.171\.0 or newer[\s\S]*npm install -g @openai\/codex/);
  });

  const real = agentCliForTests('codex');
  test.skipIf(!real)('codex.validate-accepts-the-pinned-real-binary', () => {
    const dir = tempDir();
    fs.symlinkSync(real!, path.join(dir, 'codex'));
    const r = loadLayout(writeLayout(LAYOUT), { env: { PATH: `${dir}:/usr/bin:/bin` } });
    expect(r.ok ? 'ok' : formatErrors(r.errors)).toBe('ok');
  });
});

describe('codex launch files', () => {
  const ctx = { member: 'cody', teamDir: '/t/.teamux/cx', teamuxBin: BIN, node: process.execPath, permissionTimeout: 60, cwd: '/t', opts: { approval: 'on-request' as const, sandbox: 'workspace-write' as const, args: ['--x'] }, systemPrompt: 'You are "cody".\nline two', demoUrl: 'http://127.0.0.1:5/' };

  test('codex.config-toml-names-the-demo-provider-mcp-server-trust-and-prompt', () => {
    const toml = codexConfigToml(ctx);
    expect(toml).toContain('model_provider = "teamux-demo"');
    expect(toml).toContain('base_url = "http://127.0.0.1:5/m/cody/v1"');
    expect(toml).toContain('wire_api = "responses"');
    expect(toml).toContain('developer_instructions = "You are \\"cody\\".\\nline two"');
    expect(toml).toContain('[mcp_servers.teamux]');
    expect(toml).toMatch(/args = \["mcp", "--as", "cody"\]/);
    expect(toml).toContain('[projects."/t"]\ntrust_level = "trusted"');
    expect(codexConfigToml({ ...ctx, demoUrl: undefined })).toContain('env_key = "OPENAI_API_KEY"');
  });

  test('codex.hooks-run-teamux-hook-and-permission-waits-past-the-timeout', () => {
    const hooks = codexHooks(ctx).hooks as Record<string, Array<{ hooks: Array<{ command: string; timeout: number }> }>>;
    expect(Object.keys(hooks)).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'Stop', 'SessionEnd']);
    expect(hooks['PermissionRequest']![0]!.hooks[0]!.command).toMatch(/hook PermissionRequest --as cody --team-dir \/t\/\.teamux\/cx --permission-timeout 60$/);
    expect(hooks['PermissionRequest']![0]!.hooks[0]!.timeout).toBe(90);
    expect(codexArgs(ctx.opts)).toEqual(['--x', '--dangerously-bypass-hook-trust', '--ask-for-approval', 'on-request', '--sandbox', 'workspace-write']);
  });

  test('codex.prompt-box-tells-the-placeholder-from-typed-text', () => {
    const screen = (line: string) => ['› earlier prompt', '• done', '', line, '', '  gpt-5-codex default · /t'];
    expect(readCodexPromptBox(screen('› Ask Codex to do anything'))).toEqual({ kind: 'empty' });
    expect(readCodexPromptBox(screen('› half a thought'))).toEqual({ kind: 'text', text: 'half a thought' });
    expect(readCodexPromptBox(['  >_ OpenAI Codex (v0.171.0)', ''])).toEqual({ kind: 'unknown' });
  });
});

test('codex.rollout-usage-counts-each-response-once-and-cached-input-as-cache-reads', () => {
  const rec = (id: string) => JSON.stringify({ timestamp: '2026-12-04T21:36:34.448Z', type: 'token_usage_record', payload: { response_id: id, usage: { input_tokens: 4550, cached_input_tokens: 550, output_tokens: 14, reasoning_output_tokens: 0, total_tokens: 4564 } } });
  const other = JSON.stringify({ type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 1 } } } });
  const seen = new Set<string>();
  const got = transcriptResponses(`${rec('resp_a')}\n${other}\n${rec('resp_a')}\n${rec('resp_b')}\n`, seen);
  expect(got.map((r) => r.key)).toEqual(['resp_a', 'resp_b']);
  expect(got[0]!.tokens).toEqual({ input: 4000, output: 14, cacheRead: 550, cacheWrite: 0 });
});
