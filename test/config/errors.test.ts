/**
 * What a person sees for each kind of broken layout file: the exact `file:line:col path: message`
 * line and its hint, as printed by formatErrors.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { formatErrors, loadLayout, type LayoutError } from '../../src/config/load.js';
import { lines, tempDir, writeLayout } from './layout-files.js';

const LEAD = ['lead:', '  name: lead', '  role: Leads', '  command: sh'];

/** Loads `yaml` and returns the formatted errors with the temp file's path shortened to `team.yaml`. */
function errorsOf(yaml: string, opts: { checkPath?: boolean } = {}): string {
  const file = writeLayout(yaml);
  const result = loadLayout(file, opts);
  if (result.ok) throw new Error(`expected errors, got a valid layout: ${JSON.stringify(result.layout)}`);
  return formatErrors(result.errors).split(file).join('team.yaml');
}

describe('schema errors', () => {
  test('unknown key points at the key and suggests the near one', () => {
    expect(errorsOf(lines('name: demo', ...LEAD, 'teamates: []'))).toBe(
      'team.yaml:6:1 teamates: unknown key\n  hint: did you mean "teammates"?',
    );
  });

  test('speaks_protocol: false on an agent is an error at the key, with a hint', () => {
    expect(errorsOf(lines('name: demo', 'lead:', '  name: lead', '  role: Leads', '  agent: true', '  speaks_protocol: false'))).toBe(
      'team.yaml:6:20 lead.speaks_protocol: an agent always speaks the protocol\n  hint: remove speaks_protocol: false, or run the member as a command',
    );
  });

  test('a theme colour that is not an X11 colour names the key and the forms', () => {
    expect(errorsOf(lines('name: demo', ...LEAD, 'theme:', '  background: beige'))).toBe(
      'team.yaml:7:15 theme.background: expected an X11 colour like #1e1e2e or rgb:1e/1e/2e, got "beige"',
    );
  });

  test('unknown nested key points at the nested key', () => {
    expect(errorsOf(lines('name: demo', ...LEAD, 'sidebar:', '  width: 30', '  postion: left'))).toBe(
      'team.yaml:8:3 sidebar.postion: unknown key\n  hint: did you mean "position"?',
    );
  });

  test('wrong type names what was expected and what was found', () => {
    expect(errorsOf(lines('name: demo', 'shutdown_timeout: soon', ...LEAD))).toBe(
      'team.yaml:2:19 shutdown_timeout: expected a number, got "soon"',
    );
  });

  test('a number where a string belongs suggests quoting', () => {
    expect(errorsOf(lines('name: demo', 'env:', '  PORT: 8080', ...LEAD))).toBe(
      'team.yaml:3:9 env.PORT: expected a string, got 8080\n  hint: quote it to make it a string: "8080"',
    );
  });

  test('missing required key points at the map that lacks it', () => {
    expect(errorsOf(lines('# a team without a lead', 'name: demo', 'teammates: []'))).toBe(
      'team.yaml:2:1 lead: missing required key',
    );
  });

  test('an empty value points at its key', () => {
    expect(errorsOf(lines('name: demo', 'lead:', '  name: lead', '  role:', '  command: sh'))).toBe(
      'team.yaml:4:3 lead.role: expected a string, got nothing',
    );
  });

  test('a name with spaces is rejected with the pattern and a fixed-up suggestion', () => {
    const yaml = lines('name: demo', ...LEAD, 'teammates:', '  - name: ann', '    role: r', '    command: sh', '  - name: Bob Smith', '    role: r', '    command: sh');
    expect(errorsOf(yaml)).toBe(
      'team.yaml:10:11 teammates[1].name: expected a name matching ^[a-z][a-z0-9_-]{0,31}$, got "Bob Smith"\n' +
        '  hint: names are lowercase letters, digits, "-" and "_", starting with a letter; try "bob-smith"',
    );
  });

  test('a path-like name cannot escape the team folder', () => {
    const yaml = lines('name: demo', ...LEAD, 'teammates:', '  - name: ann', '    role: r', '    command: sh', '  - name: ../evil', '    role: r', '    command: sh');
    expect(errorsOf(yaml)).toBe(
      'team.yaml:10:11 teammates[1].name: expected a name matching ^[a-z][a-z0-9_-]{0,31}$, got "../evil"\n' +
        '  hint: names are lowercase letters, digits, "-" and "_", starting with a letter; try "evil"',
    );
  });

  test('duplicate member names point at the second use', () => {
    const yaml = lines('name: demo', ...LEAD, 'teammates:', '  - name: ann', '    role: r', '    command: sh', '  - name: lead', '    role: r', '    command: sh');
    expect(errorsOf(yaml)).toBe(
      'team.yaml:10:11 teammates[1].name: duplicate member name "lead" (also used by lead)\n' +
        '  hint: member names must be unique across lead and teammates',
    );
  });

  test('duplicate member names are reported alongside other errors', () => {
    const yaml = lines('name: demo', 'backend: ssh', ...LEAD, 'teammates:', '  - name: lead', '    role: r', '    command: sh');
    expect(errorsOf(yaml)).toBe(
      'team.yaml:2:10 backend: expected one of pty, tmux, got "ssh"\n' +
        'team.yaml:8:11 teammates[0].name: duplicate member name "lead" (also used by lead)\n' +
        '  hint: member names must be unique across lead and teammates',
    );
  });

  test('a member needs exactly one of command and agent', () => {
    const yaml = lines('name: demo', ...LEAD, 'teammates:', '  - name: ann', '    role: r', '  - name: bob', '    role: r', '    command: sh', '    agent: true');
    expect(errorsOf(yaml)).toBe(
      'team.yaml:7:5 teammates[0]: a member needs either "command" or "agent"\n' +
        '  hint: add command: [program, ...args] or agent: true\n' +
        'team.yaml:12:12 teammates[1].agent: give either "command" or "agent", not both',
    );
  });

  test('bad layout name gets a did-you-mean and the list of layouts', () => {
    expect(errorsOf(lines('name: demo', 'layout: main-vertial', ...LEAD))).toBe(
      'team.yaml:2:9 layout: expected a tmux layout name, got "main-vertial"\n' +
        '  hint: did you mean "main-vertical"? valid: main-vertical, main-horizontal, tiled, even-horizontal, even-vertical',
    );
  });

  test('bad layout name inside the object form, and a bad main_size', () => {
    expect(errorsOf(lines('name: demo', 'layout:', '  name: tiles', '  main_size: 150%', ...LEAD))).toBe(
      'team.yaml:3:9 layout.name: expected a tmux layout name, got "tiles"\n' +
        '  hint: did you mean "tiled"? valid: main-vertical, main-horizontal, tiled, even-horizontal, even-vertical\n' +
        'team.yaml:4:14 layout.main_size: expected a percentage like "60%" (1% to 99%) or a number of cells, got "150%"',
    );
  });

  test('unknown key bindings and bad key names', () => {
    const yaml = lines('name: demo', 'keys:', '  prefix: Ctrl-a', '  bindings:', '    zoomm: z', '    quit: q', '    help: q', ...LEAD);
    expect(errorsOf(yaml)).toBe(
      'team.yaml:3:11 keys.prefix: expected a key name like n, N, ?, C-x, M-x, S-tab, enter, space, left, f1..f12, got "Ctrl-a"\n' +
        'team.yaml:5:5 keys.bindings.zoomm: unknown action\n' +
        '  hint: did you mean "zoom"?\n' +
        'team.yaml:7:11 keys.bindings.help: key "q" is already bound to quit',
    );
  });

  test('a command string that needs a shell says how to write it', () => {
    const yaml = lines('name: demo', 'lead:', '  name: lead', '  role: r', '  command: tail -f log | grep x');
    expect(errorsOf(yaml)).toBe(
      'team.yaml:5:12 lead.command: this command uses shell syntax (|), which teamux does not interpret\n' +
        '  hint: write it as a list to run it through a shell: [sh, -c, "..."]',
    );
  });
});

describe('seed task errors', () => {
  test('blockedBy naming an unknown task points at the entry', () => {
    const yaml = lines('name: demo', ...LEAD, 'tasks:', '  - id: build', '    subject: Build', '  - subject: Test', '    blockedBy: [biuld]');
    expect(errorsOf(yaml)).toBe(
      'team.yaml:10:17 tasks[1].blockedBy[0]: no seed task has id "biuld"\n' +
        '  hint: did you mean "build"? seed task ids: build, 1',
    );
  });

  test('a dependency cycle is reported once, where it closes', () => {
    const yaml = lines(
      'name: demo',
      ...LEAD,
      'tasks:',
      '  - id: a',
      '    subject: A',
      '    blockedBy: [c]',
      '  - id: b',
      '    subject: B',
      '    blockedBy: [a]',
      '  - id: c',
      '    subject: C',
      '    blockedBy: [b]',
    );
    expect(errorsOf(yaml)).toBe(
      'team.yaml:12:17 tasks[1].blockedBy[0]: dependency cycle: a -> c -> b -> a\n' +
        '  hint: each task is blocked by the next; remove one of these blockedBy entries',
    );
  });

  test('duplicate task ids and self-dependencies', () => {
    const yaml = lines('name: demo', ...LEAD, 'tasks:', '  - id: a', '    subject: A', '    blockedBy: [a]', '  - id: a', '    subject: again');
    expect(errorsOf(yaml)).toBe(
      'team.yaml:9:17 tasks[0].blockedBy[0]: task "a" is blocked by itself\n' +
        'team.yaml:10:9 tasks[1].id: duplicate task id "a" (also used by tasks[0])',
    );
  });
});

describe('errors about the machine', () => {
  test('a program not on PATH', () => {
    const yaml = lines('name: demo', 'lead:', '  name: lead', '  role: r', '  command: teamux-no-such-program --flag');
    expect(errorsOf(yaml)).toBe(
      'team.yaml:5:12 lead.command: "teamux-no-such-program" not found on PATH\n  hint: install it or give an absolute path',
    );
  });

  test('in list form the error points at the program', () => {
    const yaml = lines('name: demo', ...LEAD, 'teammates:', '  - name: ann', '    role: r', '    command:', '      - teamux-no-such-program', '      - arg');
    expect(errorsOf(yaml)).toBe(
      'team.yaml:10:9 teammates[0].command[0]: "teamux-no-such-program" not found on PATH\n' +
        '  hint: install it or give an absolute path',
    );
  });

  test('a relative program is taken from the member cwd and must be executable', () => {
    const file = writeLayout(lines('name: demo', 'lead:', '  name: lead', '  role: r', '  cwd: bin', '  command: ./run.sh'));
    const dir = path.dirname(file);
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.writeFileSync(path.join(dir, 'bin', 'run.sh'), '#!/bin/sh\n', { mode: 0o644 });
    const script = path.join(dir, 'bin', 'run.sh');
    const failed = loadLayout(file);
    expect(failed.ok).toBe(false);
    expect(formatErrors((failed as { errors: LayoutError[] }).errors)).toBe(
      `${file}:6:12 lead.command: "${script}" is not executable\n  hint: chmod +x ${script}`,
    );
    fs.chmodSync(script, 0o755);
    const loaded = loadLayout(file);
    expect(loaded.ok && loaded.layout.lead.command).toEqual({ program: script, args: [] });
  });

  test('a relative program that does not exist', () => {
    const file = writeLayout(lines('name: demo', 'lead:', '  name: lead', '  role: r', '  command: [./missing.sh]'));
    const result = loadLayout(file);
    expect(formatErrors((result as { errors: LayoutError[] }).errors)).toBe(
      `${file}:5:13 lead.command[0]: "${path.join(path.dirname(file), 'missing.sh')}" not found\n` +
        '  hint: install it or give an absolute path',
    );
  });

  test('a missing cwd is an error', () => {
    const file = writeLayout(lines('name: demo', 'lead:', '  name: lead', '  role: r', '  cwd: nowhere', '  command: sh'));
    const result = loadLayout(file);
    expect(result.ok).toBe(false);
    expect(formatErrors((result as { errors: LayoutError[] }).errors)).toBe(
      `${file}:5:8 lead.cwd: working directory "${path.join(path.dirname(file), 'nowhere')}" does not exist`,
    );
  });

  test('checkPath: false skips the machine checks', () => {
    const file = writeLayout(lines('name: demo', 'lead:', '  name: lead', '  role: r', '  cwd: nowhere', '  command: teamux-no-such-program'));
    expect(loadLayout(file, { checkPath: false }).ok).toBe(true);
  });

  test('PATH comes from the member env when it sets one', () => {
    const dir = tempDir();
    const yaml = lines('name: demo', 'lead:', '  name: lead', '  role: r', '  command: sh', '  env:', `    PATH: ${dir}`);
    expect(errorsOf(yaml)).toBe('team.yaml:5:12 lead.command: "sh" not found on PATH\n  hint: install it or give an absolute path');
  });
});

describe('file and syntax errors', () => {
  test('a missing file is one clear error', () => {
    const file = path.join(tempDir(), 'absent.yaml');
    const result = loadLayout(file);
    expect(result).toEqual({
      ok: false,
      errors: [{ file, line: 0, col: 0, path: '', message: 'cannot read layout file: no such file' }],
    });
    expect(formatErrors((result as { errors: LayoutError[] }).errors)).toBe(`${file}: cannot read layout file: no such file`);
  });

  test('a directory is not a layout file', () => {
    const dir = tempDir();
    const result = loadLayout(dir);
    expect(formatErrors((result as { errors: LayoutError[] }).errors)).toBe(`${dir}: cannot read layout file: it is a directory`);
  });

  test('YAML syntax errors carry file:line:col', () => {
    expect(errorsOf(lines('name: demo', 'lead: [unclosed', '  name: x'))).toBe(
      'team.yaml:2:8 YAML syntax error: implicit keys of flow sequence pairs need to be on a single line\n' +
        'team.yaml:4:1 YAML syntax error: flow sequence in block collection must be sufficiently indented and end with a ]',
    );
  });

  test('a duplicate YAML key points at the second one', () => {
    expect(errorsOf(lines('name: demo', ...LEAD, 'name: again'))).toBe('team.yaml:6:1 duplicate key (map keys must be unique)');
  });

  test('tabs used for indentation', () => {
    expect(errorsOf('name: demo\nlead:\n\tname: x\n')).toMatch(/^team\.yaml:3:1 YAML syntax error: /);
  });

  test('an empty file', () => {
    expect(errorsOf('# nothing here\n')).toBe('team.yaml: layout file is empty\n  hint: a layout needs at least name and lead');
  });

  test('a file that is not a mapping', () => {
    expect(errorsOf('- name: demo\n')).toBe('team.yaml:1:1 expected a mapping, got a list');
  });
});

describe('formatErrors', () => {
  test('keeps the list short', () => {
    const errors: LayoutError[] = Array.from({ length: 23 }, (_, i) => ({
      file: 't.yaml',
      line: i + 1,
      col: 1,
      path: `k${i}`,
      message: 'bad',
    }));
    const text = formatErrors(errors).split('\n');
    expect(text).toHaveLength(21);
    expect(text[0]).toBe('t.yaml:1:1 k0: bad');
    expect(text[20]).toBe('... and 3 more errors');
  });
});
