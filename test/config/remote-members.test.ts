/**
 * Members on other machines in a layout: `remote: true` (started there by hand; no command, no pane
 * here) and `host: user@machine` (started from this screen over ssh). What is accepted, how it is
 * normalized, and the exact message for each mistake.
 */
import { describe, expect, test } from 'vitest';
import { formatErrors, loadLayout } from '../../src/config/load.js';
import { lines, writeLayout } from './layout-files.js';

const HEAD = ['name: duo', 'store: nats://127.0.0.1:4222', 'lead:', '  name: lead', '  role: Leads', '  command: sh', 'teammates:'];

function errorsOf(yaml: string): string {
  const file = writeLayout(yaml);
  const result = loadLayout(file);
  if (result.ok) throw new Error(`expected errors, got a valid layout: ${JSON.stringify(result.layout)}`);
  return formatErrors(result.errors).split(file).join('team.yaml');
}

describe('remote members', () => {
  test('remote.true-needs-no-command-and-is-normalized-as-speaking-the-protocol', () => {
    const r = loadLayout(writeLayout(lines(...HEAD, '  - name: bob', '    role: Builds', '    remote: true')));
    if (!r.ok) throw new Error(formatErrors(r.errors));
    expect(r.layout.teammates[0]).toMatchObject({ name: 'bob', remote: true, speaksProtocol: true });
    expect(r.layout.teammates[0]!.command).toBeUndefined();
    expect(r.layout.lead.remote).toBeUndefined();
  });

  test('remote.true-with-a-command-is-refused-at-the-key', () => {
    expect(errorsOf(lines(...HEAD, '  - name: bob', '    role: Builds', '    remote: true', '    command: sh'))).toBe(
      'team.yaml:10:13 teammates[0].remote: a remote: true member is started on its own machine, so this layout gives it no command or agent\n  hint: remove command/agent, or use host: user@machine to start it from here over ssh',
    );
  });

  test('host.user-at-machine-with-a-port-is-kept', () => {
    const r = loadLayout(writeLayout(lines(...HEAD, '  - name: bob', '    role: Builds', '    agent: true', '    host: dev@build-box.lan:2222')));
    if (!r.ok) throw new Error(formatErrors(r.errors));
    expect(r.layout.teammates[0]).toMatchObject({ name: 'bob', host: 'dev@build-box.lan:2222' });
  });

  test('host.with-shell-characters-is-refused', () => {
    expect(errorsOf(lines(...HEAD, '  - name: bob', '    role: Builds', '    agent: true', '    host: "dev@box; rm -rf ~"'))).toBe(
      'team.yaml:11:11 teammates[0].host: expected user@machine, machine, or either with :PORT',
    );
  });

  test('host.and-remote-together-is-refused', () => {
    expect(errorsOf(lines(...HEAD, '  - name: bob', '    role: Builds', '    remote: true', '    host: dev@box'))).toContain('teammates[0].host: a remote: true member is started on its machine by hand; host: starts one from here over ssh');
  });
});
