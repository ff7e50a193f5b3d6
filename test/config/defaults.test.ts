/**
 * What a valid layout becomes: defaults filled in, paths made absolute, commands split into program
 * and args, seed tasks numbered, and the one-line summary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { formatErrors, loadLayout, summarizeLayout, type LayoutError, type LoadResult } from '../../src/config/load.js';
import type { NormalizedLayout } from '../../src/config/normalize.js';
import { lines, tempDir, writeLayout } from './layout-files.js';

function loaded(result: LoadResult): NormalizedLayout & { warnings: string[] } {
  if (!result.ok) throw new Error(`expected a valid layout, got:\n${JSON.stringify(result.errors, null, 2)}`);
  return { ...result.layout, warnings: result.warnings };
}

describe('defaults', () => {
  test('a minimal file gets every default', () => {
    const file = writeLayout(lines('name: demo', 'lead:', '  name: boss', '  role: Leads', '  command: sh'));
    const dir = path.dirname(file);
    const result = loadLayout(file);
    expect(result.ok && result.file).toBe(file);
    const { warnings, ...layout } = loaded(result);
    expect(warnings).toEqual([]);
    expect(layout).toEqual({
      name: 'demo',
      root: dir,
      env: {},
      backend: 'pty',
      layout: { name: 'main-vertical', mainSize: { unit: 'percent', value: 50 } },
      sidebar: { position: 'right', width: { percent: 30 }, minWidth: 24, maxWidth: 48, hideBelow: 90, sections: ['task_board', 'mailbox', 'requests'], hidden: false },
      attention: { bell: true, title: true, notify: null, webhook: null },
      web: null,
      keys: { prefix: 'C-a', bindings: {} },
      shutdownTimeout: 10,
      scrollback: 5000,
      planApprover: 'human',
      permissionTimeout: 120,
      sandbox: false,
      lead: {
        name: 'boss',
        role: 'Leads',
        isLead: true,
        command: { program: 'sh', args: [] },
        cwd: dir,
        worktree: false,
        env: {},
        planRequired: false,
        speaksProtocol: false,
        mcp: false,
        sandbox: false,
      },
      teammates: [],
      tasks: [],
      hooks: { onStart: [], onShutdown: [] },
      apiKey: null,
      pipeline: null,
      theme: {},
      store: null,
      worktrees: null,
    } satisfies NormalizedLayout);
  });

  test('defaults are fresh objects, not shared between loads', () => {
    const yaml = lines('name: demo', 'lead:', '  name: boss', '  role: r', '  command: sh');
    const a = loaded(loadLayout(writeLayout(yaml)));
    a.sidebar.sections.pop();
    const b = loaded(loadLayout(writeLayout(yaml)));
    expect(b.sidebar.sections).toEqual(['task_board', 'mailbox', 'requests']);
  });
});

describe('normalization', () => {
  test('api_key gives agents a key file or command, never the key, through their env', () => {
    const base = ['lead:', '  name: boss', '  role: r', '  agent: true', 'teammates:', '  - name: ann', '    role: r', '    command: sh'];
    const root = tempDir();
    const file = loaded(loadLayout(writeLayout(lines('name: demo', `root: ${root}`, 'api_key:', '  file: keys/anthropic', ...base))));
    const keyFile = path.join(root, 'keys', 'anthropic');
    expect(file.apiKey).toEqual({ file: keyFile });
    expect([file.lead.env, file.teammates[0]!.env]).toEqual([{ TEAMUX_API_KEY_FILE: keyFile }, { TEAMUX_API_KEY_FILE: keyFile }]);
    const cmd = loaded(loadLayout(writeLayout(lines('name: demo', 'api_key: { command: "pass show anthropic" }', ...base))));
    expect(cmd.lead.env).toEqual({ TEAMUX_API_KEY_COMMAND: 'pass show anthropic' });
    const bad = loadLayout(writeLayout(lines('name: demo', 'api_key: sk-ant-do-not-put-it-here', ...base)));
    expect(bad.ok).toBe(false);
    expect(JSON.stringify(bad)).toContain('expected { file: PATH } or { command: \\"…\\" }');
  });

  test('layout spellings become { name, mainSize }', () => {
    const base = ['lead:', '  name: boss', '  role: r', '  command: sh'];
    const of = (...ls: string[]) => loaded(loadLayout(writeLayout(lines('name: demo', ...ls, ...base)))).layout;
    expect(of('layout: tiled')).toEqual({ name: 'tiled', mainSize: { unit: 'percent', value: 50 } });
    expect(of('layout:', '  name: even-vertical', '  main_size: 60%')).toEqual({
      name: 'even-vertical',
      mainSize: { unit: 'percent', value: 60 },
    });
    expect(of('layout:', '  main_size: 120')).toEqual({ name: 'main-vertical', mainSize: { unit: 'cells', value: 120 } });
  });

  test('root expands ~ and is relative to the file; cwd is relative to root', () => {
    const home = tempDir();
    const file = writeLayout(
      lines('name: demo', 'root: ~/', 'lead:', '  name: boss', '  role: r', '  cwd: .', '  command: sh', 'teammates:', '  - name: ann', '    role: r', '    cwd: ..', '    agent: true'),
    );
    const layout = loaded(loadLayout(file, { env: { HOME: home, PATH: process.env['PATH'] } }));
    expect(layout.root).toBe(home);
    expect(layout.lead.cwd).toBe(home);
    expect(layout.teammates[0]!.cwd).toBe(path.dirname(home));

    const relative = writeLayout(lines('name: demo', 'root: ..', 'lead:', '  name: boss', '  role: r', '  command: sh'));
    expect(loaded(loadLayout(relative)).root).toBe(path.dirname(path.dirname(relative)));
  });

  test('a command string is split like a shell would, without a shell', () => {
    const file = writeLayout(lines('name: demo', 'lead:', '  name: boss', '  role: r', `  command: sh -c 'echo "hi there"' two\\ words`));
    expect(loaded(loadLayout(file)).lead.command).toEqual({ program: 'sh', args: ['-c', 'echo "hi there"', 'two words'] });
  });

  test('a command list is taken as is', () => {
    const file = writeLayout(lines('name: demo', 'lead:', '  name: boss', '  role: r', '  command: [sh, -c, "echo $HOME | cat"]'));
    expect(loaded(loadLayout(file)).lead.command).toEqual({ program: 'sh', args: ['-c', 'echo $HOME | cat'] });
  });

  test('agents, env merging, hooks and the rest of the knobs', () => {
    const file = writeLayout(
      lines(
        'name: demo',
        'backend: tmux',
        'plan_approver: lead',
        'shutdown_timeout: 2.5',
        'env: { A: team, B: team }',
        'sidebar: { position: left, width: 32, min_width: 20, max_width: 60, hide_below: 70, sections: [requests], hidden: true }',
        'keys:',
        '  prefix: C-space',
        '  bindings: { zoom: z, focus_1: "1", help: "?" }',
        'hooks:',
        '  on_start: make setup',
        '  on_shutdown: [echo one, echo two]',
        'lead:',
        '  name: boss',
        '  role: r',
        '  agent: true',
        'teammates:',
        '  - name: ann',
        '    role: r',
        '    env: { B: ann }',
        '    plan_required: true',
        '    tools: [read_file, grep, grep]',
        '    agent:',
        '      model: some-model',
        '      max_tokens: 1000',
        '      system_prompt: Be brief.',
        '      auto_claim: true',
        '      demo_script: demo.jsonl',
      ),
    );
    const dir = path.dirname(file);
    const layout = loaded(loadLayout(file, { checkPath: false }));
    expect(layout.backend).toBe('tmux');
    expect(layout.planApprover).toBe('lead');
    expect(layout.shutdownTimeout).toBe(2.5);
    expect(layout.sidebar).toEqual({ position: 'left', width: { cells: 32 }, minWidth: 20, maxWidth: 60, hideBelow: 70, sections: ['requests'], hidden: true });
    expect(layout.keys).toEqual({ prefix: 'C-space', bindings: { zoom: 'z', focus_1: '1', help: '?' } });
    expect(layout.hooks).toEqual({ onStart: ['make setup'], onShutdown: ['echo one', 'echo two'] });
    expect(layout.lead.agent).toEqual({ autoClaim: false });
    expect(layout.lead.command).toBeUndefined();
    expect(layout.teammates[0]).toEqual({
      name: 'ann',
      role: 'r',
      isLead: false,
      cwd: dir,
      worktree: false,
      env: { A: 'team', B: 'ann' },
      planRequired: true,
      speaksProtocol: true,
      mcp: false,
      sandbox: false,
      tools: ['read_file', 'grep'],
      agent: {
        model: 'some-model',
        maxTokens: 1000,
        systemPrompt: 'Be brief.',
        autoClaim: true,
        demoScript: path.join(dir, 'demo.jsonl'),
      },
    });
  });

  test('seed tasks get ids: their own, or the next free number', () => {
    const file = writeLayout(
      lines(
        'name: demo',
        'lead: { name: boss, role: r, command: sh }',
        'tasks:',
        '  - subject: first',
        '  - id: 2',
        '    subject: second',
        '    description: explicit numeric id',
        '  - subject: third',
        '    blockedBy: [1, 2, 1]',
      ),
    );
    expect(loaded(loadLayout(file)).tasks).toEqual([
      { id: '1', subject: 'first', blockedBy: [] },
      { id: '2', subject: 'second', description: 'explicit numeric id', blockedBy: [] },
      { id: '3', subject: 'third', blockedBy: ['1', '2'] },
    ]);
  });
});

describe('YAML conveniences', () => {
  test('anchors and merge keys share settings between members', () => {
    const file = writeLayout(
      lines(
        'name: demo',
        'lead: &base',
        '  name: boss',
        '  role: r',
        '  command: sh',
        '  env: { SHARED: "yes" }',
        'teammates:',
        '  - <<: *base',
        '    name: ann',
        '  - <<: *base',
        '    name: bob',
        '    nmae: typo',
      ),
    );
    const result = loadLayout(file);
    expect(result.ok).toBe(false);
    expect(formatErrors((result as { errors: LayoutError[] }).errors)).toBe(
      `${file}:12:5 teammates[1].nmae: unknown key\n  hint: did you mean "name"?`,
    );
    const fixed = writeLayout(fs.readFileSync(file, 'utf8').replace('    nmae: typo\n', ''));
    const layout = loaded(loadLayout(fixed));
    expect(layout.teammates.map((m) => [m.name, m.env['SHARED']])).toEqual([
      ['ann', 'yes'],
      ['bob', 'yes'],
    ]);
  });
});

describe('warnings', () => {
  test('allowed but suspicious settings produce positioned warnings', () => {
    const file = writeLayout(lines('name: demo', 'keys: { prefix: a }', 'lead:', '  name: boss', '  role: r', '  command: sh', '  tools: [bash]', '  plan_required: true'));
    expect(loaded(loadLayout(file)).warnings).toEqual([
      `${file}:2:17 keys.prefix: prefix "a" has no C- or M- modifier, so it cannot be typed into a pane`,
      `${file}:7:3 lead.tools: tools only apply to agent members and mcp: true members`,
    ]);
  });
  test('plan_approver: lead with a command lead and a plan to approve is a warning', () => {
    const file = writeLayout(lines('name: demo', 'plan_approver: lead', 'lead: { name: boss, role: r, command: sh }', 'teammates:', '  - { name: ann, role: r, agent: true, plan_required: true }'));
    expect(loaded(loadLayout(file)).warnings).toEqual([
      `${file}:2:16 plan_approver: plan_approver: lead needs an agent lead: a command lead cannot sign plan decisions, so no plan could be approved (use plan_approver: human)`,
    ]);
    const agentLead = writeLayout(lines('name: demo', 'plan_approver: lead', 'lead: { name: boss, role: r, agent: true }', 'teammates:', '  - { name: ann, role: r, agent: true, plan_required: true }'));
    expect(loaded(loadLayout(agentLead)).warnings).toEqual([]);
  });
});

describe('summarizeLayout', () => {
  test('one line about the team', () => {
    const file = writeLayout(
      lines(
        'name: demo',
        'lead: { name: boss, role: r, agent: true }',
        'teammates:',
        '  - { name: ann, role: r, command: sh }',
        '  - { name: bob, role: r, agent: true }',
        'tasks: [{ subject: a }, { subject: b }, { subject: c }, { subject: d }]',
      ),
    );
    expect(summarizeLayout(loaded(loadLayout(file)))).toBe(
      'team "demo": lead + 2 teammates, 4 seed tasks, layout main-vertical, backend pty',
    );
    const single = writeLayout(lines('name: solo', 'layout: tiled', 'lead: { name: boss, role: r, agent: true }', 'teammates: [{ name: ann, role: r, agent: true }]', 'tasks: [{ subject: a }]'));
    expect(summarizeLayout(loaded(loadLayout(single)))).toBe('team "solo": lead + 1 teammate, 1 seed task, layout tiled, backend pty');
  });
});
